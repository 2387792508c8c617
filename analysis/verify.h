// Verifying one configuration of the partition model exhaustively, as a library call.
//
// `isrcheck check` prints and reports; the analyses built on top of it (the corpus,
// claims, the matrix, covering tests) need the same search as a value: the verdict, the
// counts, and the shortest counterexample as a trace (format v1) that has already been
// replayed. This is that call, so that every analysis runs the search the same way.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs_types.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {

// When the faults of the fault budget may begin: a premise of the check, as a
// restriction of the model's executions (analysis/restricted_model.h, docs/claims.md).
enum class FaultsBegin : uint8_t {
  Anytime,   // the model as configured
  // Until a record is acknowledged, no fault (node stop, network cut) strikes and the
  // leader proposes no ISR shrink: the record is acknowledged by the whole partition
  // (its first leader, the full ISR). Afterwards the model is unrestricted (followers
  // may lag and leave the ISR, faults strike). For claims of the form "acknowledged
  // with ISR [1,2,3], it takes k lost copies to lose the write".
  AfterAck,
};
std::string_view faults_begin_name(FaultsBegin f);  // "anytime", "after-ack"
bool parse_faults_begin(std::string_view name, FaultsBegin& out);

struct VerifyOptions {
  int threads = 1;            // the result does not depend on it
  bool symmetry = true;
  uint64_t max_states = 0;    // 0: no limit (verdict Incomplete when reached)
  uint64_t max_memory_bytes = 0;
  const std::atomic<bool>* interrupt = nullptr;  // Ctrl-C: stop with verdict Incomplete
  FaultsBegin faults_begin = FaultsBegin::Anytime;
  // Every node stop is a power loss or a disk loss of a replica (copy_loss_allowed): kill
  // -9, clean shutdowns and dedicated controllers' stops are held back
  // (analysis/restricted_model.h), so that the fault budget counts lost copies (`isrcheck
  // matrix`'s "copies lost" column, docs/matrix.md). The budget's own kinds still apply
  // (faults.max_lossy_crashes, faults.max_disk_losses).
  bool only_copy_losses = false;
  // no-acked-loss and no-committed-loss-globally judge only the first acknowledged write
  // (the smallest acknowledged record id: records are sent one at a time in id order, so
  // acknowledgements come in id order). With faults_begin=after-ack that is the write
  // acknowledged by the full ISR; later records may be acknowledged by a smaller ISR,
  // which is another question. The configuration may enable no other property.
  bool first_ack_only = false;
  bool por = false;           // partial-order reduction (checker/por.h): same verdict, fewer states
};

struct VerifyOutcome {
  checker::Verdict verdict = checker::Verdict::Holds;
  std::string property;            // the violated property, when Violated
  std::string property_description;
  nlohmann::json trace;            // the shortest counterexample (trace v1), when Violated
  int trace_steps = 0;             // steps after the initial state, when Violated
  uint64_t distinct_states = 0;
  uint64_t states_generated = 0;
  int depth = 0;
  double seconds = 0;
  std::vector<std::string> bounds_reached;  // bounds that cut the search somewhere
  checker::StopReason stop_reason = checker::StopReason::None;
};

// Runs the exhaustive search over the model of `config` (every property the config
// enables), restricted by `options.faults_begin` and `options.only_copy_losses`. A counterexample is replayed on the
// unrestricted model before it is returned (a restricted path is a path of the model);
// a trace that does not replay is a bug and throws std::logic_error.
// The stops VerifyOptions::only_copy_losses allows: a power loss or a disk loss of a
// replica, which can take a write off its disk. A kill -9 and a clean shutdown keep the
// log (the page cache survives a process kill; a clean stop flushes), and a dedicated
// controller voter holds no copy, so its stops would spend the budget on no copy at all.
// Every other action (restarts included) is allowed.
bool copy_loss_allowed(const spec::Config& config, const spec::Action& a);

VerifyOutcome verify(const spec::Config& config, const VerifyOptions& options = {});

}  // namespace isr::analysis
