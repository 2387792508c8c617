// The producer: one record in flight at a time (max.in.flight.requests=1), sent to a
// broker that believes it leads the partition, appended by that leader, acknowledged
// according to `acks`, retried after retriable errors within the retry bound.
//
// Broker side: ReplicaManager.appendRecords -> Partition.appendRecordsToLeader, with the
// min ISR check before the append and the AFTER_APPEND check at completion
// (complete_delayed_produce in cluster.cc).
//
// Retries and duplicates: a request whose response does not arrive within
// request.timeout.ms fails in the client's NetworkClient (disconnect), and Sender
// re-enqueues the batch (RecordAccumulator.reenqueue) while retries and
// delivery.timeout.ms allow. The broker may have appended it: a non-idempotent producer
// then writes the record twice. An idempotent one (KIP-98) sends the same producer id
// and sequence, and the leader answers the duplicate with the original offset
// (UnifiedLog.analyzeAndValidateProducerState -> ProducerStateEntry.findDuplicateBatch;
// followers rebuild the producer state from the replicated batches, so a new leader
// that has the batch also knows it). With acks=all the lost or late response is the
// ProduceTimeout action (enabled while the request waits in the purgatory, so also when
// the record gets committed afterwards); with acks=1 the broker answers at once, and a
// lost answer is the budgeted Produce variant `other == kResponseLost`.
#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

SendOutcome outcome_of(const State& s, int record) {
  return static_cast<SendOutcome>(s.producer.outcome[record - 1]);
}

bool retriable(SendOutcome o) {
  // Every error the model produces is retriable in the Java client (RetriableException):
  // NOT_ENOUGH_REPLICAS(_AFTER_APPEND), REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER.
  return o == SendOutcome::NotEnoughReplicas || o == SendOutcome::NotEnoughReplicasAfterAppend ||
         o == SendOutcome::TimedOut || o == SendOutcome::NotLeader;
}

// The record the producer may send now: a retry of the current one, or the next one.
// Writes up to two candidates; returns how many.
int sendable_records(const Config& c, const State& s, int out[2]) {
  const ProducerState& p = s.producer;
  int n = 0;
  if (p.current != 0) {
    const SendOutcome o = outcome_of(s, p.current);
    if (o == SendOutcome::InFlight) return 0;  // max.in.flight.requests.per.connection=1
    if (o == SendOutcome::Retrying) {
      // Sender re-sends the re-enqueued batch (after retry.backoff.ms) before any later
      // one: RecordAccumulator.reenqueue puts it back at the head of the partition's deque.
      if (p.retries < c.bounds.max_retries) out[n++] = p.current;
      return n;
    }
    if (retriable(o) && p.retries < c.bounds.max_retries) out[n++] = p.current;
  }
  if (p.current < c.bounds.max_records) out[n++] = p.current + 1;
  return n;
}

int find_record(const ReplicaState& r, int record) {
  for (int i = 0; i < r.leo; ++i)
    if (r.log[i].record == record) return i;
  return -1;
}

}  // namespace

// Sender.completeBatch -> canRetry (kafka-clients, producer/internals/Sender.java): a batch
// answered with a retriable error is re-enqueued (reenqueueBatch) while
// `batch.attempts() < retries` and delivery.timeout.ms has not passed; only then does
// the send's future fail with the error. An idempotent producer has retries =
// Integer.MAX_VALUE (ProducerConfig: idempotence requires retries > 0, and the default is
// MAX_VALUE), so it never shows these errors: the application sees the send acked by a
// later attempt (appended once the ISR is back) or a TimeoutException at
// delivery.timeout.ms (observed on Kafka 4.4: RF 2, min ISR 2, one replica killed). A
// non-idempotent producer has the scenario's retries, which the model's retry bound
// stands for (bounds.max_retries, over the run); when the model's bound is spent an
// idempotent producer's send stays Retrying and can only time out (the attempts Kafka
// would still make are beyond the bound).
void answer_retriable(const Config& c, State& s, SendOutcome error) {
  ProducerState& p = s.producer;
  const bool retries = c.idempotence || p.retries < c.bounds.max_retries;
  p.outcome[p.current - 1] = static_cast<uint8_t>(retries ? SendOutcome::Retrying : error);
  p.inflight_leader = kNoNode;
  p.inflight_offset = 0;
}

