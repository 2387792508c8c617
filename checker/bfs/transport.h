// The communication a distributed engine needs between its ranks (processes), and
// nothing more: an all-to-all exchange of byte batches and a few small collectives.
//
// checker/bfs/distributed_bfs.h is written against this interface only, so that it stays
// independent of MPI: distributed/mpi_transport.h implements it over MPI (one rank per
// process, `mpirun -np N`), checker/bfs/thread_transport.h over threads in one process
// (tests). Every call is collective: all ranks make the same calls in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace isr::checker {

enum class ReduceOp { Sum, Min, Max, BitOr };

class Transport {
 public:
  virtual ~Transport() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // send[d] goes to rank d (send.size() == size()); on return, received holds what
  // every rank sent to this one, rank 0's bytes first, and offsets[s] .. offsets[s + 1]
  // is the part rank s sent (offsets.size() == size() + 1). Buffers keep their capacity.
  virtual void exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<uint8_t>& received,
                        std::vector<size_t>& offsets) = 0;

  // Element-wise reduction of values[0 .. n) over all ranks; every rank gets the result.
  virtual void allreduce(uint64_t* values, size_t n, ReduceOp op) = 0;

  // The sum of `value` over the ranks below this one (0 on rank 0).
  virtual uint64_t exscan_sum(uint64_t value) = 0;

  // Every rank's `values` (the same n on every rank), rank 0's first, on every rank.
  virtual void allgather(const uint64_t* values, size_t n, std::vector<uint64_t>& all) = 0;

  // Bytes this rank sent to other ranks so far (exchange payloads; collectives of a few
  // words are not counted), and the wall time it spent inside calls (waiting included).
  virtual uint64_t bytes_sent() const = 0;
  virtual double seconds_communicating() const = 0;
};

}  // namespace isr::checker
