// The executable model of the KRaft controller quorum (KIP-595, pull-based Raft for the
// metadata log), checkable on its own with the unchanged engines of checker/.
//
// It satisfies checker::Model. The rules live in one file per concern, each citing the
// class and method of Kafka's raft module it follows (docs/kraft.md lists them):
//   spec/kraft/kraft_election.cc     timeouts, Vote, BeginQuorumEpoch, resignation
//   spec/kraft/kraft_replication.cc  Fetch with divergence truncation, appends, the HW
//   spec/kraft/kraft_faults.cc       crashes, disk loss, restarts, network cuts
//   spec/kraft/kraft_voters.cc       KIP-853 voter sets: VotersRecord, AddVoter, RemoveVoter
//   spec/kraft/kraft_symmetry.cc     canonical form under permutations of voters
//   spec/kraft/kraft_describe.cc     action names, JSON of actions and states, bounds
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "checker/model_base.h"
#include "spec/common/node_action.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_state.h"
#include "spec/kraft/kraft_usage.h"

namespace isr::spec::kraft {

enum class KraftActionKind : uint8_t {
  Timeout,     // voter `node`'s fetch / election timer expires: it becomes a candidate
  Vote,        // voter `other` handles candidate `node`'s Vote request; `node` the response
  BeginEpoch,  // voter `other` handles leader `node`'s BeginQuorumEpoch request
  Fetch,       // leader `other` handles follower `node`'s Fetch; `node` the response
               // unless `arg` = 1 (the response is lost)
  Append,      // leader `node` appends a metadata record
  Resign,      // leader `node` resigns (check-quorum timeout or shutdown)
  Crash,       // voter `node` stops; `arg` = 1 when its disk is lost too
  Restart,     // voter `node` starts again from its disk
  Cut,         // voter `node` is cut off from every other voter
  Heal,        // voter `node`'s cut heals
  AddVoter,    // leader `node` handles AddRaftVoter for replica `other`'s current key (KIP-853)
  RemoveVoter, // leader `node` handles RemoveRaftVoter for voter `other`'s key in its set
  kCount
};

// arg: Crash: 1 = the disk is lost; Fetch: 1 = the response is lost.
using KraftAction = NodeAction<KraftActionKind>;

inline constexpr int kMaxKraftActions = 144;

class KraftModel;
// The model's descriptions (checker/model_base.h), defined in kraft_describe.cc.
const checker::ModelWords<KraftModel, KraftState, KraftAction>& kraft_words();

class KraftModel : public checker::ModelBase<KraftModel, KraftConfig, KraftState, KraftAction, kMaxKraftActions> {
 public:
  explicit KraftModel(KraftConfig config);

  std::vector<State> initial_states() const;

  // Fills `out` with the enabled actions in the model's fixed order; returns the count.
  int enabled_actions(const State& s, Action* out) const;

  State next_state(const State& s, const Action& a) const;

  void canonicalize(State& s) const;

  // Optional usage hook (checker/hooks.h, HasUsage; spec/kraft/kraft_usage.h): the
  // configured faults and budgets that have acted on the path to a state, and after a
  // complete search those that never did (cli: check's `unused:` lines and --json).
  std::vector<std::string_view> usage_names() const { return kraft::usage_names(); }
  uint32_t usage_seen(const State& s) const { return kraft::usage_seen(s); }
  std::vector<UnusedSwitch> unused_switches(uint32_t used) const { return kraft::unused_switches(config(), used); }

 private:
  std::vector<std::vector<uint8_t>> symmetry_classes_;
};

static_assert(checker::Model<KraftModel>);

// The voters, interchangeable as one class (kraft_symmetry.cc); none below two voters.
std::vector<std::vector<uint8_t>> voter_classes(const KraftConfig& c);

// The name traces record in their "model" field.
inline constexpr const char* kKraftModelName = "kraft";

}  // namespace isr::spec::kraft
