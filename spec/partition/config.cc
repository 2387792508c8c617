// Parsing, resolution and validation of the model configuration (see config.h).
//
// A configuration is built in three layers, each overriding the one before: the
// defaults of config.h, the JSON document given with --config, then each --set
// key=value. The merged document is parsed strictly (unknown keys and wrong types are
// errors), then derived defaults are resolved (generation fixes, ELR, voters, the
// property list) and only then is the whole validated, because most limits depend on
// other fields (replication factor vs brokers, sub-budgets vs max_crashes, ...).
#include "spec/partition/config.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "io/json_fields.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/state.h"

namespace isr::spec {
namespace {

using nlohmann::json;

// Beyond this a run could restart a broker more often than its epoch can count; such
// budgets are far past what exhaustive search can reach anyway.
constexpr int kMaxFaultBudget = kMaxEpoch - 1;
constexpr int kMaxRetries = 10;
constexpr int kMaxReassignments = 3;  // each adds target sets to every state: a small budget is the point

struct ProtocolInfo {
  Protocol protocol;
  std::string_view name;
  std::string_view description;
};

// MODEL.md section 3.
const ProtocolInfo kProtocols[] = {
    {Protocol::HwTruncation, "hw-truncation",
     "pre-0.11: a restarting or demoted follower truncates to its HW checkpoint "
     "[controller.mode: zookeeper]"},
    {Protocol::Kip101, "kip-101",
     "0.11: records carry leader epochs; truncation via OffsetsForLeaderEpoch "
     "[controller.mode: zookeeper]"},
    {Protocol::Kip279, "kip-279",
     "2.0: OffsetsForLeaderEpoch answers the largest epoch <= requested, iterated "
     "[controller.mode: zookeeper]"},
    {Protocol::Kip320, "kip-320",
     "2.1: fetches carry the leader epoch and stale ones are fenced; ISR join needs "
     "LEO >= the leader's epoch start offset "
     "[controller.mode: zookeeper]"},
    {Protocol::Kip497, "kip-497",
     "2.7: ISR changes via AlterPartition; HW and acks=all use the maximal ISR; "
     "removals apply once committed [controller.mode: zookeeper (default) or kraft]"},
    {Protocol::Kip903, "kip-903",
     "3.5: AlterPartition carries broker epochs; stale replicas are rejected "
     "[controller.mode: kraft (default) or zookeeper]"},
    {Protocol::Kip966, "kip-966",
     "4.0: eligible leader replicas (ELR); HW frozen while ISR < min ISR; an unclean "
     "restart leaves the ELR; recovery from LastKnownELR [controller.mode: kraft]"},
};

// The fixes in the order `list fixes` prints them; the version column is the Kafka
// release that first shipped each (docs/model.md, "Kafka's replication fixes", has the
// survey with sources). Rows are only ever added, at the end, so that key names and the
// first ten rows stay as they were.
const std::vector<FixInfo> kFixes = {
    {"leader_epoch_truncation",
     "KIP-101: truncate via OffsetsForLeaderEpoch instead of to the HW checkpoint",
     Protocol::Kip101, &Fixes::leader_epoch_truncation, "0.11.0"},
    {"largest_epoch_lookup",
     "KIP-279 (KAFKA-6361): OffsetsForLeaderEpoch answers the largest epoch <= requested, iterated",
     Protocol::Kip279, &Fixes::largest_epoch_lookup, "2.0.0"},
    {"fetch_epoch_fencing",
     "KIP-320 (KAFKA-7395): fetches carry the leader epoch; stale ones are fenced",
     Protocol::Kip320, &Fixes::fetch_epoch_fencing, "2.1.0"},
    // Not a safety fix: the change that made the re-elected leader's hazard possible
    // (docs/findings.md). Partition.makeLeader resets the followers' state
    // (Replica.resetReplicaState) only when isNewLeader; off is 0.8.x, which reset it on
    // every makeLeader. It replaced `hw_current_epoch_followers` (parse_fixes says so).
    {"reelected_leader_keeps_followers",
     "KAFKA-2721: Partition.makeLeader forgets the followers' offsets only when the broker was not leader "
     "in its own view (isNewLeader); a leader re-elected at a newer epoch keeps them (off: 0.8.x, reset at every new epoch)",
     Protocol::HwTruncation, &Fixes::reelected_leader_keeps_followers, "0.9.0.0"},
    {"isr_join_epoch_start",
     "KAFKA-7128: joining the ISR needs LEO >= the leader's epoch start offset",
     Protocol::Kip320, &Fixes::isr_join_epoch_start, "2.1.0"},
    {"maximal_isr",
     "KIP-497: HW and acks=all use ISR + pending adds; removals apply once committed",
     Protocol::Kip497, &Fixes::maximal_isr, "2.7.0"},
    {"alter_partition_broker_epochs",
     "KIP-903 (KAFKA-14139): AlterPartition carries broker epochs; stale replicas are rejected",
     Protocol::Kip903, &Fixes::alter_partition_broker_epochs, "3.5.0"},
    {"hw_frozen_below_min_isr",
     "KAFKA-15583 (KIP-966 part 1): the HW does not advance while ISR < min ISR, ELR or not",
     Protocol::Kip966, &Fixes::hw_frozen_below_min_isr, "3.7.0"},
    {"unclean_restart_leaves_elr",
     "KAFKA-15586 (KIP-966): a registration after an unclean shutdown removes the broker from ISR and ELR",
     Protocol::Kip966, &Fixes::unclean_restart_leaves_elr, "3.8.0 (ELR usable from 4.0.0)"},
    {"last_known_elr",
     "KIP-966 (KAFKA-15584): LastKnownELR keeps the last leader; elected, uncleanly, when ISR and ELR are empty",
     Protocol::Kip966, &Fixes::last_known_elr, "3.7.0 (ELR usable from 4.0.0)"},
    {"isr_join_unfenced_only",
     "KIP-841: AlterPartition may not add a fenced or shutting-down replica to the ISR",
     Protocol::Kip903, &Fixes::isr_join_unfenced_only, "3.3.0"},
    {"isr_shrink_keeps_leader_epoch",
     "KAFKA-15021: the controller no longer bumps the leader epoch when the ISR shrinks",
     Protocol::Kip966, &Fixes::isr_shrink_keeps_leader_epoch, "3.6.0 (MV 3.6-IV0)"},
    {"last_known_leader_unfenced",
     "KAFKA-19522: the last known leader is elected only while it is unfenced",
     Protocol::Kip966, &Fixes::last_known_leader_unfenced, "4.1.0"},
    // ZooKeeper-mode controller fixes: they change nothing under controller.mode=kraft.
    {"controller_epoch_zk_version",
     "KAFKA-6082 (2.1, ZooKeeper mode): controller writes check /controller_epoch's zkVersion, "
     "so a deposed controller's queued write fails",
     Protocol::Kip320, &Fixes::controller_epoch_zk_version, "2.1.0"},
    {"bounced_broker_epochs",
     "KIP-380 / KAFKA-7235 (2.2, ZooKeeper mode): broker epochs (czxid); the controller handles a "
     "re-registered broker as failed and restarted",
     Protocol::Kip497, &Fixes::bounced_broker_epochs, "2.2.0"},
    // KRaft only (no effect under controller.mode=zookeeper).
    {"directory_assignment",
     "KIP-858 (JBOD in KRaft): a replica is an acceptable leader only while its assigned log directory "
     "is online; a broker back on a new disk is not, until its AssignReplicasToDirs commits",
     Protocol::Kip966, &Fixes::directory_assignment, "3.7.0 (MV 3.7-IV2)"},
    // The follower's truncation decision between 0.11 and 2.1 (docs/fidelity.md F13,
    // docs/model.md "Kafka's replication fixes"). Partition.makeFollower returns whether
    // ReplicaManager.makeFollowers restarts the fetcher, which then truncates (to the HW
    // before KIP-101, by OffsetsForLeaderEpoch after) and drops what it had in flight.
    {"reconcile_on_epoch_gap",
     "KAFKA-7164: a follower whose leader is unchanged also truncates when it missed a leader epoch "
     "(Partition.makeFollower: the new epoch is more than one above its own); off: only on a leader change",
     Protocol::Kip320, &Fixes::reconcile_on_epoch_gap, "2.0.1"},
    {"reconcile_on_every_epoch",
     "KIP-320 (KAFKA-7395): a follower truncates on every new leader epoch, its leader changed or not",
     Protocol::Kip320, &Fixes::reconcile_on_every_epoch, "2.1.0"},
    {"leader_epoch_cached_on_election",
     "KAFKA-7415: Partition.makeLeader caches the new epoch at the LEO before any append, so "
     "OffsetsForLeaderEpoch answers a follower with a later epoch than the leader's log; off: UNDEFINED, "
     "and the follower truncates to its HW",
     Protocol::Kip320, &Fixes::leader_epoch_cached_on_election, "2.0.1"},
};

// ---- small helpers for messages and typed readers (shared: io/json_fields.h) ------

using namespace io::json_fields;  // join, shown, check_keys, read_int, apply_override, ...

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> q;
  for (const auto& item : items) q.push_back("\"" + item + "\"");
  return join(q);
}

// A value from a closed set of names: `names[i]` maps to `values[i]`.
template <class T>
T read_choice(const json& v, const std::string& field,
              const std::vector<std::pair<std::string, T>>& choices) {
  std::vector<std::string> names;
  for (const auto& [name, value] : choices) names.push_back(name);
  if (v.is_string()) {
    for (const auto& [name, value] : choices) {
      if (v.get<std::string>() == name) return value;
    }
  }
  throw ConfigError(field, "expected one of " + quoted_list(names) + ", got " + shown(v));
}

Acks read_acks(const json& v) {
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() == -1) {
    return Acks::All;
  }
  if (v.is_number_integer() && v.is_number_unsigned()) {
    if (v.get<uint64_t>() == 0) return Acks::Zero;
    if (v.get<uint64_t>() == 1) return Acks::One;
  }
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "0") return Acks::Zero;
    if (s == "1") return Acks::One;
    if (s == "all" || s == "-1") return Acks::All;
  }
  throw ConfigError("acks", "expected \"0\", \"1\" or \"all\" (or 0, 1, -1 for all), got " +
                                shown(v));
}

