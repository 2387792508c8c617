// The HTML timelines of a fault campaign (`isrcheck campaign`, docs/campaign.md): one
// page per run, drawn from its recording (docs/recording.md), and one for the campaign.
//
// A run's page: its figures and verdict; a lane chart (inline SVG) with a lane per node
// (down, paused, cut from a side; leader and ISR/ELR membership at each sample) and one
// for the producer (each send coloured by its outcome), time on the x axis; and the
// event table: every fault, client call, sample and observation with the partition
// (leader, epoch, ISR, ELR, HW) and each broker's LEO and view as that event saw it, a
// changed value marked. For an unexplained run, the event where the model and Kafka part
// is marked in both, with what differed. Offline: no script, style sheet or font is
// fetched; every text from the recording is escaped.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::analysis {

// `summary`: the run's figures as conformance::campaign::RunResult::summary() gives them
// (faults_injected, acked, lost, read_back, settled, validation {verdict, event_seq, why,
// differences, ...}).
std::string render_run_timeline(const nlohmann::json& header, const std::vector<nlohmann::json>& events,
                                const nlohmann::json& summary);

// `campaign`: {config, seed, kafka_version, runs: [summary with "page": file name], totals}.
std::string render_campaign_page(const nlohmann::json& campaign);

}  // namespace isr::analysis
