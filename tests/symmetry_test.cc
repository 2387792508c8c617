// Symmetry reduction of the partition model (spec/partition/symmetry.cc), checked against a
// relabelling written here independently from the state layout: permuting nodes that
// play the same part (replica or not, voter or not) gives a state with the same
// canonical form, the same property verdicts and the same behaviour (the model's rules
// commute with the relabelling); canonical forms are idempotent and lie in the orbit of
// their state; and states with different verdicts never share a canonical form.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/hooks.h"
#include "checker/symmetry.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

using Perm = std::array<uint8_t, kMaxNodes>;  // old node id -> new node id

Perm identity() {
  Perm p;
  for (int n = 0; n < kMaxNodes; ++n) p[n] = static_cast<uint8_t>(n);
  return p;
}

// Nodes that play the same part in a configuration. Only these may be permuted.
std::vector<std::vector<uint8_t>> interchangeable_groups(const Config& c) {
  std::map<std::array<bool, 3>, std::vector<uint8_t>> by_part;
  for (int n = 0; n < c.nodes(); ++n)
    by_part[{n < c.replication_factor, c.is_voter(n), c.is_broker(n)}].push_back(static_cast<uint8_t>(n));
  std::vector<std::vector<uint8_t>> groups;
  for (auto& [part, members] : by_part)
    if (members.size() > 1) groups.push_back(members);
  return groups;
}

uint8_t map_id(const Perm& p, uint8_t id) { return id == kNoNode ? kNoNode : p[id]; }

NodeSet map_set(const Perm& p, NodeSet s) {
  NodeSet out = 0;
  for (int n = 0; n < kMaxNodes; ++n)
    if (contains(s, n)) out |= bit(p[n]);
  return out;
}

// Every field of State that names a node, rewritten through `p`.
State relabel(const Config& c, const Perm& p, const State& s) {
  State t = s;
  for (int n = 0; n < c.nodes(); ++n) {
    t.nodes[p[n]] = s.nodes[n];
    t.controller.registered_epoch[p[n]] = s.controller.registered_epoch[n];
  }
  for (int r = 0; r < c.replication_factor; ++r) {
    const ReplicaState& from = s.replicas[r];
    ReplicaState to = from;
    to.view_leader = map_id(p, from.view_leader);
    to.view_isr = map_set(p, from.view_isr);
    to.alter_isr = map_set(p, from.alter_isr);
    for (int f = 0; f < c.replication_factor; ++f) {
      to.fetch_offset[p[f]] = from.fetch_offset[f];
      to.fetch_broker_epoch[p[f]] = from.fetch_broker_epoch[f];
    }
    // An empty response slot holds zeros, not a node.
    if (from.response.kind != static_cast<uint8_t>(FetchReply::None)) to.response.leader = p[from.response.leader];
    t.replicas[p[r]] = to;
  }
  ControllerState& ctl = t.controller;
  ctl.leader = map_id(p, s.controller.leader);
  ctl.active = map_id(p, s.controller.active);
  ctl.isr = map_set(p, s.controller.isr);
  ctl.elr = map_set(p, s.controller.elr);
  ctl.last_known_elr = map_set(p, s.controller.last_known_elr);
  ctl.fenced = map_set(p, s.controller.fenced);
  ctl.directory_offline = map_set(p, s.controller.directory_offline);
  ctl.zk_queued_demotion = map_set(p, s.controller.zk_queued_demotion);
  ctl.zk_queued_reconcile = map_set(p, s.controller.zk_queued_reconcile);
  ctl.deposed = s.controller.deposed == 0 ? 0 : static_cast<uint8_t>(p[s.controller.deposed - 1] + 1);
  t.producer.inflight_leader = map_id(p, s.producer.inflight_leader);
  t.history.last_leader = map_id(p, s.history.last_leader);
  return t;
}

