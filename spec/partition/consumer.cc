// The consumer: reads the partition one offset at a time from a broker that believes it
// leads (or, with consumer_fetch_from=any-replica, KIP-392, from a follower), never past
// that broker's high watermark (Partition.fetchRecords with the FetchHighWatermark
// isolation of consumers), and keeps what it read so that `consistent-read` can judge
// later states.
#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

// KIP-392 (Kafka 2.4; consumer_fetch_from=any-replica): with client.rack set and a
// replica.selector.class on the brokers, the leader answers a consumer's fetch with a
// preferred read replica (ReplicaManager.findPreferredReadReplica: a follower in the
// leader's ISR whose log reaches the fetch offset) and the consumer fetches from it until
// its metadata refresh or an error. The follower serves up to its own high watermark
// (ReplicaManager.readFromLog with FetchIsolation.HIGH_WATERMARK on the local log;
// Partition.fetchRecords with fetchOnlyFromLeader false). The consumer keeps the replica
// it was sent to after that replica leaves the ISR, so the model lets it read from any
// follower with a view of the partition: a superset of Kafka's choices, never fewer.
bool serves_consumer_as_follower(const Config& c, const State& s, int b) {
  if (c.consumer_fetch_from != ConsumerFetchFrom::AnyReplica) return false;
  const ReplicaState& r = s.replicas[b];
  return r.view_valid && r.view_leader != kNoNode && r.view_leader != b &&
         (!c.reassignment() || contains(r.view_replicas, b));
}

}  // namespace

void consumer_actions(const Config& c, const State& s, ActionList& out) {
  if (!c.consumer) return;
  const int pos = s.consumer.position;
  if (pos >= kMaxLog) return;
  for (int b = 0; b < c.replica_slots(); ++b) {
    const NodeState& node = s.nodes[b];
    if (!runs(s, b) || (node.cut & kCutFromClients)) continue;
    if (!believes_leader(s, b) && !serves_consumer_as_follower(c, s, b)) continue;
    if (pos < s.replicas[b].hw) out.add(ActionKind::Consume, b);
  }
}

void apply_consume(const Config&, State& s, const Action& a) {
  ConsumerState& cons = s.consumer;
  cons.read[cons.position] = s.replicas[a.node].log[cons.position].record;
  ++cons.position;
}

}  // namespace isr::spec::rules