Protocol read_protocol(const json& v) {
  std::vector<std::pair<std::string, Protocol>> choices;
  for (const auto& p : kProtocols) choices.emplace_back(std::string(p.name), p.protocol);
  return read_choice(v, "protocol", choices);
}

// What the document said explicitly, where a missing key means "derive it".
struct Explicit {
  bool eligible_leader_replicas = false;
  bool idempotence = false;
  bool voters = false;
  bool controller_mode = false;
  std::vector<int FaultBudget::*> faults;  // fault budgets given explicitly
  bool properties = false;
  std::vector<std::pair<bool Fixes::*, bool>> fixes;
};

// ---- the document, key by key ----------------------------------------------------------

void parse_fixes(const json& v, Explicit& given) {
  // The toggle this model had before it followed Partition.makeLeader's isNewLeader rule
  // (issue 24): its default was the rule of 0.8.x only and its false no release's, so a
  // configuration that names it is refused with the replacement.
  if (v.is_object() && v.contains("hw_current_epoch_followers")) {
    throw ConfigError("fixes.hw_current_epoch_followers",
                      "removed; use fixes.reelected_leader_keeps_followers: true (Kafka 0.9.0.0 and later, "
                      "the default) or false (0.8.x: every new leader epoch resets the followers' offsets)");
  }
  std::vector<std::string> allowed;
  for (const auto& f : kFixes) allowed.emplace_back(f.name);
  check_keys(v, "fixes", allowed);
  for (const auto& f : kFixes) {
    const auto it = v.find(std::string(f.name));
    if (it == v.end()) continue;
    given.fixes.emplace_back(f.toggle, read_bool(*it, dotted("fixes", f.name)));
  }
}