Action relabel(const Perm& p, const Action& a) {
  using K = ActionKind;
  Action b = a;
  if (a.kind != K::ProduceTimeout) b.node = p[a.node];
  if (a.kind == K::ShrinkIsr) return shrink_action(b.node, map_set(p, shrink_removed(a)));  // a set of followers
  switch (a.kind) {
    case K::Fetch:
    case K::EpochQuery:
    case K::FenceBroker:
    case K::RegisterBroker:
    case K::UnfenceBroker:
    case K::BrokerBounce:
    case K::DeposedWrite: b.other = map_id(p, a.other); break;
    case K::ControllerFailover:  // ZooKeeper mode: the leader its startup elects
      if (a.arg == rules::kFailoverElects) b.other = map_id(p, a.other);
      break;
    case K::Crash:
      if (a.arg == static_cast<int>(StopKind::Clean) && a.other != rules::kWithoutController)
        b.other = map_id(p, a.other);
      break;
    default: break;
  }
  return b;
}

State canonical(const PartitionModel& m, State s) {
  m.canonicalize(s);
  return s;
}

// A random permutation within each group, chosen by RapidCheck.
Perm random_perm(const Config& c) {
  Perm p = identity();
  for (const auto& group : interchangeable_groups(c)) {
    std::vector<uint8_t> image = group;
    for (size_t i = image.size() - 1; i > 0; --i) std::swap(image[i], image[*uniform<size_t>(0, i + 1)]);
    for (size_t i = 0; i < group.size(); ++i) p[group[i]] = image[i];
  }
  return p;
}

// Every permutation within the groups (their product is small for these configs).
std::vector<Perm> all_perms(const Config& c) {
  std::vector<Perm> out{identity()};
  for (const auto& group : interchangeable_groups(c)) {
    std::vector<Perm> next;
    std::vector<uint8_t> image = group;
    std::sort(image.begin(), image.end());
    do {
      for (Perm p : out) {
        for (size_t i = 0; i < group.size(); ++i) p[group[i]] = image[i];
        next.push_back(p);
      }
    } while (std::next_permutation(image.begin(), image.end()));
    out = std::move(next);
  }
  return out;
}

std::vector<std::string> canonical_successors(const PartitionModel& m, const State& s) {
  std::vector<std::string> out;
  for (const Action& a : enabled_actions(m, s)) out.push_back(bytes_of(canonical(m, m.next_state(s, a))));
  std::sort(out.begin(), out.end());
  return out;
}

const PartitionModel& model_named(const std::string& name) {
  static std::map<std::string, PartitionModel> models;
  if (auto it = models.find(name); it != models.end()) return it->second;
  for (const NamedConfig& nc : walk_configs())
    if (nc.name == name) return models.emplace(name, make_model(nc.overrides)).first->second;
  throw std::invalid_argument("no walk configuration " + name);
}

