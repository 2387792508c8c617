// The KRaft model's skeleton: the initial quorum, the fixed order in which actions are
// enumerated and the dispatch of each action to its rule file.
#include "spec/kraft/kraft_model.h"

#include <cstring>
#include <stdexcept>
#include <utility>

#include "checker/property_table.h"
#include "spec/kraft/kraft_properties.h"
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft {
namespace {

// The catalog's properties, called through the checker's Property interface.
using Properties = checker::PropertyTable<KraftModel, &properties::kraft_catalog,
                                          [](const auto& p, const KraftModel& m, const KraftState& s) {
                                            return p.holds(m.config(), s);
                                          }>;

// The most actions one state can enable with kMaxVoters voters: a timeout, resign,
// append, restart, cut and heal per voter, two kinds of fetch and of crash per voter,
// two kinds of vote and a BeginQuorumEpoch per ordered pair, and per leader one voter
// change (add or remove) per other voter.
static_assert(kMaxKraftActions >=
              6 * kMaxVoters + 4 * kMaxVoters + 3 * kMaxVoters * (kMaxVoters - 1) + kMaxVoters * (kMaxVoters - 1));

}  // namespace

KraftModel::KraftModel(KraftConfig config)
    : ModelBase(std::move(config), kraft_words()), symmetry_classes_(voter_classes(config_)) {
  for (const std::string& name : config_.properties) Properties::add(name, properties_);
}

std::vector<KraftState> KraftModel::initial_states() const {
  // A freshly formatted quorum: every voter alive in epoch 0, Unattached, empty logs.
  KraftState s;
  std::memset(static_cast<void*>(&s), 0, sizeof s);  // unused voters stay zero
  for (int v = 0; v < config_.voters; ++v) {
    Voter& x = s.voters[v];
    x.alive = 1;
    x.voted_for = kNone;
    x.leader = kNone;
    x.role = static_cast<uint8_t>(Role::Unattached);
  }
  return {s};
}

int KraftModel::enabled_actions(const KraftState& s, KraftAction* out) const {
  // The order is part of the model's contract: engines record an action by its position.
  rules::ActionList list{out};
  rules::election_actions(config_, s, list);
  rules::replication_actions(config_, s, list);
  rules::fault_actions(config_, s, list);
  rules::voter_change_actions(config_, s, list);
  return list.count;
}

KraftState KraftModel::next_state(const KraftState& from, const KraftAction& a) const {
  KraftState s = from;
  const KraftConfig& c = config_;
  using K = KraftActionKind;
  switch (a.kind) {
    case K::Timeout: rules::apply_timeout(c, s, a); break;
    case K::Vote: rules::apply_vote(c, s, a); break;
    case K::BeginEpoch: rules::apply_begin_epoch(c, s, a); break;
    case K::Fetch: rules::apply_fetch(c, s, a); break;
    case K::Append: rules::apply_append(c, s, a); break;
    case K::Resign: rules::apply_resign(c, s, a); break;
    case K::Crash: rules::apply_crash(c, s, a); break;
    case K::Restart: rules::apply_restart(c, s, a); break;
    case K::Cut: rules::apply_cut(c, s, a); break;
    case K::Heal: rules::apply_heal(c, s, a); break;
    case K::AddVoter: rules::apply_add_voter(c, s, a); break;
    case K::RemoveVoter: rules::apply_remove_voter(c, s, a); break;
    case K::kCount: break;
  }
  return s;
}

}  // namespace isr::spec::kraft