void parse_controller(const json& v, ControllerConfig& c, Explicit& given) {
  check_keys(v, "controller", {"placement", "voters", "mode", "quorum"});
  if (v.contains("quorum")) {
    c.quorum = read_choice<QuorumKind>(v["quorum"], "controller.quorum",
                                       {{"static", QuorumKind::Static}, {"dynamic", QuorumKind::Dynamic}});
  }
  if (v.contains("mode")) {
    c.mode = read_choice<ControllerMode>(v["mode"], "controller.mode",
                                         {{"zookeeper", ControllerMode::Zookeeper}, {"kraft", ControllerMode::Kraft}});
    given.controller_mode = true;
  }
  if (v.contains("placement")) {
    c.placement = read_choice<Placement>(
        v["placement"], "controller.placement",
        {{"combined", Placement::Combined}, {"dedicated", Placement::Dedicated}});
  }
  if (v.contains("voters")) {
    c.voters = read_int(v["voters"], "controller.voters");
    given.voters = true;
  }
}

void parse_faults(const json& v, FaultBudget& f, Explicit& given) {
  const std::vector<std::pair<std::string, int FaultBudget::*>> fields = {
      {"max_crashes", &FaultBudget::max_crashes},
      {"max_lossy_crashes", &FaultBudget::max_lossy_crashes},
      {"max_disk_losses", &FaultBudget::max_disk_losses},
      {"max_clean_shutdowns", &FaultBudget::max_clean_shutdowns},
      {"max_network_cuts", &FaultBudget::max_network_cuts},
      {"max_lost_produce_responses", &FaultBudget::max_lost_produce_responses},
      {"max_pauses", &FaultBudget::max_pauses},
  };
  std::vector<std::string> allowed;
  for (const auto& [name, member] : fields) allowed.push_back(name);
  check_keys(v, "faults", allowed);
  for (const auto& [name, member] : fields) {
    if (v.contains(name)) {
      f.*member = read_int(v[name], dotted("faults", name));
      given.faults.push_back(member);
    }
  }
}