// Along a random walk, every state and a random relabelling of it agree.
void check_walk(const std::string& name) {
  const PartitionModel& m = model_named(name);
  const Config& c = m.config();
  State s = m.initial_states().at(0);
  const int steps = *uniform(0, 41);
  for (int i = 0;; ++i) {
    const Perm p = random_perm(c);
    const State moved = relabel(c, p, s);
    RC_ASSERT(same_bytes(relabel(c, identity(), s), s));
    RC_ASSERT(same_bytes(canonical(m, moved), canonical(m, s)));
    RC_ASSERT(same_bytes(canonical(m, canonical(m, s)), canonical(m, s)));
    // The engines' path (canonical_form, hashed over the used prefix where it was built)
    // gives what canonicalize writes, for every state of the orbit alike.
    {
      const State whole = canonical(m, s);
      checker::CanonicalScratch<State> scratch_s;
      checker::CanonicalScratch<State> scratch_moved;
      const size_t prefix = m.state_prefix_bytes();
      RC_ASSERT(std::memcmp(&m.canonical_form(s, scratch_s), &whole, prefix) == 0);
      RC_ASSERT(std::memcmp(&m.canonical_form(moved, scratch_moved), &whole, prefix) == 0);
      RC_ASSERT(std::all_of(reinterpret_cast<const uint8_t*>(&whole) + prefix,
                            reinterpret_cast<const uint8_t*>(&whole) + sizeof(State), [](uint8_t b) { return b == 0; }));
    }
    RC_ASSERT(verdicts(m, moved) == verdicts(m, s));
    // The rules commute with the relabelling: the relabelled action is enabled in the
    // relabelled state and leads to the relabelled successor.
    const std::vector<Action> actions = enabled_actions(m, s);
    const std::vector<Action> moved_actions = enabled_actions(m, moved);
    RC_ASSERT(actions.size() == moved_actions.size());
    for (const Action& a : actions) {
      const Action b = relabel(p, a);
      RC_ASSERT(std::find(moved_actions.begin(), moved_actions.end(), b) != moved_actions.end());
      RC_ASSERT(same_bytes(m.next_state(moved, b), relabel(c, p, m.next_state(s, a))));
    }
    if (i == steps || actions.empty()) break;
    const Action a = actions[*uniform<size_t>(0, actions.size())];
    RC_LOG() << m.action_name(a) << "\n";
    s = m.next_state(s, a);
  }
  // The canonical form is one of the states of the orbit.
  const State target = canonical(m, s);
  bool found = false;
  for (const Perm& p : all_perms(c)) found |= same_bytes(relabel(c, p, s), target);
  RC_ASSERT(found);
  // The canonical form behaves as its state does, up to symmetry.
  RC_ASSERT(canonical_successors(m, s) == canonical_successors(m, target));
}

RC_GTEST_PROP(Symmetry, Default, ()) { check_walk("default"); }
RC_GTEST_PROP(Symmetry, AsyncFetchResponses, ()) { check_walk("async-default"); }
RC_GTEST_PROP(Symmetry, AtomicFetchesWithEveryFault, ()) { check_walk("atomic-faults"); }
RC_GTEST_PROP(Symmetry, AcksOne, ()) { check_walk("acks-1"); }
RC_GTEST_PROP(Symmetry, UncleanWithDedicatedVoters, ()) { check_walk("unclean"); }
RC_GTEST_PROP(Symmetry, HwTruncation, ()) { check_walk("hw-truncation"); }
RC_GTEST_PROP(Symmetry, Kip320WithCuts, ()) { check_walk("kip-320-cuts"); }
RC_GTEST_PROP(Symmetry, Kip497Zookeeper, ()) { check_walk("kip-497-zk"); }
RC_GTEST_PROP(Symmetry, Kip966LossyCrashes, ()) { check_walk("kip-966-lossy"); }
RC_GTEST_PROP(Symmetry, FiveBrokersRf5, ()) { check_walk("rf5"); }
RC_GTEST_PROP(Symmetry, DedicatedControllers, ()) { check_walk("dedicated"); }
RC_GTEST_PROP(Symmetry, Rf2OnFourBrokers, ()) { check_walk("rf2-of-3"); }

// Fingerprints and canonical comparisons cover the bytes before the first replica slot a
// configuration never uses (checker/hooks.h, HasStatePrefix): three replica slots by
// default, one per broker with reassignment.
TEST(Symmetry, TheHashedPrefixEndsAtTheLastUsedReplicaSlot) {
  static_assert(checker::HasStatePrefix<PartitionModel> && checker::HasCanonicalForm<PartitionModel>);
  const PartitionModel plain = make_model({});
  EXPECT_EQ(plain.state_prefix_bytes(), offsetof(State, replicas) + 3 * sizeof(ReplicaState));
  EXPECT_LT(plain.state_prefix_bytes(), sizeof(State));
  const PartitionModel moving = make_model({"brokers=5", "bounds.max_reassignments=1"});
  EXPECT_EQ(moving.state_prefix_bytes(), offsetof(State, replicas) + 5 * sizeof(ReplicaState));
  EXPECT_EQ(checker::state_prefix_bytes(make_model({"brokers=7", "replication_factor=7", "min_insync_replicas=2"})),
            sizeof(State));
}

