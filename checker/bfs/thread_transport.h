// checker/bfs/transport.h over threads of one process: ranks are threads that meet at a
// barrier. For tests of the distributed engine (its logic, not MPI): run the same
// engine on N threads with ThreadTransportHub::run and compare with the sequential BFS.
#pragma once

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "checker/bfs/transport.h"

namespace isr::checker {

class ThreadTransportHub;

class ThreadTransport : public Transport {
 public:
  ThreadTransport(ThreadTransportHub& hub, int rank) : hub_(hub), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override;
  void exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<uint8_t>& received,
                std::vector<size_t>& offsets) override;
  void allreduce(uint64_t* values, size_t n, ReduceOp op) override;
  uint64_t exscan_sum(uint64_t value) override;
  void allgather(const uint64_t* values, size_t n, std::vector<uint64_t>& all) override;
  uint64_t bytes_sent() const override { return bytes_sent_; }
  double seconds_communicating() const override { return 0; }

 private:
  ThreadTransportHub& hub_;
  int rank_;
  uint64_t bytes_sent_ = 0;
};

// Runs body(transport) on `ranks` threads, one transport each; rethrows the first
// exception (a rank that throws leaves the others blocked, so tests must not throw in
// one rank only: this is a test harness, not a fault-tolerant runtime).
class ThreadTransportHub {
 public:
  explicit ThreadTransportHub(int ranks)
      : ranks_(ranks), barrier_(ranks), outboxes_(static_cast<size_t>(ranks)), words_(static_cast<size_t>(ranks)) {}

  void run(const std::function<void(Transport&)>& body) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) {
      threads.emplace_back([&, r] {
        ThreadTransport t(*this, r);
        try {
          body(t);
        } catch (...) {
          errors[static_cast<size_t>(r)] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  friend class ThreadTransport;
  int ranks_;
  std::barrier<> barrier_;
  std::vector<const std::vector<std::vector<uint8_t>>*> outboxes_;
  std::vector<std::vector<uint64_t>> words_;
};

inline int ThreadTransport::size() const { return hub_.ranks_; }

inline void ThreadTransport::exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<uint8_t>& received,
                                      std::vector<size_t>& offsets) {
  const auto me = static_cast<size_t>(rank_);
  hub_.outboxes_[me] = &send;
  for (size_t d = 0; d < send.size(); ++d) {
    if (d != me) bytes_sent_ += send[d].size();
  }
  hub_.barrier_.arrive_and_wait();
  received.clear();
  offsets.assign(1, 0);
  for (const auto* outbox : hub_.outboxes_) {
    const auto& part = (*outbox)[me];
    received.insert(received.end(), part.begin(), part.end());
    offsets.push_back(received.size());
  }
  hub_.barrier_.arrive_and_wait();
}

inline void ThreadTransport::allgather(const uint64_t* values, size_t n, std::vector<uint64_t>& all) {
  hub_.words_[static_cast<size_t>(rank_)].assign(values, values + n);
  hub_.barrier_.arrive_and_wait();
  all.clear();
  for (const auto& w : hub_.words_) all.insert(all.end(), w.begin(), w.end());
  hub_.barrier_.arrive_and_wait();
}

inline void ThreadTransport::allreduce(uint64_t* values, size_t n, ReduceOp op) {
  std::vector<uint64_t> all;
  allgather(values, n, all);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = all[i];
    for (int r = 1; r < hub_.ranks_; ++r) {
      const uint64_t x = all[static_cast<size_t>(r) * n + i];
      switch (op) {
        case ReduceOp::Sum: v += x; break;
        case ReduceOp::Min: v = std::min(v, x); break;
        case ReduceOp::Max: v = std::max(v, x); break;
        case ReduceOp::BitOr: v |= x; break;
      }
    }
    values[i] = v;
  }
}

inline uint64_t ThreadTransport::exscan_sum(uint64_t value) {
  std::vector<uint64_t> all;
  allgather(&value, 1, all);
  uint64_t sum = 0;
  for (int r = 0; r < rank_; ++r) sum += all[static_cast<size_t>(r)];
  return sum;
}

}  // namespace isr::checker
