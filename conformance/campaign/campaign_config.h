// The configuration of a fault campaign (`isrcheck campaign`, docs/campaign.md): the
// Kafka settings under test (acks, min.insync.replicas, unclean election; always 3 nodes
// that are brokers and controller voters, replication factor 3) and the shape of the
// seeded fault schedule (how many records per run, how often a fault starts, its kinds
// and their weights, how long one lasts, the real-time gaps between operations).
//
// Read from a JSON object (--config F) with `--set key=value` overrides on top; every
// bad field is an io::ConfigError naming it and what is allowed (exit 2).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::conformance::campaign {

// The fault kinds a schedule draws from, in a fixed order (their weights' order).
enum class FaultKind { Kill, Clean, Pause, CutBrokers, CutQuorum, CutClients };
inline constexpr std::array<const char*, 6> kFaultKindNames = {"kill", "clean", "pause",
                                                               "cut_brokers", "cut_quorum", "cut_clients"};
inline constexpr int kNodes = 3;       // brokers and combined controller voters
inline constexpr int kMaxRecordsPerRun = 6;  // the partition model's producer limit (spec/partition/config.h)

struct CampaignConfig {
  std::string acks = "all";          // "all" or "1"
  int min_insync_replicas = 2;
  bool unclean_leader_election = false;
  int records = 6;                   // records sent per run, 1..6
  int fault_percent = 60;            // chance (percent) that a fault starts before a send
  int max_faults = 3;                // faults started per run
  int max_concurrent = 1;            // nodes under a fault at once (1 or 2)
  int fault_sends_min = 1;           // a fault lasts this many sends ...
  int fault_sends_max = 3;           // ... up to this many
  int gap_ms_min = 0;                // real time slept before each operation ...
  int gap_ms_max = 1500;             // ... up to this
  int quiet_ms = 3000;               // after the last heal, before the settle wait
  int settle_timeout_ms = 30000;     // the bounded wait for a settled cluster at the end
  // broker.session.timeout.ms; 0: the driver's lowered 1500 ms (PROTOCOL.md). On a loaded
  // machine a live broker's heartbeats come late and it is fenced with no fault injected
  // (docs/validation.md, campaigns): a longer session avoids that, and fences a killed
  // broker later.
  int session_timeout_ms = 0;
  std::array<int, 6> weights = {3, 2, 2, 2, 1, 1};  // per FaultKind, relative
};

// Every key `campaign` accepts, for messages.
std::vector<std::string> campaign_keys();

// Parses `document` (null: defaults) with `overrides` ("key=value", dotted: faults.kill=3).
// Throws io::ConfigError naming the field and the allowed values.
CampaignConfig load_campaign_config(const nlohmann::json* document, const std::vector<std::string>& overrides);

nlohmann::json to_json(const CampaignConfig& c);

// "acks=all min.isr=2 unclean=off": the configuration under test, for progress lines.
std::string short_name(const CampaignConfig& c);

}  // namespace isr::conformance::campaign