void produce_actions(const Config& c, const State& s, ActionList& out) {
  int records[2];
  const int n = sendable_records(c, s, records);
  for (int i = 0; i < n; ++i) {
    for (int b = 0; b < c.replica_slots(); ++b) {
      const NodeState& node = s.nodes[b];
      // A paused broker does not read its socket: the request waits (no step) until it resumes.
      if (!runs(s, b) || (node.cut & kCutFromClients)) continue;
      // The client sends to the broker its metadata names as leader; with stale
      // metadata that may be any broker that still believes it leads. With acks=0 the
      // client does not even learn of NOT_LEADER_OR_FOLLOWER, so any replica counts.
      if (c.acks != Acks::Zero && !believes_leader(s, b)) continue;
      if (s.replicas[b].leo >= kMaxLog) continue;
      out.add(ActionKind::Produce, b, 0, records[i]);
      if (c.acks == Acks::One && believes_leader(s, b) &&
          s.faults.lost_produce_responses < c.faults.max_lost_produce_responses) {
        out.add(ActionKind::Produce, b, kResponseLost, records[i]);
      }
    }
  }
  const ProducerState& p = s.producer;
  // delivery.timeout.ms: a parked request, or a batch waiting in the accumulator for its
  // next attempt (RecordAccumulator.expiredBatches -> Sender.failBatch, TimeoutException).
  if (p.current != 0 && (outcome_of(s, p.current) == SendOutcome::InFlight ||
                         outcome_of(s, p.current) == SendOutcome::Retrying))
    out.add(ActionKind::ProduceTimeout, 0, 0, p.current);
  // delivery.timeout.ms for a batch that never left the client: Sender.sendProducerData
  // expires it from the accumulator (RecordAccumulator.expiredBatches, the batches at the
  // head of a partition's deque past delivery.timeout.ms; Sender.failBatch with a
  // TimeoutException "ms has passed since batch creation") whether or not any broker is
  // reachable, e.g. while the only leader is cut from clients. The candidates are the
  // records the producer could send now (not a Retrying one: the timeout above covers it).
  if (c.expire_unsent_batches && (p.current == 0 || outcome_of(s, p.current) != SendOutcome::Retrying)) {
    for (int i = 0; i < n; ++i) out.add(ActionKind::ProduceTimeout, 0, kUnsent, records[i]);
  }
}

void apply_produce(const Config& c, State& s, const Action& a) {
  ProducerState& p = s.producer;
  const int record = a.arg;
  if (record == p.current) ++p.retries;
  p.current = static_cast<uint8_t>(record);
  uint8_t& outcome = p.outcome[record - 1];
  const int b = a.node;
  ReplicaState& leader = s.replicas[b];

  if (c.acks == Acks::Zero) {
    // acks=0: the send completes as soon as it is written to the socket. A broker that
    // is not the leader drops it (the client never hears of it).
    outcome = static_cast<uint8_t>(SendOutcome::Acked);
    if (believes_leader(s, b)) append(c, leader, LogEntry{leader.view_leader_epoch, static_cast<uint8_t>(record)});
    maybe_increment_hw(c, s, b);
    return;
  }
  // Partition.appendRecordsToLeader: with acks=all, reject before appending when the ISR
  // is below min.insync.replicas (NotEnoughReplicasException).
  if (c.acks == Acks::All && size(leader.view_isr) < c.min_insync_replicas) {
    answer_retriable(c, s, SendOutcome::NotEnoughReplicas);
    return;
  }
  int offset = c.idempotence ? find_record(leader, record) : -1;
  // Idempotent producer (KIP-98): a batch whose (producer id, sequence) the leader already
  // holds is answered as a duplicate with its original offset, not appended again.
  if (offset < 0) {
    offset = leader.leo;
    append(c, leader, LogEntry{leader.view_leader_epoch, static_cast<uint8_t>(record)});
  }
  if (c.acks == Acks::One) {
    if (a.other == kResponseLost) {
      // Appended, but the response never reaches the client: after request.timeout.ms
      // the client fails the request (outcome unknown to it) and may retry. With one
      // request in flight it sends nothing else meanwhile, so the timeout is taken here.
      ++s.faults.lost_produce_responses;
      outcome = static_cast<uint8_t>(SendOutcome::TimedOut);
    } else {
      outcome = static_cast<uint8_t>(SendOutcome::Acked);
    }
    maybe_increment_hw(c, s, b);
    return;
  }
  // acks=all: parked in the produce purgatory until the HW passes the batch.
  outcome = static_cast<uint8_t>(SendOutcome::InFlight);
  p.inflight_leader = static_cast<uint8_t>(b);
  p.inflight_offset = static_cast<uint8_t>(offset + 1);
  maybe_increment_hw(c, s, b);
  complete_delayed_produce(c, s, b);
}

void apply_produce_timeout(const Config&, State& s, const Action& a) {
  // delivery.timeout.ms / request.timeout.ms expired: the client reports a timeout. The
  // record may still be committed later: the outcome is unknown to the application.
  ProducerState& p = s.producer;
  if (a.other == kUnsent) {
    // The application's send of this record (a new one, or its send again after an error,
    // counted as a retry as Produce counts it) expired before any broker saw it.
    if (a.arg == p.current) ++p.retries;
    p.current = static_cast<uint8_t>(a.arg);
  }
  p.outcome[a.arg - 1] = static_cast<uint8_t>(SendOutcome::TimedOut);
  p.inflight_leader = kNoNode;
  p.inflight_offset = 0;
}

}  // namespace isr::spec::rules
