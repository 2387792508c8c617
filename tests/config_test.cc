// Configuration parsing, resolution and validation (spec/partition/config.h): the defaults, each
// validation error naming its field, --set overrides, generation fixes and the JSON
// round trip that `describe` and trace files rely on.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "io/files.h"
#include "spec/partition/config.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/state.h"

namespace isr::spec {
namespace {

using nlohmann::json;

Config load(const std::vector<std::string>& overrides) { return load_config(nullptr, overrides); }

// Expects a ConfigError for `field` whose message contains every one of `words`.
void expect_error(const std::vector<std::string>& overrides, const std::string& field,
                  const std::vector<std::string>& words = {}) {
  try {
    load(overrides);
    ADD_FAILURE() << "no error for " << ::testing::PrintToString(overrides);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field, field) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(field, 0), 0u) << "message should start with the field: " << message;
    for (const auto& word : words) {
      EXPECT_NE(message.find(word), std::string::npos)
          << "'" << word << "' missing from: " << message;
    }
  }
}

void expect_document_error(const json& doc, const std::string& field,
                           const std::vector<std::string>& words = {}) {
  try {
    load_config(&doc, {});
    ADD_FAILURE() << "no error for " << doc.dump();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field, field) << e.what();
    const std::string message = e.what();
    for (const auto& word : words) {
      EXPECT_NE(message.find(word), std::string::npos)
          << "'" << word << "' missing from: " << message;
    }
  }
}

bool same_fixes(const Fixes& a, const Fixes& b) {
  for (const auto& f : all_fixes()) {
    if (a.*f.toggle != b.*f.toggle) return false;
  }
  return true;
}

// Field by field, so that a field to_json forgets still fails the round trip.
void expect_same(const Config& a, const Config& b) {
  EXPECT_EQ(a.brokers, b.brokers);
  EXPECT_EQ(a.replication_factor, b.replication_factor);
  EXPECT_EQ(a.min_insync_replicas, b.min_insync_replicas);
  EXPECT_EQ(a.acks, b.acks);
  EXPECT_EQ(a.unclean_leader_election, b.unclean_leader_election);
  EXPECT_EQ(a.eligible_leader_replicas, b.eligible_leader_replicas);
  EXPECT_EQ(a.idempotence, b.idempotence);
  EXPECT_EQ(a.consumer, b.consumer);
  EXPECT_EQ(a.async_fetch_responses, b.async_fetch_responses);
  EXPECT_EQ(a.flush, b.flush);
  EXPECT_EQ(a.protocol, b.protocol);
  EXPECT_TRUE(same_fixes(a.fixes, b.fixes));
  EXPECT_EQ(a.controller.placement, b.controller.placement);
  EXPECT_EQ(a.controller.voters, b.controller.voters);
  EXPECT_EQ(a.faults.max_crashes, b.faults.max_crashes);
  EXPECT_EQ(a.faults.max_lossy_crashes, b.faults.max_lossy_crashes);
  EXPECT_EQ(a.faults.max_disk_losses, b.faults.max_disk_losses);
  EXPECT_EQ(a.faults.max_clean_shutdowns, b.faults.max_clean_shutdowns);
  EXPECT_EQ(a.faults.max_network_cuts, b.faults.max_network_cuts);
  EXPECT_EQ(a.bounds.max_records, b.bounds.max_records);
  EXPECT_EQ(a.bounds.max_leader_epoch, b.bounds.max_leader_epoch);
  EXPECT_EQ(a.bounds.max_partition_epoch, b.bounds.max_partition_epoch);
  EXPECT_EQ(a.bounds.max_retries, b.bounds.max_retries);
  EXPECT_EQ(a.bounds.max_leader_moves, b.bounds.max_leader_moves);
  EXPECT_EQ(a.properties, b.properties);
}

void expect_round_trip(const Config& c) {
  const json printed = to_json(c);
  const Config back = load_config(&printed, {});
  expect_same(c, back);
  EXPECT_EQ(to_json(back), printed);
}

std::vector<std::string> applicable(const Config& c) {
  std::vector<std::string> names;
  for (const auto& p : properties::catalog()) {
    if (p.applies(c)) names.emplace_back(p.name);
  }
  return names;
}

// ---- defaults ------------------------------------------------------------------------