void parse_bounds(const json& v, Bounds& b) {
  const std::vector<std::pair<std::string, int Bounds::*>> fields = {
      {"max_records", &Bounds::max_records},
      {"max_leader_epoch", &Bounds::max_leader_epoch},
      {"max_partition_epoch", &Bounds::max_partition_epoch},
      {"max_retries", &Bounds::max_retries},
      {"max_leader_moves", &Bounds::max_leader_moves},
      {"max_reassignments", &Bounds::max_reassignments},
  };
  std::vector<std::string> allowed;
  for (const auto& [name, member] : fields) allowed.push_back(name);
  check_keys(v, "bounds", allowed);
  for (const auto& [name, member] : fields) {
    if (v.contains(name)) b.*member = read_int(v[name], dotted("bounds", name));
  }
}

void parse_document(const json& doc, Config& c, Explicit& given) {
  check_keys(doc, "",
             {"brokers", "replication_factor", "min_insync_replicas", "acks",
              "unclean_leader_election", "admin_unclean_election", "eligible_leader_replicas", "idempotence",
              "expire_unsent_batches", "consumer", "async_fetch_responses", "flush", "protocol", "fixes", "controller", "faults", "bounds",
              "properties", "consumer_fetch_from"});
  for (const auto& [key, v] : doc.items()) {
    if (key == "brokers") {
      c.brokers = read_int(v, key);
    } else if (key == "replication_factor") {
      c.replication_factor = read_int(v, key);
    } else if (key == "min_insync_replicas") {
      c.min_insync_replicas = read_int(v, key);
    } else if (key == "acks") {
      c.acks = read_acks(v);
    } else if (key == "unclean_leader_election") {
      c.unclean_leader_election = read_bool(v, key);
    } else if (key == "admin_unclean_election") {
      c.admin_unclean_election = read_bool(v, key);
    } else if (key == "eligible_leader_replicas") {
      c.eligible_leader_replicas = read_bool(v, key);
      given.eligible_leader_replicas = true;
    } else if (key == "idempotence") {
      c.idempotence = read_bool(v, key);
      given.idempotence = true;
    } else if (key == "expire_unsent_batches") {
      c.expire_unsent_batches = read_bool(v, key);
    } else if (key == "consumer") {
      c.consumer = read_bool(v, key);
    } else if (key == "consumer_fetch_from") {
      c.consumer_fetch_from = read_choice<ConsumerFetchFrom>(
          v, key, {{"leader", ConsumerFetchFrom::Leader}, {"any-replica", ConsumerFetchFrom::AnyReplica}});
    } else if (key == "async_fetch_responses") {
      c.async_fetch_responses = read_bool(v, key);
    } else if (key == "flush") {
      c.flush = read_choice<FlushPolicy>(
          v, key, {{"none", FlushPolicy::None}, {"every-append", FlushPolicy::EveryAppend}});
    } else if (key == "protocol") {
      c.protocol = read_protocol(v);
    } else if (key == "fixes") {
      parse_fixes(v, given);
    } else if (key == "controller") {
      parse_controller(v, c.controller, given);
    } else if (key == "faults") {
      parse_faults(v, c.faults, given);
    } else if (key == "bounds") {
      parse_bounds(v, c.bounds);
    } else if (key == "properties") {
      c.properties = read_property_names(v);
      given.properties = !c.properties.empty();
    }
  }
}

