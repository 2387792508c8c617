// What `isrcheck check` says before and after its figures, for a person who has just
// run it: the configuration in Kafka's terms (brokers, replication factor, min ISR,
// acks, unclean election, ELR, controller placement, protocol, faults, bounds), the
// properties with their one-line descriptions, what a HOLDS verdict covers (only these
// bounds) and, with --explain, what each figure means. Built from the model's resolved
// configuration JSON (what `describe` prints), so it serves every --model alike.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::cli {

// Lines starting "checked: ...": the configuration of `config` (a model's config_json())
// in Kafka terms. Keys the model does not have are left out.
std::string kafka_terms_summary(const nlohmann::json& config, std::string_view model_name);

// "properties checked: a, b, c" and then one indented "name  description" line each.
std::string properties_summary(const std::vector<std::pair<std::string, std::string>>& properties);

// What "bounds reached" means for the verdict, after the list of bound names.
std::string bounds_reached_summary(const std::vector<std::string>& bounds_reached, bool holds);

// After a search over every reachable state that holds, each switch or budget the
// configuration sets whose feature no state used (the model's unused_switches over the
// engine's usage bits, checker/hooks.h; spec/partition/usage.h): a line each on `out`
// ("unused: unclean_leader_election=true: no unclean election happened ...; raise
// faults.max_crashes to 2") and report["unused_switches"] as [{"setting", "never",
// "enable"}] (enable null when no single change is known). Nothing for a model without
// the hook, an engine that does not record it, or a search that stopped early.
template <class M, class R>
void unused_switches_report(const M& model, const R& result, bool complete, std::ostream& out,
                            nlohmann::json& report) {
  if constexpr (requires { model.unused_switches(result.usage_mask); }) {
    if (!result.usage_recorded || !complete) return;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& u : model.unused_switches(result.usage_mask)) {
      out << "unused: " << u.setting << ": " << u.never;
      if (!u.enable.empty()) out << "; " << u.enable;
      out << "\n";
      list.push_back({{"setting", u.setting},
                      {"never", u.never},
                      {"enable", u.enable.empty() ? nlohmann::json(nullptr) : nlohmann::json(u.enable)}});
    }
    report["unused_switches"] = list;
  } else {
    (void)model, (void)result, (void)complete, (void)out, (void)report;
  }
}

// --explain: what generated and distinct states, depth, the memory figures and the
// fingerprint collision estimate mean (docs/checker.md has the long version).
std::string figures_explained();

}  // namespace isr::cli