TEST(ConfigDefaults, MatchConfigHeader) {
  const Config c = default_config();
  EXPECT_EQ(c.brokers, 3);
  EXPECT_EQ(c.replication_factor, 3);
  EXPECT_EQ(c.min_insync_replicas, 2);
  EXPECT_EQ(c.acks, Acks::All);
  EXPECT_FALSE(c.unclean_leader_election);
  EXPECT_TRUE(c.eligible_leader_replicas);
  EXPECT_TRUE(c.idempotence) << "KIP-679: enable.idempotence=true with acks=all since 3.0";
  EXPECT_TRUE(c.consumer);
  EXPECT_EQ(c.async_fetch_responses, Config{}.async_fetch_responses);
  EXPECT_EQ(c.flush, FlushPolicy::None);
  EXPECT_EQ(c.protocol, Protocol::Kip966);
  EXPECT_TRUE(same_fixes(c.fixes, Fixes{}));
  EXPECT_EQ(c.controller.placement, Placement::Combined);
  EXPECT_EQ(c.controller.voters, 3);
  EXPECT_EQ(c.nodes(), 3);
  // Budgets and bounds are tuned in config.h; resolution must leave them as declared.
  const FaultBudget faults{};
  EXPECT_EQ(c.faults.max_crashes, faults.max_crashes);
  EXPECT_EQ(c.faults.max_lossy_crashes, faults.max_lossy_crashes);
  EXPECT_EQ(c.faults.max_disk_losses, faults.max_disk_losses);
  EXPECT_EQ(c.faults.max_clean_shutdowns, faults.max_clean_shutdowns);
  EXPECT_EQ(c.faults.max_network_cuts, faults.max_network_cuts);
  const Bounds bounds{};
  EXPECT_EQ(c.bounds.max_records, bounds.max_records);
  EXPECT_EQ(c.bounds.max_leader_epoch, bounds.max_leader_epoch);
  EXPECT_EQ(c.bounds.max_partition_epoch, bounds.max_partition_epoch);
  EXPECT_EQ(c.bounds.max_retries, bounds.max_retries);
  EXPECT_EQ(c.bounds.max_leader_moves, bounds.max_leader_moves);
  EXPECT_GE(c.faults.max_crashes, 1) << "the default model checks at least one crash";
}

TEST(ConfigDefaults, PropertiesAreEveryApplicableOneInCatalogOrder) {
  const Config c = default_config();
  ASSERT_FALSE(c.properties.empty());
  EXPECT_EQ(c.properties, applicable(c));
  EXPECT_NE(std::find(c.properties.begin(), c.properties.end(), "no-acked-loss"),
            c.properties.end());
}

TEST(ConfigDefaults, NullDocumentIsTheDefault) {
  const json null_doc;
  expect_same(load_config(&null_doc, {}), default_config());
  const json empty = json::object();
  expect_same(load_config(&empty, {}), default_config());
}

// ---- generations and fixes -------------------------------------------------------------

// The oldest generation has exactly what Kafka had before 0.11: of the toggles, only
// Partition.makeLeader's isNewLeader rule for the followers' state (KAFKA-2721, 0.9.0.0).
TEST(ConfigFixes, HwTruncationHasOnlyWhatKafkaHadBefore011) {
  const Fixes f = fixes_for(Protocol::HwTruncation);
  for (const auto& fix : all_fixes()) {
    EXPECT_EQ(f.*fix.toggle, fix.introduced_in == Protocol::HwTruncation) << fix.name;
  }
  EXPECT_TRUE(f.reelected_leader_keeps_followers);
  EXPECT_FALSE(f.leader_epoch_truncation);
}

TEST(ConfigFixes, Kip966HasEveryFix) {
  const Fixes f = fixes_for(Protocol::Kip966);
  for (const auto& fix : all_fixes()) EXPECT_TRUE(f.*fix.toggle) << fix.name;
}

TEST(ConfigFixes, EachGenerationAddsItsOwnFixes) {
  EXPECT_TRUE(fixes_for(Protocol::Kip101).leader_epoch_truncation);
  EXPECT_FALSE(fixes_for(Protocol::Kip101).largest_epoch_lookup);
  EXPECT_TRUE(fixes_for(Protocol::Kip279).largest_epoch_lookup);
  EXPECT_FALSE(fixes_for(Protocol::Kip279).fetch_epoch_fencing);
  const Fixes kip320 = fixes_for(Protocol::Kip320);
  EXPECT_TRUE(kip320.fetch_epoch_fencing);
  EXPECT_TRUE(kip320.reelected_leader_keeps_followers);
  EXPECT_TRUE(kip320.isr_join_epoch_start);
  EXPECT_FALSE(kip320.maximal_isr);
  EXPECT_TRUE(fixes_for(Protocol::Kip497).maximal_isr);
  EXPECT_FALSE(fixes_for(Protocol::Kip497).alter_partition_broker_epochs);
  EXPECT_TRUE(fixes_for(Protocol::Kip903).alter_partition_broker_epochs);
  EXPECT_FALSE(fixes_for(Protocol::Kip903).hw_frozen_below_min_isr);
  EXPECT_FALSE(fixes_for(Protocol::Kip903).last_known_elr);
  EXPECT_FALSE(fixes_for(Protocol::Kip497).isr_join_unfenced_only);
  EXPECT_TRUE(fixes_for(Protocol::Kip903).isr_join_unfenced_only);
  EXPECT_FALSE(fixes_for(Protocol::Kip903).isr_shrink_keeps_leader_epoch);
  EXPECT_TRUE(fixes_for(Protocol::Kip966).isr_shrink_keeps_leader_epoch);
  EXPECT_FALSE(fixes_for(Protocol::Kip903).last_known_leader_unfenced);
}