// ---- overrides -------------------------------------------------------------------------

// ---- resolution and validation -------------------------------------------------------

void resolve(Config& c, const Explicit& given) {
  c.fixes = fixes_for(c.protocol);
  for (const auto& [toggle, value] : given.fixes) c.fixes.*toggle = value;
  // KIP-679 (3.0): enable.idempotence defaults to true; ProducerConfig turns it off
  // when acks is not all unless it was set explicitly.
  if (!given.idempotence) c.idempotence = c.acks == Acks::All;
  if (!given.eligible_leader_replicas) {
    c.eligible_leader_replicas = c.protocol >= Protocol::Kip966;
  }
  if (!given.controller_mode) c.controller.mode = controller_modes_for(c.protocol).front();
  if (c.controller.mode == ControllerMode::Zookeeper) {
    // KIP-903's broker-epoch check is made by the KRaft controller only: the ZooKeeper
    // controller of 3.5+ does not look at AlterPartition's broker epochs
    // (KafkaController.processAlterPartition), so in ZooKeeper mode it is off unless asked.
    const bool explicit_kip903 = std::any_of(given.fixes.begin(), given.fixes.end(), [](const auto& f) {
      return f.first == &Fixes::alter_partition_broker_epochs;
    });
    if (!explicit_kip903) c.fixes.alter_partition_broker_epochs = false;
  }
  // Three voters as in a minimal KRaft cluster, fewer when there are not enough nodes,
  // so that `--set brokers=1` alone is a valid configuration.
  // A kind of crash nobody asked for never exceeds the crash budget, so that
  // `--set faults.max_crashes=0` alone means "no crashes" rather than an error.
  for (int FaultBudget::*kind : {&FaultBudget::max_lossy_crashes, &FaultBudget::max_disk_losses,
                                 &FaultBudget::max_clean_shutdowns}) {
    const bool explicit_kind =
        std::find(given.faults.begin(), given.faults.end(), kind) != given.faults.end();
    if (!explicit_kind) c.faults.*kind = std::min(c.faults.*kind, c.faults.max_crashes);
  }
  if (!given.voters) {
    const int room = c.controller.placement == Placement::Combined ? c.brokers
                                                                   : kMaxNodes - c.brokers;
    c.controller.voters = std::clamp(room, 1, 3);
  }
}

