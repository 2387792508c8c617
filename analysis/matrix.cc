// The configuration matrix's sweep (see matrix.h): the cells of a sweep, their names,
// and the configuration each cell (and each copies-lost search of a row) checks. The
// other jobs have their own files: checking a cell (matrix_cell.cc), the copies-lost
// column (matrix_copies_lost.cc), the on-disk cache (matrix_cache.cc), running it all in
// parallel (matrix_runner.cc) and the reports (matrix_report.cc).
#include "analysis/matrix.h"

#include <string>
#include <vector>

#include "analysis/matrix_cell.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

std::string_view placement_text(spec::Placement p) {
  return p == spec::Placement::Combined ? "combined" : "dedicated";
}

}  // namespace

std::string MatrixCell::id() const {
  std::string s = "rf" + std::to_string(replication_factor) + "-isr" + std::to_string(min_isr) +
                  "-acks" + std::string(spec::acks_name(acks)) + (unclean ? "-unclean" : "-clean") +
                  (elr ? "-elr" : "-noelr") + "-" + std::string(placement_text(placement)) + "-f" +
                  std::to_string(failures);
  if (lossy) s += "-lossy";
  return s;
}

std::string MatrixCell::label() const {
  std::string s = "RF " + std::to_string(replication_factor) + ", min ISR " + std::to_string(min_isr) +
                  ", acks=" + std::string(spec::acks_name(acks)) + ", unclean " + (unclean ? "on" : "off") +
                  ", ELR " + (elr ? "on" : "off") + ", " + std::string(placement_text(placement)) + ", ";
  if (failures == 0) return s + "no failure";
  s += std::to_string(failures) + (lossy ? " lossy" : "") + (failures == 1 ? " failure" : " failures");
  return s;
}

std::string MatrixCell::row_id() const {
  return "rf" + std::to_string(replication_factor) + "-isr" + std::to_string(min_isr) + "-acks" +
         std::string(spec::acks_name(acks)) + (unclean ? "-unclean" : "-clean") + (elr ? "-elr" : "-noelr") + "-" +
         std::string(placement_text(placement));
}

std::string MatrixCell::row_label() const {
  return "RF " + std::to_string(replication_factor) + ", min ISR " + std::to_string(min_isr) +
         ", acks=" + std::string(spec::acks_name(acks)) + ", unclean " + (unclean ? "on" : "off") + ", ELR " +
         (elr ? "on" : "off") + ", " + std::string(placement_text(placement));
}

MatrixDimensions default_matrix_dimensions() {
  MatrixDimensions d;
  d.replication_factors = {1, 2, 3};
  d.min_isr = {};
  d.acks = {spec::Acks::All, spec::Acks::One};
  d.unclean = {false, true};
  d.elr = {true, false};
  d.placements = {spec::Placement::Combined};
  d.failures = {0, 1, 2};
  d.lossy = {false, true};
  return d;
}

std::vector<MatrixCell> expand_matrix(const MatrixDimensions& d) {
  std::vector<MatrixCell> cells;
  for (int rf : d.replication_factors) {
    std::vector<int> min_isrs = d.min_isr;
    if (min_isrs.empty()) {
      for (int m = 1; m <= rf; ++m) min_isrs.push_back(m);
    }
    std::vector<int> failures = d.failures;
    if (failures.empty()) {
      for (int f = 0; f <= rf; ++f) failures.push_back(f);
    }
    for (int min_isr : min_isrs) {
      if (min_isr > rf) continue;
      for (spec::Acks acks : d.acks) {
        for (bool unclean : d.unclean) {
          for (bool elr : d.elr) {
            for (spec::Placement placement : d.placements) {
              for (int f : failures) {
                if (f > rf) continue;
                bool lossy_done[2] = {false, false};
                for (bool lossy : d.lossy) {
                  const bool effective = f > 0 && lossy;
                  if (lossy_done[effective]) continue;  // f = 0: one configuration
                  lossy_done[effective] = true;
                  cells.push_back(MatrixCell{rf, min_isr, acks, unclean, elr, placement, f, effective});
                }
              }
            }
          }
        }
      }
    }
  }
  return cells;
}

const std::vector<std::string>& matrix_controlled_keys() {
  static const std::vector<std::string> keys = {
      "brokers", "replication_factor", "min_insync_replicas", "acks", "unclean_leader_election",
      "eligible_leader_replicas", "controller.placement", "faults", "consumer", "properties"};
  return keys;
}

namespace {

// A cell's configuration document with the fault budget `faults`, then the overrides.
spec::Config cell_config_with(const json& base, const std::vector<std::string>& overrides, const MatrixCell& cell,
                              const json& faults) {
  for (const std::string& o : overrides) {
    const std::string key = o.substr(0, o.find('='));
    for (const std::string& controlled : matrix_controlled_keys()) {
      if (key == controlled || key.starts_with(controlled + ".")) {
        std::string all;
        for (const auto& k : matrix_controlled_keys()) all += (all.empty() ? "" : ", ") + k;
        throw spec::ConfigError("--set", "\"" + key +
                                             "\" is set by the matrix for each cell (swept with --rf, "
                                             "--min-isr, --acks, --unclean, --elr, --placement, "
                                             "--failures, --lossy); the keys it sets: " + all);
      }
    }
  }
  json doc = base.is_object() ? base : json::object();
  doc["brokers"] = cell.replication_factor;
  doc["replication_factor"] = cell.replication_factor;
  doc["min_insync_replicas"] = cell.min_isr;
  doc["acks"] = std::string(spec::acks_name(cell.acks));
  doc["unclean_leader_election"] = cell.unclean;
  doc["eligible_leader_replicas"] = cell.elr;
  if (!doc.contains("controller") || !doc["controller"].is_object()) doc["controller"] = json::object();
  doc["controller"]["placement"] = std::string(placement_text(cell.placement));
  // The voter count follows the placement (three, fewer when combined on fewer nodes)
  // unless the base names it.
  doc["faults"] = faults;
  doc["consumer"] = false;
  doc["properties"] = json::array({kMatrixLossProperty, kMatrixGoneProperty});
  return spec::load_config(&doc, overrides);
}

}  // namespace

spec::Config matrix_cell_config(const json& base, const std::vector<std::string>& overrides,
                                const MatrixCell& cell) {
  return cell_config_with(base, overrides, cell,
                          json{{"max_crashes", cell.failures},
                               {"max_lossy_crashes", cell.lossy ? cell.failures : 0},
                               {"max_disk_losses", 0},
                               {"max_clean_shutdowns", 0},
                               {"max_network_cuts", 0}});
}

spec::Config copies_lost_config(const json& base, const std::vector<std::string>& overrides, const MatrixCell& row,
                                int copies) {
  MatrixCell cell = row;
  cell.failures = copies;
  cell.lossy = true;
  // Every stop may be either kind of copy loss; kills and clean stops are held back by
  // the search (VerifyOptions::only_copy_losses), not by the budget, which has no such key.
  return cell_config_with(base, overrides, cell,
                          json{{"max_crashes", copies},
                               {"max_lossy_crashes", copies},
                               {"max_disk_losses", copies},
                               {"max_clean_shutdowns", 0},
                               {"max_network_cuts", 0}});
}

}  // namespace isr::analysis