TEST(ConfigFixes, EveryFixNamesTheKafkaReleaseThatShippedIt) {
  for (const auto& f : all_fixes()) {
    EXPECT_FALSE(f.kafka_version.empty()) << f.name;
    EXPECT_TRUE(f.kafka_version[0] >= '0' && f.kafka_version[0] <= '9') << f.name << ": " << f.kafka_version;
  }
}

TEST(ConfigFixes, LaterGenerationsIncludeEarlierFixes) {
  const auto& protocols = all_protocols();
  ASSERT_EQ(protocols.size(), 7u);
  for (std::size_t i = 1; i < protocols.size(); ++i) {
    const Fixes older = fixes_for(protocols[i - 1]);
    const Fixes newer = fixes_for(protocols[i]);
    int added = 0;
    for (const auto& fix : all_fixes()) {
      if (older.*fix.toggle) {
        EXPECT_TRUE(newer.*fix.toggle) << fix.name;
      }
      added += (newer.*fix.toggle && !(older.*fix.toggle));
    }
    EXPECT_GT(added, 0) << protocol_name(protocols[i]) << " adds no fix";
  }
}

TEST(ConfigFixes, ProtocolSelectsItsFixes) {
  const Config c = load({"protocol=kip-320"});
  EXPECT_EQ(c.protocol, Protocol::Kip320);
  EXPECT_TRUE(same_fixes(c.fixes, fixes_for(Protocol::Kip320)));
  EXPECT_FALSE(c.fixes.maximal_isr);
  EXPECT_FALSE(c.eligible_leader_replicas);
}

TEST(ConfigFixes, IndividualFixesOverrideTheGeneration) {
  const Config c = load({"fixes.alter_partition_broker_epochs=false"});
  EXPECT_FALSE(c.fixes.alter_partition_broker_epochs);
  Fixes expected = fixes_for(Protocol::Kip966);
  expected.alter_partition_broker_epochs = false;
  EXPECT_TRUE(same_fixes(c.fixes, expected));

  const Config old = load({"protocol=kip-320", "fixes.maximal_isr=true"});
  EXPECT_TRUE(old.fixes.maximal_isr);
  EXPECT_FALSE(old.fixes.alter_partition_broker_epochs);
}

TEST(ConfigFixes, FixesOverrideHoldsWhicheverOrderProtocolIsGiven) {
  const Config a = load({"fixes.maximal_isr=false", "protocol=kip-903"});
  EXPECT_FALSE(a.fixes.maximal_isr);
  EXPECT_TRUE(a.fixes.alter_partition_broker_epochs);
}

// The toggle replaced by reelected_leader_keeps_followers (issue 24): a configuration
// that still names it gets the replacement, not just the list of keys.
TEST(ConfigFixes, TheRemovedFollowerResetToggleNamesItsReplacement) {
  expect_error({"fixes.hw_current_epoch_followers=false"}, "fixes.hw_current_epoch_followers",
               {"removed", "fixes.reelected_leader_keeps_followers", "0.8.x"});
}

TEST(ConfigFixes, UnknownFixIsAnError) {
  expect_error({"fixes.bogus=true"}, "fixes.bogus", {"maximal_isr", "last_known_elr"});
  expect_error({"fixes.maximal_isr=yes"}, "fixes.maximal_isr", {"true or false"});
  expect_error({"fixes=3"}, "fixes", {"object"});
}