void validate(const Config& c) {
  require_range(c.brokers, "brokers", 1, kMaxNodes, "the model's node limit");

  if (c.replication_factor > c.brokers) {
    throw ConfigError("replication_factor",
                      std::to_string(c.replication_factor) + " is more than the " +
                          std::to_string(c.brokers) + " brokers; must be between 1 and " +
                          std::to_string(std::min(c.brokers, kMaxReplicas)));
  }
  require_range(c.replication_factor, "replication_factor", 1,
                std::min(c.brokers, kMaxReplicas),
                "at most brokers and the model's replica limit " +
                    std::to_string(kMaxReplicas));
  require_range(c.min_insync_replicas, "min_insync_replicas", 1, c.replication_factor,
                "at most replication_factor");

  if (c.controller.placement == Placement::Combined) {
    require_range(c.controller.voters, "controller.voters", 1, c.brokers,
                  "combined placement: voters are brokers");
  } else {
    if (c.brokers >= kMaxNodes) {
      throw ConfigError("controller.placement",
                        "\"dedicated\" needs nodes for voters besides the " +
                            std::to_string(c.brokers) + " brokers; the model has at most " +
                            std::to_string(kMaxNodes) + " nodes (use \"combined\")");
    }
    require_range(c.controller.voters, "controller.voters", 1, kMaxNodes - c.brokers,
                  "dedicated placement: brokers + voters <= " + std::to_string(kMaxNodes));
  }
  if (c.nodes() > kMaxNodes) {
    throw ConfigError("controller.voters", "brokers + dedicated voters = " +
                                               std::to_string(c.nodes()) +
                                               " exceeds the node limit " +
                                               std::to_string(kMaxNodes));
  }

  require_range(c.faults.max_crashes, "faults.max_crashes", 0, kMaxFaultBudget);
  const std::pair<int, const char*> sub_budgets[] = {
      {c.faults.max_lossy_crashes, "faults.max_lossy_crashes"},
      {c.faults.max_disk_losses, "faults.max_disk_losses"},
      {c.faults.max_clean_shutdowns, "faults.max_clean_shutdowns"},
  };
  for (const auto& [value, field] : sub_budgets) {
    require_range(value, field, 0, c.faults.max_crashes,
                  "a kind of crash, so at most faults.max_crashes");
  }
  require_range(c.faults.max_network_cuts, "faults.max_network_cuts", 0, kMaxFaultBudget);
  require_range(c.faults.max_lost_produce_responses, "faults.max_lost_produce_responses", 0, kMaxFaultBudget);
  require_range(c.faults.max_pauses, "faults.max_pauses", 0, kMaxFaultBudget);

  require_range(c.bounds.max_records, "bounds.max_records", 1, std::min(kMaxRecords, kMaxLog),
                "the model's record and log limits");
  require_range(c.bounds.max_leader_epoch, "bounds.max_leader_epoch", 1, kMaxEpoch - 1,
                "the model's epoch limit");
  require_range(c.bounds.max_partition_epoch, "bounds.max_partition_epoch", 1, kMaxEpoch - 1,
                "the model's epoch limit");
  require_range(c.bounds.max_retries, "bounds.max_retries", 0, kMaxRetries);
  require_range(c.bounds.max_leader_moves, "bounds.max_leader_moves", 0, kMaxEpoch - 1);
  require_range(c.bounds.max_reassignments, "bounds.max_reassignments", 0, kMaxReassignments);
  if (c.reassignment()) {
    // The KRaft controller's reassignment (ReplicationControlManager, KIP-455's
    // AlterPartitionReassignments as KRaft implements it) is what the rules model.
    if (c.controller.mode != ControllerMode::Kraft) {
      throw ConfigError("bounds.max_reassignments",
                        "reassignment is modelled for controller.mode \"kraft\" only; must be 0 with \"" +
                            std::string(controller_mode_name(c.controller.mode)) + "\"");
    }
    if (c.brokers > kMaxReplicas) {
      throw ConfigError("bounds.max_reassignments",
                        "a reassignment may move the partition to any broker, and the model holds at most " +
                            std::to_string(kMaxReplicas) + " replicas; with " + std::to_string(c.brokers) +
                            " brokers it must be 0");
    }
  }
  if (c.consumer_fetch_from == ConsumerFetchFrom::AnyReplica) {
    if (!c.consumer) {
      throw ConfigError("consumer_fetch_from", "\"any-replica\" needs consumer=true; allowed without a consumer: \"leader\"");
    }
    if (c.protocol < Protocol::Kip320) {
      throw ConfigError("consumer_fetch_from",
                        "\"any-replica\" (KIP-392, Kafka 2.4) did not exist in protocol \"" +
                            std::string(protocol_name(c.protocol)) + "\"'s Kafka releases; allowed: \"leader\"");
    }
  }

  const auto modes = controller_modes_for(c.protocol);
  if (std::find(modes.begin(), modes.end(), c.controller.mode) == modes.end()) {
    std::vector<std::string> allowed;
    for (ControllerMode m : modes) allowed.emplace_back(controller_mode_name(m));
    throw ConfigError("controller.mode", "\"" + std::string(controller_mode_name(c.controller.mode)) +
                                             "\" did not exist in protocol \"" +
                                             std::string(protocol_name(c.protocol)) + "\"'s Kafka releases; allowed: " +
                                             quoted_list(allowed));
  }
  if (c.controller.quorum == QuorumKind::Dynamic) {
    // KIP-853 shipped in Kafka 3.9 (kraft.version 1), a KRaft feature: ZooKeeper mode and
    // the generations whose releases all predate 3.9 have only the static voter set.
    if (c.controller.mode != ControllerMode::Kraft) {
      throw ConfigError("controller.quorum", "\"dynamic\" (KIP-853) needs controller.mode \"kraft\"; allowed with \"" +
                                                 std::string(controller_mode_name(c.controller.mode)) + "\": \"static\"");
    }
    if (c.protocol < Protocol::Kip903) {
      throw ConfigError("controller.quorum", "\"dynamic\" (KIP-853, Kafka 3.9) needs protocol \"kip-903\" or later (got \"" +
                                                 std::string(protocol_name(c.protocol)) + "\"); allowed: \"static\"");
    }
  }
  if (c.eligible_leader_replicas && c.protocol < Protocol::Kip966) {
    throw ConfigError("eligible_leader_replicas",
                      "true needs protocol \"kip-966\" (got \"" +
                          std::string(protocol_name(c.protocol)) + "\"); allowed: false");
  }
  // KafkaProducer refuses enable.idempotence=true with acks other than all (ProducerConfig:
  // "Must set acks to all in order to use the idempotent producer", a ConfigException
  // since 0.11), so no Kafka producer behaves like that combination.
  if (c.idempotence && c.acks != Acks::All) {
    throw ConfigError("idempotence",
                      "true needs acks \"all\" (got \"" + std::string(acks_name(c.acks)) +
                          "\"): Kafka's producer rejects enable.idempotence=true with acks " +
                          std::string(acks_name(c.acks)) + "; allowed with this acks: false");
  }
}

