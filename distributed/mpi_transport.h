// checker/bfs/transport.h over MPI: one rank per process, started by `mpirun -np N`
// (docs/distributed.md). The only file of isrcheck that includes <mpi.h>, so that the
// engines in checker/ stay independent of it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/bfs/transport.h"

namespace isr::distributed {

// MPI_Init on construction (one per process, before any MpiTransport), MPI_Finalize on
// destruction. Only the thread that made it may call MPI (MPI_THREAD_FUNNELED).
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Ends every rank of the job (MPI_Abort) with `code`, after printing `message` to
  // stderr prefixed with this rank: a failure on one rank must not leave the others
  // waiting for it forever.
  [[noreturn]] static void abort(int code, const std::string& message);
  // True between MPI_Init and MPI_Finalize.
  static bool active();

 private:
  int rank_ = 0;
  int size_ = 1;
};

class MpiTransport : public checker::Transport {
 public:
  explicit MpiTransport(const MpiSession& session) : rank_(session.rank()), size_(session.size()) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<uint8_t>& received,
                std::vector<size_t>& offsets) override;
  void allreduce(uint64_t* values, size_t n, checker::ReduceOp op) override;
  uint64_t exscan_sum(uint64_t value) override;
  void allgather(const uint64_t* values, size_t n, std::vector<uint64_t>& all) override;
  void barrier();
  uint64_t bytes_sent() const override { return bytes_sent_; }
  double seconds_communicating() const override { return seconds_; }

 private:
  int rank_;
  int size_;
  uint64_t bytes_sent_ = 0;
  double seconds_ = 0;
  std::vector<uint8_t> packed_;
  std::vector<int> send_counts_, send_displacements_, receive_counts_, receive_displacements_;
};

}  // namespace isr::distributed