TEST(ConfigFixes, DescriptionsCoverEveryToggleOnce) {
  EXPECT_EQ(all_fixes().size(), 19u);  // + the ZooKeeper-mode controller_epoch_zk_version, bounced_broker_epochs,
                                       // + KIP-858 directory_assignment, + the follower's truncation decision
                                       // of 2.0.1/2.1.0 (reconcile_on_epoch_gap, reconcile_on_every_epoch,
                                       // leader_epoch_cached_on_election)
  std::vector<std::string> names;
  for (const auto& f : all_fixes()) {
    EXPECT_FALSE(f.description.empty()) << f.name;
    names.emplace_back(f.name);
    // Turning one toggle off changes exactly that toggle: the table maps names to
    // distinct members.
    Fixes all{};
    all.*f.toggle = false;
    int off = 0;
    for (const auto& g : all_fixes()) off += !(all.*g.toggle);
    EXPECT_EQ(off, 1) << f.name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
}

TEST(ConfigProtocols, NamesAndDescriptions) {
  std::vector<std::string> names;
  for (const auto p : all_protocols()) {
    names.emplace_back(protocol_name(p));
    EXPECT_FALSE(protocol_description(p).empty()) << protocol_name(p);
    EXPECT_EQ(load({"protocol=" + std::string(protocol_name(p)),
                    "eligible_leader_replicas=false"})
                  .protocol,
              p);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"hw-truncation", "kip-101", "kip-279", "kip-320",
                                             "kip-497", "kip-903", "kip-966"}));
  expect_error({"protocol=kip-500"}, "protocol", {"hw-truncation", "kip-966"});
  expect_error({"protocol=3"}, "protocol", {"kip-320"});
}

// ---- eligible leader replicas ------------------------------------------------------------

TEST(ConfigElr, DefaultFollowsTheProtocol) {
  EXPECT_TRUE(load({}).eligible_leader_replicas);
  EXPECT_FALSE(load({"protocol=kip-903"}).eligible_leader_replicas);
  EXPECT_FALSE(load({"protocol=hw-truncation"}).eligible_leader_replicas);
  EXPECT_FALSE(load({"eligible_leader_replicas=false"}).eligible_leader_replicas);
}

TEST(ConfigElr, TrueBeforeKip966IsAnError) {
  expect_error({"protocol=kip-903", "eligible_leader_replicas=true"},
               "eligible_leader_replicas", {"kip-966"});
}

// ---- overrides -------------------------------------------------------------------------

TEST(ConfigOverrides, DottedKeysAndTypes) {
  const Config c = load({"faults.max_crashes=2", "faults.max_lossy_crashes=1",
                         "controller.placement=dedicated", "controller.voters=1",
                         "fixes.maximal_isr=false", "idempotence=true", "consumer=false",
                         "flush=every-append", "bounds.max_records=3",
                         "unclean_leader_election=true", "async_fetch_responses=true"});
  EXPECT_EQ(c.faults.max_crashes, 2);
  EXPECT_EQ(c.faults.max_lossy_crashes, 1);
  EXPECT_EQ(c.controller.placement, Placement::Dedicated);
  EXPECT_EQ(c.controller.voters, 1);
  EXPECT_EQ(c.nodes(), 4);
  EXPECT_FALSE(c.fixes.maximal_isr);
  EXPECT_TRUE(c.idempotence);
  EXPECT_FALSE(c.consumer);
  EXPECT_EQ(c.flush, FlushPolicy::EveryAppend);
  EXPECT_EQ(c.bounds.max_records, 3);
  EXPECT_TRUE(c.unclean_leader_election);
  EXPECT_TRUE(c.async_fetch_responses);
  EXPECT_FALSE(load({"async_fetch_responses=false"}).async_fetch_responses);
  expect_error({"async_fetch_responses=1"}, "async_fetch_responses", {"true or false"});
}

TEST(ConfigOverrides, AcksAcceptsNamesAndNumbers) {
  EXPECT_EQ(load({"acks=all"}).acks, Acks::All);
  EXPECT_EQ(load({"acks=\"all\""}).acks, Acks::All);
  EXPECT_EQ(load({"acks=-1"}).acks, Acks::All);
  EXPECT_EQ(load({"acks=1"}).acks, Acks::One);
  EXPECT_EQ(load({"acks=\"1\""}).acks, Acks::One);
  EXPECT_EQ(load({"acks=0"}).acks, Acks::Zero);
  EXPECT_EQ(load({"acks=\"0\""}).acks, Acks::Zero);
  expect_error({"acks=2"}, "acks", {"\"0\"", "\"1\"", "\"all\""});
  expect_error({"acks=most"}, "acks", {"\"all\""});
  expect_error({"acks=true"}, "acks", {"\"all\""});
}