std::vector<std::string> applicable_properties(const Config& c) {
  std::vector<std::string> names;
  for (const auto& p : properties::catalog()) {
    if (p.applies(c)) names.emplace_back(p.name);
  }
  return names;
}

void resolve_properties(Config& c, bool given) {
  const auto applicable = applicable_properties(c);
  if (!given) {
    if (applicable.empty()) {
      throw ConfigError("properties", "no property applies to this configuration");
    }
    c.properties = applicable;
    return;
  }
  for (const auto& name : c.properties) {
    if (properties::find(name) == nullptr) {
      std::vector<std::string> all;
      for (const auto& p : properties::catalog()) all.emplace_back(p.name);
      throw ConfigError("properties", "unknown property \"" + name + "\"; valid names: " +
                                          join(all));
    }
    if (std::find(applicable.begin(), applicable.end(), name) == applicable.end()) {
      throw ConfigError("properties", "\"" + name +
                                          "\" does not apply to this configuration; "
                                          "applicable: " + join(applicable));
    }
  }
}

}  // namespace

std::string_view acks_name(Acks a) {
  switch (a) {
    case Acks::Zero: return "0";
    case Acks::One: return "1";
    case Acks::All: return "all";
  }
  return "all";
}

// ---- public interface -----------------------------------------------------------------

const std::vector<FixInfo>& all_fixes() { return kFixes; }

Fixes fixes_for(Protocol p) {
  Fixes f;
  for (const auto& fix : kFixes) f.*fix.toggle = fix.introduced_in <= p;
  return f;
}

std::string_view protocol_name(Protocol p) {
  for (const auto& info : kProtocols) {
    if (info.protocol == p) return info.name;
  }
  return "unknown";
}

std::string_view protocol_description(Protocol p) {
  for (const auto& info : kProtocols) {
    if (info.protocol == p) return info.description;
  }
  return "";
}

std::vector<ControllerMode> controller_modes_for(Protocol p) {
  // ZooKeeper up to 3.x (removed in 4.0, KIP-833); KRaft from 2.8 (production-ready in
  // 3.3). Generations before kip-497 (0.10 to 2.6) had only ZooKeeper; kip-497 (2.7 to
  // 3.4) and kip-903 (3.5 to 3.9) had both, defaulting to the mode of their time;
  // kip-966 (4.0+) has only KRaft.
  if (p < Protocol::Kip497) return {ControllerMode::Zookeeper};
  if (p == Protocol::Kip497) return {ControllerMode::Zookeeper, ControllerMode::Kraft};
  if (p == Protocol::Kip903) return {ControllerMode::Kraft, ControllerMode::Zookeeper};
  return {ControllerMode::Kraft};
}

std::string_view controller_mode_name(ControllerMode m) {
  return m == ControllerMode::Zookeeper ? "zookeeper" : "kraft";
}

std::string_view quorum_kind_name(QuorumKind q) { return q == QuorumKind::Dynamic ? "dynamic" : "static"; }

