// The MPI side of Cluster: plain MPI-3 C calls, from one thread at a time.
#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "cluster.h"

namespace ucudnn::cli {

namespace {

int checked_length(std::size_t size) {
  if (size > static_cast<std::size_t>(INT_MAX))
    throw std::length_error("a message of more than 2 GiB between ranks");
  return static_cast<int>(size);
}

class MpiJob final : public Cluster {
 public:
  MpiJob() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    // Serialized: a rank's workers post each measured item from their own threads, and rank 0
    // takes them on a thread of its own (one thread at a time calls MPI).
    if (!initialized)
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &thread_level_);
    else
      MPI_Query_thread(&thread_level_);
    // MPI's default, made explicit: a failed call ends the whole job, so that no rank waits
    // forever for one that failed.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_size(node, &local_size_);
    MPI_Comm_free(&node);
  }
  ~MpiJob() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  std::string broadcast(const std::string& from_root) override {
    std::uint64_t length = rank_ == 0 ? from_root.size() : 0;
    MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::string text = rank_ == 0 ? from_root : std::string(length, '\0');
    MPI_Bcast(text.data(), checked_length(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return text;
  }

  std::vector<std::string> gather(const std::string& mine) override {
    int length = checked_length(mine.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets;
    std::string all = concatenation(lengths, offsets);
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                0, MPI_COMM_WORLD);
    return split(all, lengths, offsets);
  }

  std::vector<std::string> all_gather(const std::string& mine) override {
    int length = checked_length(mine.size());
    std::vector<int> lengths(size_);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets;
    std::string all = concatenation(lengths, offsets);
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, MPI_COMM_WORLD);
    return split(all, lengths, offsets);
  }

  void post(const std::string& text) override {
    // Blocking: a send above the transport's eager size moves only while its rank calls MPI,
    // and a rank measures for long between posts. Rank 0 takes within milliseconds.
    MPI_Send(text.data(), checked_length(text.size()), MPI_CHAR, 0, kPostTag, MPI_COMM_WORLD);
  }

  void end_posts() override { MPI_Send(nullptr, 0, MPI_CHAR, 0, kEndTag, MPI_COMM_WORLD); }

  void take_posts(const std::function<void(int, const std::string&)>& take) override {
    for (int ended = 0; ended < size_ - 1;) {
      // Polled, not a blocking receive: Open MPI's spins a core, which rank 0's own
      // measurements (the CPU backend's on every core) would feel.
      int arrived = 0;
      MPI_Status status;
      std::string text;
      {
        std::lock_guard calling(taking_);
        MPI_Message message;
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &message, &status);
        if (arrived) {
          int length = 0;
          MPI_Get_count(&status, MPI_CHAR, &length);
          text.resize(static_cast<std::size_t>(length));
          MPI_Mrecv(text.data(), length, MPI_CHAR, &message, MPI_STATUS_IGNORE);
        }
      }
      if (!arrived) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      if (status.MPI_TAG == kEndTag)
        ++ended;
      else
        take(status.MPI_SOURCE, text);
    }
  }

  bool serialized_threads() const { return thread_level_ >= MPI_THREAD_SERIALIZED; }

  [[noreturn]] void abort(int status) override {
    // From rank 0's main thread the taking thread may be in MPI: one thread at a time calls it
    // (MPI_THREAD_SERIALIZED). Never released: the process ends here.
    taking_.lock();
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);
  }

 private:
  // A buffer for every rank's text back to back; `offsets` gets where each starts.
  static std::string concatenation(const std::vector<int>& lengths, std::vector<int>& offsets) {
    std::size_t total = 0;
    for (int length : lengths) {
      offsets.push_back(checked_length(total));
      total += static_cast<std::size_t>(length);
    }
    checked_length(total);
    return std::string(total, '\0');
  }
  static std::vector<std::string> split(const std::string& all, const std::vector<int>& lengths,
                                        const std::vector<int>& offsets) {
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < lengths.size(); ++i)
      texts.push_back(
          all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
    return texts;
  }

  static constexpr int kPostTag = 1, kEndTag = 2;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  int thread_level_ = MPI_THREAD_SINGLE;
  std::mutex taking_;  // held by take_posts while it calls MPI
};

}  // namespace

Expected<std::unique_ptr<Cluster>> join_mpi_job() {
  auto job = std::make_unique<MpiJob>();
  if (!job->serialized_threads())
    return Error{
        "this MPI library does not offer MPI_THREAD_SERIALIZED, which a bench's ranks need to "
        "send rank 0 each measurement as it is taken (so that a rank lost midway loses nothing "
        "else); run a single process, or use an MPI built with thread support"};
  return std::unique_ptr<Cluster>(std::move(job));
}

}  // namespace ucudnn::cli