TEST(ConfigOverrides, LaterOverridesWin) {
  EXPECT_EQ(load({"brokers=4", "brokers=5"}).brokers, 5);
}

TEST(ConfigOverrides, OverridesApplyOverTheFile) {
  const json doc = {{"brokers", 5}, {"faults", {{"max_crashes", 2}}}};
  const Config c = load_config(&doc, {"faults.max_lossy_crashes=1"});
  EXPECT_EQ(c.brokers, 5);
  EXPECT_EQ(c.faults.max_crashes, 2);
  EXPECT_EQ(c.faults.max_lossy_crashes, 1);
  EXPECT_EQ(load_config(&doc, {"brokers=4"}).brokers, 4);
}

TEST(ConfigOverrides, JsonValues) {
  const Config c = load({"faults={\"max_crashes\":3,\"max_disk_losses\":2}"});
  EXPECT_EQ(c.faults.max_crashes, 3);
  EXPECT_EQ(c.faults.max_disk_losses, 2);
  EXPECT_EQ(load({"protocol=\"kip-497\"", "eligible_leader_replicas=false"}).protocol,
            Protocol::Kip497);
}

TEST(ConfigOverrides, MalformedOverrides) {
  expect_error({"brokers"}, "--set", {"key=value"});
  expect_error({"=3"}, "--set", {"key=value"});
  expect_error({"faults..max_crashes=1"}, "--set");
  expect_error({"brokers.count=1"}, "brokers", {"integer"});
  expect_error({"brokers=3", "brokers.count=1"}, "brokers", {"not an object"});
}

TEST(ConfigOverrides, PropertiesAsCommaListOrJson) {
  const auto names = applicable(default_config());
  ASSERT_GE(names.size(), 2u);
  const Config a = load({"properties=" + names[1] + "," + names[0]});
  EXPECT_EQ(a.properties, (std::vector<std::string>{names[1], names[0]}));
  const Config b = load({"properties=[\"" + names[0] + "\"]"});
  EXPECT_EQ(b.properties, std::vector<std::string>{names[0]});
  const Config c = load({"properties= " + names[0] + " , " + names[0]});
  EXPECT_EQ(c.properties, std::vector<std::string>{names[0]}) << "trimmed and deduplicated";
  // An empty selection is refused (issue 12): leaving the key out means the default list.
  EXPECT_THROW(load({"properties=[]"}), isr::spec::ConfigError);
  EXPECT_THROW(load({"properties="}), isr::spec::ConfigError);
}

// ---- validation ------------------------------------------------------------------------

TEST(ConfigValidation, UnknownKeysAreListedWithTheAllowedOnes) {
  expect_error({"bogus=1"}, "bogus", {"brokers", "replication_factor", "faults"});
  expect_error({"faults.bogus=1"}, "faults.bogus", {"max_crashes", "max_network_cuts"});
  expect_error({"bounds.bogus=1"}, "bounds.bogus", {"max_records", "max_retries"});
  expect_error({"controller.bogus=1"}, "controller.bogus", {"placement", "voters"});
}

TEST(ConfigValidation, WrongTypes) {
  expect_document_error({{"brokers", "three"}}, "brokers", {"integer"});
  expect_document_error({{"brokers", 2.5}}, "brokers", {"integer"});
  expect_document_error({{"unclean_leader_election", 1}}, "unclean_leader_election",
                        {"true or false"});
  expect_document_error({{"faults", {{"max_crashes", "2"}}}}, "faults.max_crashes",
                        {"integer"});
  expect_document_error({{"faults", 2}}, "faults", {"object"});
  expect_document_error({{"properties", 5}}, "properties", {"list"});
  expect_document_error({{"properties", {1, 2}}}, "properties", {"names"});
  expect_document_error(json::array({1, 2}), "--config", {"object"});
  expect_error({"brokers=99999999999999"}, "brokers", {"out of range"});
}

// expire_unsent_batches: a boolean, off by default, written by to_json only when on (the
// configurations of older traces keep their text) and by describe_json always.
TEST(ConfigValidation, ExpireUnsentBatches) {
  EXPECT_FALSE(load({}).expire_unsent_batches);
  EXPECT_TRUE(load({"expire_unsent_batches=true"}).expire_unsent_batches);
  expect_error({"expire_unsent_batches=3"}, "expire_unsent_batches", {"true or false"});
  expect_document_error({{"expire_unsent_batches", "yes"}}, "expire_unsent_batches", {"true or false"});
  EXPECT_FALSE(to_json(load({})).contains("expire_unsent_batches"));
  EXPECT_EQ(to_json(load({"expire_unsent_batches=true"})).at("expire_unsent_batches"), true);
  EXPECT_EQ(describe_json(load({})).at("expire_unsent_batches"), false);
}

