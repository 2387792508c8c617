// MPI implementation of the distributed engines' transport (see mpi_transport.h).
#include "distributed/mpi_transport.h"

#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>

namespace isr::distributed {
namespace {

// Wall time of one call, added to the transport's communication time.
class Timed {
 public:
  explicit Timed(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Timed() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

int checked_int(size_t n, const char* what) {
  if (n > static_cast<size_t>(INT_MAX)) {
    throw std::length_error(std::string("distributed: a batch of ") + what +
                            " over 2 GiB (MPI counts are int); lower --max-memory or use more ranks");
  }
  return static_cast<int>(n);
}

MPI_Op mpi_op(checker::ReduceOp op) {
  switch (op) {
    case checker::ReduceOp::Sum: return MPI_SUM;
    case checker::ReduceOp::Min: return MPI_MIN;
    case checker::ReduceOp::Max: return MPI_MAX;
    case checker::ReduceOp::BitOr: return MPI_BOR;
  }
  return MPI_SUM;
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

// Leaving by an exception (an error on this rank only, such as a file it cannot write)
// must not wait in MPI_Finalize for ranks that wait for this one: exit without it, and
// mpirun ends the job, saying that this rank exited without finalizing.
MpiSession::~MpiSession() {
  if (std::uncaught_exceptions() == 0) MPI_Finalize();
}

bool MpiSession::active() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

void MpiSession::abort(int code, const std::string& message) {
  int rank = -1;
  if (active()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::cerr << "isrcheck: rank " << rank << ": " << message << " (ending every rank)" << std::endl;
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();
}

void MpiTransport::exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<uint8_t>& received,
                            std::vector<size_t>& offsets) {
  Timed timed(seconds_);
  const auto n = static_cast<size_t>(size_);
  send_counts_.resize(n);
  send_displacements_.resize(n);
  receive_counts_.resize(n);
  receive_displacements_.resize(n);
  size_t total = 0;
  for (size_t d = 0; d < n; ++d) {
    send_counts_[d] = checked_int(send[d].size(), "states");
    send_displacements_[d] = checked_int(total, "states");
    total += send[d].size();
    if (d != static_cast<size_t>(rank_)) bytes_sent_ += send[d].size();
  }
  packed_.resize(total);
  for (size_t d = 0; d < n; ++d) {
    if (!send[d].empty()) std::memcpy(packed_.data() + send_displacements_[d], send[d].data(), send[d].size());
  }
  MPI_Alltoall(send_counts_.data(), 1, MPI_INT, receive_counts_.data(), 1, MPI_INT, MPI_COMM_WORLD);
  size_t incoming = 0;
  offsets.assign(1, 0);
  for (size_t s = 0; s < n; ++s) {
    receive_displacements_[s] = checked_int(incoming, "states");
    incoming += static_cast<size_t>(receive_counts_[s]);
    offsets.push_back(incoming);
  }
  checked_int(incoming, "states");
  received.resize(incoming);
  MPI_Alltoallv(packed_.data(), send_counts_.data(), send_displacements_.data(), MPI_BYTE, received.data(),
                receive_counts_.data(), receive_displacements_.data(), MPI_BYTE, MPI_COMM_WORLD);
}

void MpiTransport::allreduce(uint64_t* values, size_t n, checker::ReduceOp op) {
  Timed timed(seconds_);
  MPI_Allreduce(MPI_IN_PLACE, values, checked_int(n, "words"), MPI_UINT64_T, mpi_op(op), MPI_COMM_WORLD);
}

uint64_t MpiTransport::exscan_sum(uint64_t value) {
  Timed timed(seconds_);
  uint64_t sum = 0;
  MPI_Exscan(&value, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return rank_ == 0 ? 0 : sum;  // MPI leaves rank 0's result undefined
}

void MpiTransport::allgather(const uint64_t* values, size_t n, std::vector<uint64_t>& all) {
  Timed timed(seconds_);
  all.resize(n * static_cast<size_t>(size_));
  MPI_Allgather(values, checked_int(n, "words"), MPI_UINT64_T, all.data(), checked_int(n, "words"), MPI_UINT64_T,
                MPI_COMM_WORLD);
}

void MpiTransport::barrier() {
  Timed timed(seconds_);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace isr::distributed
