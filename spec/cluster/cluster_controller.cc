// The partition controller inside the KRaft quorum (KIP-631): decisions, their metadata
// records, and what happens when the quorum commits them.
//
// Kafka's QuorumController runs on the KRaft leader. A write (broker registration,
// heartbeat-driven fencing and unfencing, AlterPartition, elections) is computed by
// ReplicationControlManager / PartitionChangeBuilder against the controller's
// in-memory image, which includes its own records not yet committed (it replays each
// record as it appends it); the records go to the metadata log, and the request's
// response is completed only when the KRaft high watermark passes them (the deferred
// event queue, completeUpTo). Brokers replay only committed records (MetadataLoader),
// so nothing a controller decides is seen before the quorum commits it. A leader that
// loses leadership reverts its image to the last committed offset (renounce,
// SnapshotRegistry.revertToSnapshot), and its uncommitted records are truncated by the
// next leader (KIP-595 divergence): they never take effect.
//
// The decisions themselves are the partition model's rules, run on a scratch copy whose
// controller state is the deciding leader's image (no Kafka rule is duplicated here).
#include <cstring>

#include "spec/cluster/cluster_rules.h"
#include "spec/kraft/kraft_state.h"
#include "spec/partition/rules.h"

namespace isr::spec::cluster::rules {
namespace {

using K = ActionKind;

bool same_image(const ControllerState& a, const ControllerState& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Whether `voter`'s log holds a record written in epoch `min_epoch` or later that still
// owes `answer` to `node`: a controller of that epoch handled the request and waits for
// the commit to respond. The entry's epoch names the controller that wrote it; the
// voter holding it may be a follower (it fetched the record) or crashed.
bool answer_pending(const ClusterState& s, int voter, Answer answer, int node, int min_epoch) {
  const kraft::Voter& x = s.quorum.voters[voter];
  for (int o = 0; o < x.leo; ++o) {
    const int id = s.payload[voter][o];
    if (id == 0 || x.log[o].epoch < min_epoch) continue;
    const MetadataRecord& r = s.records[id - 1];
    if (r.answer == static_cast<uint8_t>(answer) && r.answer_node == node) return true;
  }
  return false;
}

// The AlterPartition response (what spec/partition/isr.cc applies at once in the partition
// model): the leader's pending request is done and it adopts the committed ISR and
// partition epoch, which may advance its HW and complete delayed produce requests.
void answer_alter_partition(const Config& c, State& p, int leader, const ControllerState& image) {
  ReplicaState& r = p.replicas[leader];
  if (!r.alter_pending) return;
  r.alter_pending = 0;
  r.alter_isr = 0;
  r.alter_broker_epoch = 0;
  // Partition.handleAlterPartitionUpdate: a response in another leader epoch (an ISR
  // shrink bumped it before KAFKA-15021) is ignored; the metadata update brings it.
  if (image.leader_epoch != r.view_leader_epoch) return;
  r.view_isr = image.isr;
  r.view_partition_epoch = image.partition_epoch;
  spec::rules::maybe_increment_hw(c, p, leader);
  spec::rules::complete_delayed_produce(c, p, leader);
}

// The BrokerRegistrationResponse: the incarnation learns its broker epoch.
void answer_registration(State& p, int broker, const ControllerState& image) {
  NodeState& n = p.nodes[broker];
  if (n.alive && n.broker_epoch == 0) n.broker_epoch = image.registered_epoch[broker];
  // The controller has its new log directory (KIP-858): nothing left to tell it.
  if (contains(image.directory_offline, broker)) p.replicas[broker].new_directory = 0;
}

void commit(const ClusterModel& m, ClusterState& s, MetadataRecord& r) {
  const ControllerState& image = r.image;
  s.committed = image;
  s.history.committed_leader[image.partition_epoch] = image.leader;
  s.history.committed_leader_epoch[image.partition_epoch] = static_cast<uint8_t>(image.leader_epoch + 1);
  if (!m.config().apply_after_commit) return;  // answered at append already
  switch (static_cast<Answer>(r.answer)) {
    case Answer::Registration: answer_registration(s.partition, r.answer_node, image); break;
    case Answer::AlterPartition: answer_alter_partition(m.config().partition, s.partition, r.answer_node, image); break;
    case Answer::None: break;
  }
  r.answer = 0;
  r.answer_node = 0;
}

// A leader has one AlterPartition in flight, sent to the controller it believes active
// (AlterPartitionManager); after a failover it is retried at the new controller. So
// controller `voter` may handle leader `leader`'s request unless a controller of its
// epoch or a later one already has (its record awaiting commit). The test is on the
// epoch of the record's entry, not of the voter holding it: a voter that moved to the
// new epoch but still holds (or crashed holding) the deposed controller's record has
// not handled the retry, and must not keep the new controller from handling it.
bool handled_elsewhere(const ClusterModel& m, const ClusterState& s, int voter, int leader) {
  const int epoch = s.quorum.voters[voter].epoch;
  for (int u = 0; u < m.config().quorum.voters; ++u)
    if (answer_pending(s, u, Answer::AlterPartition, leader, epoch)) return true;
  return false;
}

}  // namespace

void renumber_records(int voters, ClusterState& s) {
  uint8_t renumber[kMaxMetadataRecords] = {};
  int next = 0;
  for (int v = 0; v < voters; ++v) {
    for (int o = 0; o < s.quorum.voters[v].leo; ++o) {
      const int id = s.payload[v][o];
      if (id != 0 && renumber[id - 1] == 0) renumber[id - 1] = static_cast<uint8_t>(++next);
    }
  }
  // Already in order of first appearance, with every unreferenced slot free (a step that
  // appends, drops or reorders no record, the common case): nothing to move. This path
  // is most of the time of a settle, and settle runs once per generated state.
  bool in_order = true;
  for (int i = 0; i < kMaxMetadataRecords && in_order; ++i)
    in_order = i < next ? renumber[i] == i + 1 : s.records[i].decision == 0;
  if (in_order) return;
  MetadataRecord old[kMaxMetadataRecords];
  std::memcpy(static_cast<void*>(old), s.records, sizeof old);
  std::memset(static_cast<void*>(s.records), 0, sizeof s.records);
  for (int i = 0; i < kMaxMetadataRecords; ++i)
    if (renumber[i] != 0) s.records[renumber[i] - 1] = old[i];
  for (int v = 0; v < voters; ++v)
    for (int o = 0; o < s.quorum.voters[v].leo; ++o)
      if (s.payload[v][o] != 0) s.payload[v][o] = renumber[s.payload[v][o] - 1];
}

State decision_scratch(const ClusterModel& m, const ClusterState& s, int voter) {
  State t = s.partition;
  t.controller = m.image_of(s, voter);
  t.controller.active = static_cast<uint8_t>(m.config().voter_node(voter));
  const kraft::Voter& x = s.quorum.voters[voter];
  for (int o = 0; o < x.leo; ++o) {
    const int id = s.payload[voter][o];
    if (id == 0) continue;
    const MetadataRecord& r = s.records[id - 1];
    if (r.answer == static_cast<uint8_t>(Answer::Registration))
      t.nodes[r.answer_node].broker_epoch = r.image.registered_epoch[r.answer_node];
  }
  return t;
}

void decision_actions(const ClusterModel& m, const ClusterState& s, ClusterAction* out, int& count) {
  const ClusterConfig& c = m.config();
  std::array<Action, kMaxEnabledActions> buffer;
  for (int v = 0; v < c.quorum.voters; ++v) {
    if (!m.active_controller(s, v)) continue;
    const State scratch = decision_scratch(m, s, v);
    const int n = m.partition_model().enabled_actions(scratch, buffer.data());
    const bool room = s.quorum.faults.appends < c.max_records && s.quorum.voters[v].leo < kraft::kMaxLog;
    for (int i = 0; i < n; ++i) {
      const Action& a = buffer[i];
      if (!is_controller_decision(a.kind)) continue;
      if (a.kind == K::AlterPartition) {
        if (handled_elsewhere(m, s, v, a.node)) continue;
        const State after = m.partition_model().next_state(scratch, a);
        if (same_image(after.controller, scratch.controller)) {
          // No record (rejected, or already the state): QuorumController answers a
          // write without records once everything it appended before is committed.
          if (c.apply_after_commit && m.has_uncommitted_records(s, v)) continue;
        } else if (!room) {
          continue;
        }
      } else if (!room) {
        continue;
      }
      out[count++] = ClusterAction{static_cast<uint8_t>(Layer::Decision), static_cast<uint8_t>(v), a, {}};
    }
  }
}

void apply_decision(const ClusterModel& m, ClusterState& s, const ClusterAction& a) {
  const ClusterConfig& c = m.config();
  const int v = a.controller;
  const State scratch = decision_scratch(m, s, v);
  State after = m.partition_model().next_state(scratch, a.partition);
  after.controller.active = s.partition.controller.active;
  ControllerState image = after.controller;
  const bool writes = !same_image(after.controller, m.image_of(s, v));
  if (a.partition.kind == K::AlterPartition) {
    // This attempt supersedes the leader's earlier ones at deposed controllers.
    for (MetadataRecord& r : s.records)
      if (r.answer == static_cast<uint8_t>(Answer::AlterPartition) && r.answer_node == a.partition.node)
        r.answer = r.answer_node = 0;
  }
  if (!writes) {
    // Answered at once: the leader's request is done (and any produce it completes).
    const int l = a.partition.node;
    s.partition.replicas[l] = after.replicas[l];
    s.partition.producer = after.producer;
    return;
  }
  // The record: a free slot of the table (settle() renumbers), appended to the leader's
  // log by the KRaft model's own append (KafkaRaftClient.scheduleAppend).
  int id = 0;
  while (s.records[id].decision != 0) ++id;
  MetadataRecord& r = s.records[id];
  r.image = image;
  r.decision = static_cast<uint8_t>(static_cast<int>(a.partition.kind) + 1);
  if (a.partition.kind == K::RegisterBroker) {
    r.answer = static_cast<uint8_t>(Answer::Registration);
    r.answer_node = a.partition.node;
  } else if (a.partition.kind == K::AlterPartition) {
    r.answer = static_cast<uint8_t>(Answer::AlterPartition);
    r.answer_node = a.partition.node;
  }
  const int offset = s.quorum.voters[v].leo;
  s.quorum = m.quorum_model().next_state(
      s.quorum, kraft::KraftAction{kraft::KraftActionKind::Append, static_cast<uint8_t>(v), 0, 0});
  s.payload[v][offset] = static_cast<uint8_t>(id + 1);
  // Preferred elections count against their own bound whoever commits them.
  s.partition.faults.leader_moves = after.faults.leader_moves;
  if (!c.apply_after_commit) {
    // The hazard: brokers and the requester see the decision as soon as it is appended.
    HistoryState history = s.partition.history;
    s.partition = after;
    s.partition.history = history;
    r.answer = 0;
    r.answer_node = 0;
  }
}

void settle(const ClusterModel& m, ClusterState& s) {
  const ClusterConfig& c = m.config();
  const int voters = c.quorum.voters;
  // Entries past a log's end carry nothing.
  for (int v = 0; v < voters; ++v)
    for (int o = s.quorum.voters[v].leo; o < kraft::kMaxLog; ++o) s.payload[v][o] = 0;
  // Commits: a leader's HW passing the absorbed prefix (KafkaRaftClient fires
  // handleCommit for batches below the HW, in order).
  for (int v = 0; v < voters; ++v) {
    const kraft::Voter& x = s.quorum.voters[v];
    if (!x.alive || x.role != static_cast<uint8_t>(kraft::Role::Leader) || x.hw <= s.history.committed_offset)
      continue;
    for (int o = s.history.committed_offset; o < x.hw; ++o) {
      const int id = s.payload[v][o];
      if (id != 0) commit(m, s, s.records[id - 1]);
    }
    s.history.committed_offset = x.hw;
    // Without apply_after_commit brokers follow the leader's log end, not its HW.
    if (!c.apply_after_commit) s.partition.controller = m.image_of(s, v);
  }
  if (c.apply_after_commit) s.partition.controller = s.committed;
  // Answers nobody waits for: the broker restarted, or its request was superseded by
  // a metadata update (the partition model clears alter_pending then).
  for (MetadataRecord& r : s.records) {
    if (r.answer == static_cast<uint8_t>(Answer::Registration)) {
      const NodeState& n = s.partition.nodes[r.answer_node];
      if (!n.alive || n.broker_epoch != 0) r.answer = r.answer_node = 0;
    } else if (r.answer == static_cast<uint8_t>(Answer::AlterPartition)) {
      if (!s.partition.replicas[r.answer_node].alter_pending) r.answer = r.answer_node = 0;
    }
  }
  renumber_records(voters, s);
  spec::rules::update_history(s.partition);
}

}  // namespace isr::spec::cluster::rules