TEST(ConfigValidation, Brokers) {
  expect_error({"brokers=0"}, "brokers", {"between 1 and 10"});
  expect_error({"brokers=11"}, "brokers", {"between 1 and 10"});
  EXPECT_EQ(load({"brokers=10"}).brokers, 10);
}

TEST(ConfigValidation, ReplicationFactor) {
  expect_error({"replication_factor=5"}, "replication_factor", {"brokers", "3"});
  expect_error({"replication_factor=0"}, "replication_factor", {"between 1 and 3"});
  expect_error({"brokers=10", "replication_factor=8"}, "replication_factor",
               {"between 1 and 7"});
  const Config c = load({"brokers=5", "replication_factor=5"});
  EXPECT_EQ(c.replication_factor, 5);
}

TEST(ConfigValidation, MinInsyncReplicas) {
  expect_error({"min_insync_replicas=0"}, "min_insync_replicas", {"between 1 and 3"});
  expect_error({"min_insync_replicas=4"}, "min_insync_replicas", {"replication_factor"});
  EXPECT_EQ(load({"min_insync_replicas=3"}).min_insync_replicas, 3);
}

TEST(ConfigValidation, Flush) {
  expect_error({"flush=always"}, "flush", {"\"none\"", "\"every-append\""});
}

TEST(ConfigValidation, Controller) {
  expect_error({"controller.placement=shared"}, "controller.placement",
               {"\"combined\"", "\"dedicated\""});
  expect_error({"controller.voters=4"}, "controller.voters", {"between 1 and 3"});
  expect_error({"controller.voters=0"}, "controller.voters", {"between 1"});
  expect_error({"controller.placement=dedicated", "controller.voters=8"}, "controller.voters",
               {"between 1 and 7"});
  expect_error({"brokers=10", "controller.placement=dedicated"}, "controller.placement",
               {"combined"});
  const Config c = load({"controller.placement=dedicated", "controller.voters=7"});
  EXPECT_EQ(c.nodes(), kMaxNodes);
  EXPECT_TRUE(c.is_voter(3));
  EXPECT_FALSE(c.is_voter(2));
}

TEST(ConfigValidation, VotersDefaultToWhatFits) {
  const Config one = load({"brokers=1", "replication_factor=1", "min_insync_replicas=1"});
  EXPECT_EQ(one.controller.voters, 1);
  const Config many = load({"brokers=8", "controller.placement=dedicated"});
  EXPECT_EQ(many.controller.voters, 2);
  EXPECT_EQ(many.nodes(), kMaxNodes);
}

TEST(ConfigValidation, FaultBudgets) {
  expect_error({"faults.max_crashes=-1"}, "faults.max_crashes", {"between 0"});
  expect_error({"faults.max_network_cuts=-1"}, "faults.max_network_cuts", {"between 0"});
  expect_error({"faults.max_crashes=1", "faults.max_lossy_crashes=2"},
               "faults.max_lossy_crashes", {"max_crashes"});
  expect_error({"faults.max_crashes=1", "faults.max_disk_losses=2"}, "faults.max_disk_losses",
               {"max_crashes"});
  expect_error({"faults.max_crashes=1", "faults.max_clean_shutdowns=2"},
               "faults.max_clean_shutdowns", {"max_crashes"});
  expect_error({"faults.max_lossy_crashes=-1"}, "faults.max_lossy_crashes", {"between 0"});
  const Config c = load({"faults.max_crashes=2", "faults.max_lossy_crashes=2",
                         "faults.max_disk_losses=1", "faults.max_clean_shutdowns=2",
                         "faults.max_network_cuts=3"});
  EXPECT_EQ(c.faults.max_network_cuts, 3);
  EXPECT_EQ(c.faults.max_clean_shutdowns, 2);
}

TEST(ConfigValidation, KindsOfCrashNotGivenFollowTheCrashBudget) {
  const Config none = load({"faults.max_crashes=0"});
  EXPECT_EQ(none.faults.max_crashes, 0);
  EXPECT_EQ(none.faults.max_lossy_crashes, 0);
  EXPECT_EQ(none.faults.max_disk_losses, 0);
  EXPECT_EQ(none.faults.max_clean_shutdowns, 0);
  const Config more = load({"faults.max_crashes=3"});
  EXPECT_EQ(more.faults.max_lossy_crashes, FaultBudget{}.max_lossy_crashes)
      << "a larger crash budget does not raise the kinds";
  expect_error({"faults.max_crashes=0", "faults.max_lossy_crashes=1"},
               "faults.max_lossy_crashes", {"max_crashes"});
}

