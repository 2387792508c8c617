// `isrcheck simulate --stats` (docs/simulate.md, "How often: --stats"): random walks
// under a fault schedule (checker/walk/fault_walks.h), and per property and per class of
// mechanism the share of walks that violate it with its 95% Wilson interval, the acked
// records lost per violating walk and the steps to the first violation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "checker/walk/fault_walks.h"
#include "cli/commands.h"
#include "cli/run_support.h"

namespace isr::cli {

// The schedule when --rate does not say otherwise: per step, the probability of each
// fault kind the model has (docs/simulate.md). Restarts, heals and resumes are ordinary
// actions, taken uniformly with the rest.
inline const std::map<std::string, double, std::less<>>& default_fault_rates() {
  static const std::map<std::string, double, std::less<>> rates = {
      {"Crash", 0.01}, {"Cut", 0.005}, {"Pause", 0.005}, {"SessionExpiry", 0.005}};
  return rates;
}

// The defaults for the kinds `model` has, overridden by each "KIND=P" of --rate. Bad
// input is a UsageError naming --rate and the key.
template <checker::Model M>
std::map<std::string, double, std::less<>> fault_rates(const M& model, const std::vector<std::string>& overrides) {
  std::map<std::string, double, std::less<>> rates;
  const std::vector<std::string_view> kinds = model.action_kinds();
  for (const auto& [kind, rate] : default_fault_rates()) {
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) rates[kind] = rate;
  }
  for (const std::string& item : overrides) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--rate", "\"" + item + "\" must be KIND=P, e.g. Crash=0.01 (P: a probability per step)");
    }
    const std::string kind = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    double rate = -1;
    try {
      size_t used = 0;
      rate = std::stod(value, &used);
      if (used != value.size()) rate = -1;
    } catch (const std::exception&) {
      rate = -1;
    }
    if (!(rate >= 0 && rate <= 1)) {
      throw UsageError("--rate", kind + ": \"" + value + "\" is not a probability per step in [0, 1]");
    }
    rates[kind] = rate;
  }
  if (auto error = checker::validate_rates(model, rates)) throw UsageError("--rate", *error);
  return rates;
}

inline std::string percent(double share) { return fixed(100 * share, 2) + "%"; }

inline nlohmann::json share_json(uint64_t k, uint64_t n) {
  const auto [low, high] = checker::wilson_interval(k, n);
  return {{"walks", k}, {"of", n}, {"share", n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n)},
          {"wilson95", {low, high}}};
}

inline std::string share_text(uint64_t k, uint64_t n) {
  const auto [low, high] = checker::wilson_interval(k, n);
  const double share = n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n);
  return std::to_string(k) + " of " + std::to_string(n) + " walks, " + percent(share) + " [95% CI " + percent(low) +
         ", " + percent(high) + "]";
}

// min, median, 90th percentile, max and mean of a histogram (value i counted h[i] times).
inline nlohmann::json distribution_json(const std::vector<uint64_t>& h) {
  uint64_t n = 0;
  double sum = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    n += h[i];
    sum += static_cast<double>(i) * static_cast<double>(h[i]);
  }
  if (n == 0) return nlohmann::json::object();
  auto quantile = [&](double q) {
    const uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(n - 1));
    uint64_t seen = 0;
    for (size_t i = 0; i < h.size(); ++i) {
      seen += h[i];
      if (seen > rank) return i;
    }
    return h.size() - 1;
  };
  size_t min = 0;
  while (h[min] == 0) ++min;
  size_t max = h.size() - 1;
  while (h[max] == 0) --max;
  return {{"min", min}, {"median", quantile(0.5)}, {"p90", quantile(0.9)}, {"max", max},
          {"mean", sum / static_cast<double>(n)}};
}

inline std::string distribution_text(const nlohmann::json& d) {
  if (d.empty()) return "-";
  std::ostringstream s;
  s << "min " << d["min"].get<size_t>() << ", median " << d["median"].get<size_t>() << ", p90 "
    << d["p90"].get<size_t>() << ", max " << d["max"].get<size_t>() << ", mean " << fixed(d["mean"].get<double>(), 1);
  return s.str();
}