TEST(Symmetry, TheModelPermutesEveryGroupOfInterchangeableNodes) {
  for (const NamedConfig& nc : walk_configs()) {
    const PartitionModel& m = model_named(nc.name);
    for (const auto& group : interchangeable_groups(m.config())) {
      // Brokers that neither host a replica nor vote take no part in the model at all.
      const bool matters = group[0] < m.config().replication_factor || m.config().is_voter(group[0]);
      if (!matters) continue;
      const auto& classes = m.symmetry_classes();
      EXPECT_NE(std::find(classes.begin(), classes.end(), group), classes.end()) << nc.name;
    }
  }
}

TEST(Symmetry, StatesWithDifferentVerdictsNeverShareACanonicalForm) {
  size_t distinct = 0;
  for (const NamedConfig& nc : walk_configs()) {
    SCOPED_TRACE(nc.name);
    const PartitionModel& m = model_named(nc.name);
    std::map<std::string, std::pair<std::vector<bool>, State>> seen;  // canonical form -> first state
    std::mt19937 rng(42);
    for (int walk = 0; walk < 150; ++walk) {
      State s = m.initial_states().at(0);
      for (int step = 0; step < 40; ++step) {
        const std::string key = bytes_of(canonical(m, s));
        const std::vector<bool> v = verdicts(m, s);
        const auto it = seen.emplace(key, std::make_pair(v, s)).first;
        ASSERT_EQ(it->second.first, v) << m.state_to_json(s).dump() << "\nshares its canonical form with\n"
                                       << m.state_to_json(it->second.second).dump();
        const std::vector<Action> actions = enabled_actions(m, s);
        if (actions.empty()) break;
        s = m.next_state(s, actions[rng() % actions.size()]);
      }
    }
    distinct += seen.size();
  }
  EXPECT_GT(distinct, 1000u);
}

// A hand-made pair: the same story with followers 1 and 2 swapped reduces to one state.
TEST(Symmetry, SwappingTheFollowersOfAScenarioGivesTheSameCanonicalForm) {
  Scenario a({});
  Scenario b({});
  ASSERT_TRUE(a.run({produce(0, 1), fetch(1, 0), fetch_response(1), crash(2, StopKind::Kill), fence_broker(2, 0)}));
  ASSERT_TRUE(b.run({produce(0, 1), fetch(2, 0), fetch_response(2), crash(1, StopKind::Kill), fence_broker(1, 0)}));
  EXPECT_FALSE(same_bytes(a.state(), b.state()));
  EXPECT_TRUE(same_bytes(canonical(a.model(), a.state()), canonical(b.model(), b.state())));
  // Different stories do not: here follower 2 also has the record.
  Scenario c({});
  ASSERT_TRUE(c.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(2, 0), fetch_response(2),
                     crash(2, StopKind::Kill), fence_broker(2, 0)}));
  EXPECT_FALSE(same_bytes(canonical(a.model(), a.state()), canonical(c.model(), c.state())));
}

TEST(Symmetry, MovingTheLeaderRoleToAnotherVoterIsARelabelling) {
  // Node 0 leads and is the active controller; giving both roles to node 1 instead is
  // the same state up to names.
  const PartitionModel& m = model_named("default");
  const State s = m.initial_states().at(0);
  Perm p = identity();
  std::swap(p[0], p[1]);
  const State moved = relabel(m.config(), p, s);
  EXPECT_EQ(moved.controller.leader, 1);
  EXPECT_EQ(moved.controller.active, 1);
  EXPECT_EQ(moved.replicas[2].view_leader, 1);
  EXPECT_FALSE(same_bytes(moved, s));
  EXPECT_TRUE(same_bytes(canonical(m, moved), canonical(m, s)));
  // Moving only one of the references is not a relabelling, and is not merged.
  State odd = s;
  odd.replicas[1].view_leader = 2;
  EXPECT_FALSE(same_bytes(canonical(m, odd), canonical(m, s)));
}

}  // namespace
}  // namespace isr::spec
