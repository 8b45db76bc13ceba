#include "cluster.h"

#include <cstdlib>

namespace ucudnn::cli {

namespace {

class SingleProcess final : public Cluster {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  std::string broadcast(const std::string& from_root) override { return from_root; }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  std::vector<std::string> all_gather(const std::string& mine) override { return {mine}; }
  void post(const std::string&) override {}  // never called: no rank but 0
  void end_posts() override {}
  void take_posts(const std::function<void(int, const std::string&)>&) override {}
  [[noreturn]] void abort(int status) override { std::exit(status); }
};

}  // namespace

bool launched_by_mpi(const Environment& environment) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (const char* value = environment(name); value && *value) return true;
  return false;
}

std::unique_ptr<Cluster> single_process() {
  return std::make_unique<SingleProcess>();
}

Expected<std::unique_ptr<Cluster>> join_cluster(const Environment& environment) {
  if (!launched_by_mpi(environment)) return single_process();
#ifdef UCUDNN_CLI_HAVE_MPI
  return join_mpi_job();
#else
  return Error{
      "started by an MPI launcher, but this ucudnn was built without MPI: every rank would "
      "benchmark everything; rebuild with MPI (libopenmpi-dev) or run a single process"};
#endif
}

}  // namespace ucudnn::cli