// Prints the figures to `out` and adds them to `report`.
// At most `max_classes` classes per property are printed (0: all); --json has them all.
inline void report_fault_stats(const checker::FaultWalkStats& s, uint64_t depth, unsigned threads,
                               const std::function<std::string(const std::vector<uint32_t>&)>& explain,
                               size_t max_classes, std::ostream& out, nlohmann::json& report) {
  using nlohmann::json;
  const uint64_t n = s.walks_completed;
  out << "walks: " << n << " of " << s.walks_requested << ", " << depth << " steps each, " << threads << " thread"
      << (threads == 1 ? "" : "s") << "; " << s.steps << " actions and " << s.idle_steps
      << " idle steps (settled, no fault drawn) in " << fixed(s.seconds, 2) << " s; " << s.deadlocks
      << " walks ended with nothing enabled\n";
  out << "fault schedule, probability per step (faults taken):";
  json faults = json::array();
  for (const auto& f : s.faults) {
    out << " " << f.kind << " " << f.rate << " (" << f.taken << ")";
    faults.push_back({{"kind", f.kind}, {"rate_per_step", f.rate}, {"taken", f.taken}});
  }
  out << (s.faults.empty() ? " none\n" : "\n");
  // Records lost are the partition model's measure (its labeler); other models have none.
  out << "per property: walks violating it (share, 95% Wilson interval); steps to the first violation"
      << (explain ? "; acked records lost per violating walk" : "") << "\n";
  size_t width = 0;
  for (const auto& p : s.properties) width = std::max(width, p.property.size());
  json properties = json::array();
  for (const auto& p : s.properties) {
    const json steps = distribution_json(p.first_step);
    const json lost = distribution_json(p.measure);
    out << "  " << p.property << std::string(width + 2 - p.property.size(), ' ') << share_text(p.violating_walks, n);
    if (p.violating_walks > 0) {
      out << "; first at step " << distribution_text(steps);
      if (!lost.empty()) out << "; lost " << distribution_text(lost);
    }
    out << "\n";
    json entry = share_json(p.violating_walks, n);
    entry["property"] = p.property;
    entry["first_violation_step"] = steps;
    entry["records_lost"] = lost;
    entry["records_lost_histogram"] = p.measure;
    properties.push_back(std::move(entry));
  }
  json classes = json::array();
  size_t current = s.properties.size();
  size_t shown = 0;
  for (const auto& c : s.classes) {
    if (c.property != current) {
      current = c.property;
      shown = 0;
      size_t count = 0;
      for (const auto& other : s.classes) count += other.property == current;
      out << "classes of " << s.properties[current].property << ": " << count
          << " (the mechanism on each violating walk up to its first violation; docs/research.md)";
      if (max_classes != 0 && count > max_classes) out << ", the " << max_classes << " most frequent shown (--max-classes)";
      out << "\n";
    }
    const std::string explanation = explain ? explain(c.signature) : std::string();
    if (max_classes == 0 || shown++ < max_classes) {
      out << "  " << share_text(c.walks, n) << "  " << c.key << "\n";
      if (!explanation.empty()) out << "    " << explanation << "\n";
    }
    json entry = share_json(c.walks, n);
    entry["property"] = s.properties[c.property].property;
    entry["signature"] = c.key;
    entry["explanation"] = explanation;
    entry["first_walk"] = c.first_walk;
    classes.push_back(std::move(entry));
  }
  report["stats"] = {{"walks_requested", s.walks_requested},
                     {"walks_completed", n},
                     {"steps", s.steps},
                     {"idle_steps", s.idle_steps},
                     {"deadlocks", s.deadlocks},
                     {"seconds", s.seconds},
                     {"faults", faults},
                     {"properties", properties},
                     {"classes", classes}};
}

}  // namespace isr::cli
