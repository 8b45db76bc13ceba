#pragma once
// The processes that run one `ucudnn bench`: this process alone, or the ranks of an MPI job
// (`mpirun -np K ucudnn bench ...`). MPI is initialized only when a launcher started the
// process, so that a plain run never starts an MPI runtime. Every rank must make the same
// sequence of collective calls.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"

namespace ucudnn::cli {

class Cluster {
 public:
  virtual ~Cluster() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks on this node
  virtual int local_size() const = 0;
  bool root() const { return rank() == 0; }

  // Rank 0's text, on every rank.
  virtual std::string broadcast(const std::string& from_root) = 0;
  // Every rank's text in rank order, on rank 0; empty on the others.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // Every rank's text in rank order, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
  // Texts sent to rank 0 while the ranks work, so that rank 0 keeps what every rank has done
  // should one die before the end (MPI then ends the whole job). Each rank's texts arrive in the
  // order it posted them.
  // Rank != 0, from one thread at a time: `text` for rank 0 (sent when it returns).
  virtual void post(const std::string& text) = 0;
  // Rank != 0: it posts nothing more.
  virtual void end_posts() = 0;
  // Rank 0, from one thread (one of its own while rank 0 works, the only one of the process
  // that calls the cluster meanwhile): calls `take` with each text as it arrives, until every
  // other rank has ended its posts.
  virtual void take_posts(const std::function<void(int rank, const std::string& text)>& take) = 0;
  // Ends every rank (a rank that cannot continue the protocol must not leave the others
  // waiting in a collective call).
  [[noreturn]] virtual void abort(int status) = 0;
};

using Environment = std::function<const char*(const char*)>;

// Set by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE), PMIx launchers (PMIX_RANK) or
// MPICH/Slurm PMI (PMI_SIZE).
bool launched_by_mpi(const Environment& environment);

// The MPI job when launched by one, else this process alone. An error when launched by
// mpirun in a build without MPI.
Expected<std::unique_ptr<Cluster>> join_cluster(const Environment& environment);

std::unique_ptr<Cluster> single_process();
#ifdef UCUDNN_CLI_HAVE_MPI
Expected<std::unique_ptr<Cluster>> join_mpi_job();  // mpi_cluster.cc
#endif

}  // namespace ucudnn::cli