const std::vector<Protocol>& all_protocols() {
  static const std::vector<Protocol> protocols = [] {
    std::vector<Protocol> out;
    for (const auto& info : kProtocols) out.push_back(info.protocol);
    return out;
  }();
  return protocols;
}

Config default_config() { return load_config(nullptr, {}); }

Config load_config(const nlohmann::json* document, const std::vector<std::string>& overrides) {
  json doc = document != nullptr ? *document : json::object();
  if (doc.is_null()) doc = json::object();
  if (!doc.is_object()) {
    throw ConfigError("--config", "expected a JSON object, got " + type_of(doc));
  }
  for (const auto& o : overrides) apply_override(doc, o, "faults.max_crashes=2");

  Config c;
  Explicit given;
  parse_document(doc, c, given);
  resolve(c, given);
  validate(c);
  resolve_properties(c, given.properties);
  return c;
}

nlohmann::json to_json(const Config& c) {
  json fixes = json::object();
  for (const auto& f : kFixes) fixes[std::string(f.name)] = c.fixes.*f.toggle;
  json doc{
      {"brokers", c.brokers},
      {"replication_factor", c.replication_factor},
      {"min_insync_replicas", c.min_insync_replicas},
      {"acks", std::string(acks_name(c.acks))},
      {"unclean_leader_election", c.unclean_leader_election},
      {"eligible_leader_replicas", c.eligible_leader_replicas},
      {"idempotence", c.idempotence},
      {"consumer", c.consumer},
      {"async_fetch_responses", c.async_fetch_responses},
      {"flush", c.flush == FlushPolicy::None ? "none" : "every-append"},
      {"protocol", std::string(protocol_name(c.protocol))},
      {"fixes", fixes},
      {"controller",
       {{"placement", c.controller.placement == Placement::Combined ? "combined" : "dedicated"},
        {"voters", c.controller.voters},
        {"mode", std::string(controller_mode_name(c.controller.mode))}}},
      {"faults",
       {{"max_crashes", c.faults.max_crashes},
        {"max_lossy_crashes", c.faults.max_lossy_crashes},
        {"max_disk_losses", c.faults.max_disk_losses},
        {"max_clean_shutdowns", c.faults.max_clean_shutdowns},
        {"max_network_cuts", c.faults.max_network_cuts},
        {"max_lost_produce_responses", c.faults.max_lost_produce_responses}}},
      {"bounds",
       {{"max_records", c.bounds.max_records},
        {"max_leader_epoch", c.bounds.max_leader_epoch},
        {"max_partition_epoch", c.bounds.max_partition_epoch},
        {"max_retries", c.bounds.max_retries},
        {"max_leader_moves", c.bounds.max_leader_moves}}},
      {"properties", c.properties},
  };
  // Written only when on, so that the configurations of existing traces and scenarios,
  // which predate the key, keep their text.
  if (c.admin_unclean_election) doc["admin_unclean_election"] = true;
  if (c.expire_unsent_batches) doc["expire_unsent_batches"] = true;
  // Written only when set, so that the configurations of traces and scenarios recorded
  // before the budget existed (corpus, suite) stay exactly what they were.
  if (c.faults.max_pauses != 0) doc["faults"]["max_pauses"] = c.faults.max_pauses;
  if (c.bounds.max_reassignments != 0) doc["bounds"]["max_reassignments"] = c.bounds.max_reassignments;
  if (c.consumer_fetch_from != ConsumerFetchFrom::Leader) doc["consumer_fetch_from"] = "any-replica";
  if (c.controller.quorum != QuorumKind::Static) doc["controller"]["quorum"] = std::string(quorum_kind_name(c.controller.quorum));
  return doc;
}

nlohmann::json describe_json(const Config& c) {
  nlohmann::json doc = to_json(c);
  doc["admin_unclean_election"] = c.admin_unclean_election;
  doc["expire_unsent_batches"] = c.expire_unsent_batches;
  doc["faults"]["max_pauses"] = c.faults.max_pauses;
  doc["bounds"]["max_reassignments"] = c.bounds.max_reassignments;
  doc["consumer_fetch_from"] = c.consumer_fetch_from == ConsumerFetchFrom::Leader ? "leader" : "any-replica";
  doc["controller"]["quorum"] = std::string(quorum_kind_name(c.controller.quorum));
  return doc;
}

}  // namespace isr::spec