TEST(ConfigValidation, Bounds) {
  expect_error({"bounds.max_records=0"}, "bounds.max_records", {"between 1 and 6"});
  expect_error({"bounds.max_records=7"}, "bounds.max_records", {"between 1 and 6"});
  expect_error({"bounds.max_leader_epoch=0"}, "bounds.max_leader_epoch", {"between 1 and 14"});
  expect_error({"bounds.max_leader_epoch=15"}, "bounds.max_leader_epoch",
               {"between 1 and 14"});
  expect_error({"bounds.max_partition_epoch=15"}, "bounds.max_partition_epoch",
               {"between 1 and 14"});
  expect_error({"bounds.max_retries=11"}, "bounds.max_retries", {"between 0 and 10"});
  expect_error({"bounds.max_retries=-1"}, "bounds.max_retries", {"between 0 and 10"});
  expect_error({"bounds.max_leader_moves=-1"}, "bounds.max_leader_moves", {"between 0"});
  EXPECT_EQ(load({"bounds.max_leader_moves=2"}).bounds.max_leader_moves, 2);
  EXPECT_EQ(load({"bounds.max_records=6"}).bounds.max_records, kMaxRecords);
  static_assert(kMaxRecords <= kMaxLog, "every record must fit a log");
}

TEST(ConfigValidation, UnknownPropertyListsTheValidNames) {
  expect_error({"properties=no-acked-loss,bogus"}, "properties",
               {"\"bogus\"", "no-acked-loss"});
}

// A property named explicitly must apply to the configuration. Which properties depend
// on the configuration is the catalog's business, so look for one that does not apply
// under some configuration rather than assume which.
TEST(ConfigValidation, InapplicablePropertyIsAnError) {
  const std::vector<std::vector<std::string>> configurations = {
      {},
      {"idempotence=false"},
      {"protocol=hw-truncation"},
      {"eligible_leader_replicas=false"},
      {"consumer=false"},
      {"acks=0"},
  };
  int checked = 0;
  for (const auto& overrides : configurations) {
    const Config c = load(overrides);
    for (const auto& p : properties::catalog()) {
      if (p.applies(c)) continue;
      auto with_property = overrides;
      with_property.push_back("properties=" + std::string(p.name));
      expect_error(with_property, "properties", {std::string(p.name), "does not apply"});
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << "no property depends on the configuration";
}

// ---- JSON round trip ---------------------------------------------------------------------

TEST(ConfigJson, PrintsEveryKeyWithStableNames) {
  const json j = to_json(default_config());
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "acks", "async_fetch_responses", "bounds", "brokers", "consumer",
                      "controller", "eligible_leader_replicas", "faults", "fixes", "flush",
                      "idempotence", "min_insync_replicas", "properties", "protocol",
                      "replication_factor", "unclean_leader_election"}));
  EXPECT_EQ(j["acks"], "all");
  EXPECT_EQ(j["protocol"], "kip-966");
  EXPECT_EQ(j["flush"], "none");
  EXPECT_EQ(j["controller"]["placement"], "combined");
  EXPECT_EQ(j["fixes"].size(), all_fixes().size());
  EXPECT_EQ(j["faults"].size(), 6u);  // + max_lost_produce_responses
  EXPECT_EQ(j["bounds"].size(), 5u);
  EXPECT_EQ(load({"acks=1"}).acks, Acks::One);
  EXPECT_EQ(to_json(load({"acks=1"}))["acks"], "1");
  EXPECT_EQ(to_json(load({"acks=0"}))["acks"], "0");
}

TEST(ConfigJson, RoundTrip) {
  expect_round_trip(default_config());
  expect_round_trip(load({"protocol=kip-320", "acks=1", "flush=every-append"}));
  expect_round_trip(load({"controller.placement=dedicated", "brokers=4",
                          "fixes.last_known_elr=false", "faults.max_crashes=2",
                          "faults.max_disk_losses=1", "faults.max_network_cuts=1",
                          "bounds.max_retries=0", "idempotence=true", "consumer=false",
                          "unclean_leader_election=true", "eligible_leader_replicas=false"}));
  const auto names = applicable(default_config());
  expect_round_trip(load({"properties=" + names.back()}));
}

