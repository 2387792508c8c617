// The property catalog: stable names (MODEL.md section 4), descriptions, and when each
// property applies. The order here is the order properties are checked and reported.
#include "spec/partition/properties/catalog.h"

#include "spec/partition/properties/predicates.h"

namespace isr::properties {
namespace {

bool always(const spec::Config&) { return true; }
bool with_consumer(const spec::Config& c) { return c.consumer; }
bool with_elr(const spec::Config& c) { return c.eligible_leader_replicas; }

}  // namespace

const std::vector<PropertyInfo>& catalog() {
  static const std::vector<PropertyInfo> all = {
      {"no-acked-loss", "an acknowledged write (any acks) stays in the log of every later leader", always,
       no_acked_loss, explain_no_acked_loss, observed_no_acked_loss,
       ClientEvidence::AckedRecordMissing},
      {"consistent-read", "a record a consumer has read never disappears from, or changes at, its offset",
       with_consumer, consistent_read, explain_consistent_read, observed_consistent_read,
       ClientEvidence::ReadRecordChanged},
      {"log-matching",
       "two running replicas in the current leader epoch (registered, log reconciled with the leader) hold "
       "identical entries below the smaller of their high watermarks",
       always, log_matching, explain_log_matching, nullptr, ClientEvidence::FinalState},
      {"strong-isr", "everything below the leader's high watermark is on every ISR member", always, strong_isr,
       explain_strong_isr, nullptr, ClientEvidence::FinalState},
      {"leader-completeness", "every leader candidate (ISR, and ELR where enabled) holds every committed record",
       always, leader_completeness, explain_leader_completeness, nullptr, ClientEvidence::FinalState},
      {"single-leader-per-epoch", "no two brokers act as leader of the partition in the same leader epoch",
       always, single_leader_per_epoch, explain_single_leader_per_epoch, nullptr, ClientEvidence::FinalState},
      {"no-duplicates",
       "no record appears twice in a log (a retried send of a non-idempotent producer can; the idempotent "
       "producer's (producer id, sequence) prevents it)",
       always, no_duplicates, explain_no_duplicates, nullptr, ClientEvidence::FinalState},
      {"hw-monotonic", "a leader's high watermark never goes backwards within its leader epoch", always,
       hw_monotonic, explain_hw_monotonic, nullptr, ClientEvidence::FinalState},
      {"replication-quorum-superset",
       "the leader's maximal ISR contains every ISR (and, while the HW can move, ELR) member the controller knows",
       always, replication_quorum_superset, explain_replication_quorum_superset, nullptr,
       ClientEvidence::FinalState},
      {"min-isr-recovery-quorum", "when ISR and ELR are both empty, LastKnownELR still names replicas to recover from",
       with_elr, min_isr_recovery_quorum, explain_min_isr_recovery_quorum, nullptr, ClientEvidence::FinalState},
      {"no-committed-loss-globally", "every acknowledged write is still on at least one replica", always,
       no_committed_loss_globally, explain_no_committed_loss_globally, observed_no_committed_loss_globally,
       ClientEvidence::AckedRecordMissing},
  };
  return all;
}

const PropertyInfo* find(std::string_view name) {
  for (const PropertyInfo& p : catalog())
    if (p.name == name) return &p;
  return nullptr;
}

std::string explain(std::string_view property, const nlohmann::json& last_state) {
  const PropertyInfo* p = find(property);
  return p == nullptr || p->explain == nullptr ? std::string() : p->explain(last_state);
}

std::string observed_as(std::string_view property, const ClientFacts& facts) {
  const PropertyInfo* p = find(property);
  std::string words = p == nullptr || p->observed_as == nullptr ? std::string() : p->observed_as(facts);
  if (!words.empty()) return words;
  return "the property is about state that clients see only indirectly; a harness checks the final "
         "observable state (leader, ISR, ELR, logs) listed in `final`";
}

ClientEvidence client_evidence(std::string_view property) {
  const PropertyInfo* p = find(property);
  return p == nullptr ? ClientEvidence::FinalState : p->evidence;
}

}  // namespace isr::properties
