// Running one scenario against a real cluster and comparing every observation with the
// model's prediction, which the scenario carries (`expect`, `expect_record`, each wait's
// `until`, `expected`). Used by `isrcheck conform` (cli/cmd_conform.cc).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/kafka_session.h"

namespace isr::conformance {

enum class Verdict { Conforms, Diverges, NotExecutable, Interrupted, Error };
const char* verdict_name(Verdict v);

struct ConformResult {
  std::string name;
  Verdict verdict = Verdict::Error;
  int step = 0;                 // the diverging step (0: the initial state; -1: the end)
  std::string step_text;        // "step 3 (wait)"
  std::string expected, observed;  // one line each
  std::vector<std::string> side_by_side;  // "field | expected | observed"
  std::string reason;           // not executable / error / interrupted
  std::vector<std::string> steered;  // the steering plan's lines
  std::vector<std::string> notes;    // what the adapter did besides the operations
  int steps_run = 0;
  double setup_seconds = 0, run_seconds = 0;
  bool new_cluster = false;
  std::string work_dir;
  // The recorded execution (counterexamples/scenario/recording.h, docs/recording.md): the
  // header and one JSON object per event, in the order the harness performed them; filled
  // in as the run goes, so an interrupted or diverging run keeps what it did.
  nlohmann::json recording_header;
  std::vector<nlohmann::json> recording;
  nlohmann::json to_json() const;
};

// Runs `scenario` (isrcheck-scenario v1, checked first by validate_scenario,
// counterexamples/scenario/scenario_validation.h) on `session`. Never throws for what the
// cluster does; Interrupted propagates (the caller reports it) after the result is filled in.
ConformResult run_scenario(KafkaSession& session, const nlohmann::json& scenario, ConformResult* partial = nullptr);

}  // namespace isr::conformance