// Random valid configurations survive to_json -> load_config unchanged.
RC_GTEST_PROP(ConfigJson, RandomConfigurationsRoundTrip, ()) {
  std::vector<std::string> overrides;
  const int brokers = *rc::gen::inRange(1, kMaxNodes + 1);
  const int rf = *rc::gen::inRange(1, std::min(brokers, kMaxReplicas) + 1);
  const Protocol protocol = *rc::gen::elementOf(all_protocols());
  const bool dedicated = brokers < kMaxNodes && *rc::gen::arbitrary<bool>();
  const int max_crashes = *rc::gen::inRange(0, 4);
  overrides.push_back("brokers=" + std::to_string(brokers));
  overrides.push_back("replication_factor=" + std::to_string(rf));
  overrides.push_back("min_insync_replicas=" + std::to_string(*rc::gen::inRange(1, rf + 1)));
  const std::string acks = *rc::gen::element<std::string>("0", "1", "all", "-1");
  overrides.push_back("acks=" + acks);
  overrides.push_back("protocol=" + std::string(protocol_name(protocol)));
  if (protocol < Protocol::Kip966 || *rc::gen::arbitrary<bool>()) {
    overrides.push_back("eligible_leader_replicas=false");
  }
  for (const auto& fix : all_fixes()) {
    if (*rc::gen::inRange(0, 4) == 0) {
      overrides.push_back("fixes." + std::string(fix.name) + "=" +
                          (*rc::gen::arbitrary<bool>() ? "true" : "false"));
    }
  }
  if (dedicated) {
    overrides.push_back("controller.placement=dedicated");
    overrides.push_back("controller.voters=" +
                        std::to_string(*rc::gen::inRange(1, kMaxNodes - brokers + 1)));
  } else {
    overrides.push_back("controller.voters=" + std::to_string(*rc::gen::inRange(1, brokers + 1)));
  }
  overrides.push_back("faults.max_crashes=" + std::to_string(max_crashes));
  overrides.push_back("faults.max_lossy_crashes=" +
                      std::to_string(*rc::gen::inRange(0, max_crashes + 1)));
  overrides.push_back("faults.max_network_cuts=" + std::to_string(*rc::gen::inRange(0, 3)));
  overrides.push_back("bounds.max_records=" +
                      std::to_string(*rc::gen::inRange(1, kMaxRecords + 1)));
  overrides.push_back("bounds.max_leader_epoch=" +
                      std::to_string(*rc::gen::inRange(1, kMaxEpoch)));
  overrides.push_back("bounds.max_leader_moves=" + std::to_string(*rc::gen::inRange(0, 3)));
  // Kafka's producer allows idempotence only with acks=all (validated, exit 2 otherwise).
  const bool acks_all = acks == "all" || acks == "-1";
  overrides.push_back("idempotence=" + std::string(acks_all && *rc::gen::arbitrary<bool>() ? "true" : "false"));
  overrides.push_back("flush=" + *rc::gen::element<std::string>("none", "every-append"));
  overrides.push_back("async_fetch_responses=" +
                      std::string(*rc::gen::arbitrary<bool>() ? "true" : "false"));

  const Config c = load(overrides);
  const json printed = to_json(c);
  const Config back = load_config(&printed, {});
  RC_ASSERT(to_json(back) == printed);
  RC_ASSERT(same_fixes(back.fixes, c.fixes));
  RC_ASSERT(back.properties == c.properties);
  RC_ASSERT(back.nodes() == c.nodes());
  RC_ASSERT(c.brokers == brokers);
  RC_ASSERT(c.protocol == protocol);
}

// ---- files -----------------------------------------------------------------------------

class ConfigFile : public ::testing::Test {
 protected:
  // Per process: ctest runs the tests of this fixture in parallel.
  std::string path_ =
      ::testing::TempDir() + "isrcheck_config_test_" + std::to_string(getpid()) + ".json";
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
};

TEST_F(ConfigFile, ReadsJson) {
  write(R"({"brokers": 4, "controller": {"placement": "dedicated"}})");
  const json doc = io::files::read_config_file(path_);
  const Config c = load_config(&doc, {});
  EXPECT_EQ(c.brokers, 4);
  EXPECT_EQ(c.nodes(), 7);
}

TEST_F(ConfigFile, MissingFileNamesTheOption) {
  try {
    io::files::read_config_file(path_ + ".missing");
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field, "--config");
    EXPECT_NE(std::string(e.what()).find(".missing"), std::string::npos) << e.what();
  }
}

TEST_F(ConfigFile, InvalidJsonNamesTheOption) {
  write("{\"brokers\": ");
  try {
    io::files::read_config_file(path_);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field, "--config");
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace isr::spec
