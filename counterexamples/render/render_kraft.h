// The KRaft quorum's words, shared by the renderings of KRaft traces (render_kraft.cc)
// and of the composed cluster model's "quorum" section (render_cluster.cc): the per-voter
// table, what changed at a voter (elections, votes, appends, truncations, HW) and the
// history the KRaft properties judge. Reads the JSON of spec/kraft/kraft_describe.cc.
#pragma once

#include <string>
#include <vector>

#include "counterexamples/render/render_model.h"
#include "spec/common/state_words.h"

namespace isr::counterexamples {

// How a voter is named and its log entries read. KRaft traces say "voter 2" and
// "1:N0 3:N0"; the cluster model names the KRaft leader as the controller and shows the
// metadata record each entry carries.
struct KraftVoterWords {
  // The subject of a phrase about this voter, without ": " ("voter 2").
  std::string (*subject)(const nlohmann::json& voter);
  // The entries of the voter's log from `from` to its end, for people.
  std::string (*entries)(const nlohmann::json& voter, size_t from);
  // Voter fields the caller adds and explains itself (not shown as "path: a -> b").
  std::vector<std::string> own_keys;
};

// A KRaft log entry ("2:N1") and a voter's log with its HW (spec/common/state_words.h).
using properties::kraft_entry;
using properties::kraft_log;

// One row per voter: process, role, epoch, vote, leader, log, HW, leader state.
std::vector<Column> kraft_columns(const nlohmann::json& steps);

// What changed at each voter of `after_voters` (arrays of voter JSON, same length).
void kraft_voter_changes(const nlohmann::json& before_voters, const nlohmann::json& after_voters,
                         const KraftVoterWords& words, std::vector<std::string>& out);
// Two leaders elected in one epoch (from the quorum's "history").
void kraft_election_changes(const nlohmann::json& before_history, const nlohmann::json& after_history,
                            std::vector<std::string>& out);

// The quorum's history for people: "elected epoch 1 N2; committed 1:N2 (in epoch 1)".
std::string kraft_history_text(const nlohmann::json& history);
// A few lines per voter and the committed entries (the dot renderer's boxes).
std::string kraft_node_lines(const nlohmann::json& quorum_state);
// Why `property` (a KRaft property) fails in the quorum state, or "" if not known.
std::string kraft_violation_reason(const std::string& property, const nlohmann::json& quorum_state);

}  // namespace isr::counterexamples
