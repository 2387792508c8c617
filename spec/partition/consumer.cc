// The consumer: reads the partition one offset at a time from a broker that believes it
// leads, never past that broker's high watermark (Partition.fetchRecords with the
// FetchHighWatermark isolation of consumers), and keeps what it read so that
// `consistent-read` can judge later states.
#include "spec/partition/rules.h"

namespace isr::spec::rules {

void consumer_actions(const Config& c, const State& s, ActionList& out) {
  if (!c.consumer) return;
  const int pos = s.consumer.position;
  if (pos >= kMaxLog) return;
  for (int b = 0; b < c.replication_factor; ++b) {
    const NodeState& node = s.nodes[b];
    if (!runs(s, b) || (node.cut & kCutFromClients) || !believes_leader(s, b)) continue;
    if (pos < s.replicas[b].hw) out.add(ActionKind::Consume, b);
  }
}

void apply_consume(const Config&, State& s, const Action& a) {
  ConsumerState& cons = s.consumer;
  cons.read[cons.position] = s.replicas[a.node].log[cons.position].record;
  ++cons.position;
}

}  // namespace isr::spec::rules
