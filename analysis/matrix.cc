// The configuration matrix: the sweep, the configuration of a cell, running cells in
// parallel and the on-disk cache (see matrix.h).
#include "analysis/matrix.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "analysis/availability.h"
#include "analysis/verify.h"
#include "spec/files.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

// Bump when the meaning or the stored form of a cached cell changes.
// v2: cells also check no-committed-loss-globally (Durability::DataGone).
constexpr std::string_view kCacheFormat = "isrcheck-matrix-cache-v2";

std::string_view placement_text(spec::Placement p) {
  return p == spec::Placement::Combined ? "combined" : "dedicated";
}

std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A fingerprint of the running executable: any rebuild that changes the model changes it.
std::string executable_fingerprint() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) return "unknown-executable";
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) XXH3_64bits_update(state, buffer.data(), static_cast<size_t>(got));
  }
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return hex64(hash);
}

// How failures are placed for the availability analysis: brokers only, so that in
// dedicated placement the voters survive (the point of that placement); in combined
// placement every node is a broker anyway.
constexpr const char* kFailingNodes = "brokers";
// What a cell's durability checks: acked loss (red), and data on no replica (DataGone).
constexpr const char* kLossProperty = "no-acked-loss";
constexpr const char* kGoneProperty = "no-committed-loss-globally";

std::string cache_key(const json& config, const MatrixOptions& options, const std::string& salt) {
  std::string text;
  text += kCacheFormat;
  text += "\n";
  text += salt;
  text += "\nmax_states=" + std::to_string(options.max_states);
  text += "\navailability=" + std::string(options.availability ? kFailingNodes : "off");
  // A reduced search counts fewer states (and may finish under max_states where a full
  // one does not): its cells are cached apart.
  if (options.por) text += "\npor=on";
  text += "\n" + config.dump();
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return hex64(h.high64) + hex64(h.low64);
}

std::optional<Durability> parse_durability(std::string_view name) {
  for (Durability d : {Durability::NoAckedLoss, Durability::AckedLoss, Durability::Incomplete, Durability::DataGone}) {
    if (durability_name(d) == name) return d;
  }
  return std::nullopt;
}

// What the cache stores of a cell: everything computed, nothing derived from the cell.
json computed_to_json(const CellResult& r) {
  return json{{"format", kCacheFormat},
              {"key", r.key},
              {"config", r.config},
              {"durability", durability_name(r.durability)},
              {"trace", r.trace},
              {"trace_steps", r.trace_steps},
              {"durability_states", r.durability_states},
              {"durability_seconds", r.durability_seconds},
              {"bounds_reached", r.bounds_reached},
              {"availability", r.availability},
              {"availability_witness", r.availability_witness},
              {"availability_states", r.availability_states},
              {"availability_seconds", r.availability_seconds}};
}

// False when the file is not a cache entry of this format and key (then it is recomputed).
bool computed_from_json(const json& j, CellResult& r) {
  try {
    if (j.at("format") != kCacheFormat || j.at("key") != r.key) return false;
    const auto durability = parse_durability(j.at("durability").get<std::string>());
    if (!durability) return false;
    r.durability = *durability;
    r.trace = j.at("trace");
    r.trace_steps = j.at("trace_steps").get<int>();
    r.durability_states = j.at("durability_states").get<uint64_t>();
    r.durability_seconds = j.at("durability_seconds").get<double>();
    r.bounds_reached = j.at("bounds_reached").get<std::vector<std::string>>();
    r.availability = j.at("availability").get<std::string>();
    r.availability_witness = j.at("availability_witness");
    r.availability_states = j.at("availability_states").get<uint64_t>();
    r.availability_seconds = j.at("availability_seconds").get<double>();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

std::filesystem::path cache_file(const std::string& dir, const std::string& key) {
  return std::filesystem::path(dir) / (key + ".json");
}

bool read_cache(const std::string& dir, CellResult& r) {
  std::ifstream in(cache_file(dir, r.key));
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  try {
    return computed_from_json(spec::files::parse_json(text.str()), r);
  } catch (const spec::files::InputError&) {
    return false;  // a damaged cache entry is recomputed
  }
}

// Written to a temporary name and renamed, so a concurrent reader (another job or
// another run) never sees half a file.
void write_cache(const std::string& dir, const CellResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  try {
    spec::files::write_file_atomically(cache_file(dir, r.key).string(), computed_to_json(r).dump() + "\n");
  } catch (const spec::files::InputError&) {
    // a cache that cannot be written only costs recomputation
  }
}

// Checks one cell; `interrupted` reports a search stopped by the interrupt flag (such a
// result is not cached).
void compute(const spec::Config& config, const MatrixCell& cell, const MatrixOptions& options,
             CellResult& r, bool& interrupted) {
  VerifyOptions verify_options;
  verify_options.threads = 1;
  verify_options.max_states = options.max_states;
  verify_options.interrupt = options.interrupt;
  verify_options.por = options.por;
  // One search for both properties (cell_config): a state where an acked write is on
  // no replica is usually reached before any leader serves without it. When that comes
  // first, a search for no-acked-loss alone tells an acked loss from data that is only
  // gone (no leader served without it within the bounds).
  VerifyOutcome v = verify(config, verify_options);
  Durability found = Durability::AckedLoss;
  if (v.verdict == checker::Verdict::Violated && v.property == kGoneProperty) {
    spec::Config acked_only = config;
    acked_only.properties = {std::string(kLossProperty)};
    VerifyOutcome loss = verify(acked_only, verify_options);
    if (loss.verdict == checker::Verdict::Violated) {
      v = std::move(loss);
    } else {
      if (loss.stop_reason == checker::StopReason::Interrupted) interrupted = true;
      found = Durability::DataGone;  // certain, whatever the second search concluded
    }
  }
  r.durability_states = v.distinct_states;
  r.durability_seconds = v.seconds;
  r.bounds_reached = v.bounds_reached;
  if (v.stop_reason == checker::StopReason::Interrupted) interrupted = true;
  switch (v.verdict) {
    case checker::Verdict::Holds: r.durability = Durability::NoAckedLoss; break;
    case checker::Verdict::Violated:
      r.durability = found;
      r.trace = v.trace;
      r.trace_steps = v.trace_steps;
      break;
    case checker::Verdict::Incomplete: r.durability = Durability::Incomplete; break;
  }

  if (!options.availability || interrupted) return;
  if (options.interrupt != nullptr && options.interrupt->load()) {
    interrupted = true;
    return;
  }
  AvailabilityOptions availability_options;
  availability_options.failures = cell.failures;
  availability_options.lossy = cell.lossy;
  availability_options.max_states = options.max_states == 0 ? UINT64_MAX : options.max_states;
  availability_options.failing_nodes = kFailingNodes;
  availability_options.por = options.por;  // one thread: the cells run in parallel
  availability_options.interrupt = options.interrupt;
  const AvailabilityReport a = analyze_availability(config, availability_options);
  if (a.interrupted) interrupted = true;  // not cached: the cell is unfinished
  r.availability_states = a.graph_states;
  r.availability_seconds = a.seconds;
  if (!a.complete) {
    // The graph hit the state limit: the verdict would be a guess.
    r.availability = "incomplete";
  } else {
    r.availability = std::string(availability_name(a.verdict));
    r.availability_witness = a.witness_trace;
  }
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

std::string_view durability_name(Durability d) {
  switch (d) {
    case Durability::NoAckedLoss: return "no-acked-loss";
    case Durability::AckedLoss: return "acked-loss";
    case Durability::Incomplete: return "incomplete";
    case Durability::DataGone: return "data-gone";
  }
  return "incomplete";
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

spec::Config matrix_cell_config(const json& base, const std::vector<std::string>& overrides,
                                const MatrixCell& cell) {
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
  doc["faults"] = json{{"max_crashes", cell.failures},
                       {"max_lossy_crashes", cell.lossy ? cell.failures : 0},
                       {"max_disk_losses", 0},
                       {"max_clean_shutdowns", 0},
                       {"max_network_cuts", 0}};
  doc["consumer"] = false;
  doc["properties"] = json::array({kLossProperty, kGoneProperty});
  return spec::load_config(&doc, overrides);
}

std::string matrix_model_salt() {
  static const std::string salt = std::string(kCacheFormat) + ":" + executable_fingerprint();
  return salt;
}

MatrixResult run_matrix(const std::vector<MatrixCell>& cells, const MatrixOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string salt = options.salt.empty() ? matrix_model_salt() : options.salt;

  MatrixResult result;
  result.availability = options.availability;
  result.max_states = options.max_states;
  result.cells.resize(cells.size());
  std::vector<spec::Config> configs;
  configs.reserve(cells.size());
  // Cells with the same configuration (for instance from a sweep listing a value twice)
  // are computed once.
  std::map<std::string, size_t> first_with_key;
  std::vector<size_t> work;
  for (size_t i = 0; i < cells.size(); ++i) {
    configs.push_back(matrix_cell_config(options.base, options.overrides, cells[i]));
    CellResult& r = result.cells[i];
    r.cell = cells[i];
    r.config = spec::to_json(configs.back());
    r.key = cache_key(r.config, options, salt);
    if (first_with_key.emplace(r.key, i).second) work.push_back(i);
  }

  std::mutex mutex;
  MatrixProgress progress;
  progress.total = static_cast<int>(cells.size());
  std::atomic<size_t> next{0};
  auto report = [&](const CellResult& r, int copies) {
    std::lock_guard<std::mutex> lock(mutex);
    progress.done += copies;
    if (r.red()) progress.red += copies;
    if (r.durability == Durability::Incomplete || r.availability == "incomplete") {
      progress.incomplete += copies;
    }
    if (r.from_cache) progress.cache_hits += copies;
    progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress) options.progress(progress);
  };
  std::map<size_t, int> copies_of;
  for (size_t i = 0; i < cells.size(); ++i) ++copies_of[first_with_key[result.cells[i].key]];

  std::atomic<bool> interrupted{false};
  std::atomic<int> computed{0};
  std::atomic<int> hits{0};
  auto worker = [&] {
    while (true) {
      const size_t w = next.fetch_add(1);
      if (w >= work.size()) return;
      const size_t i = work[w];
      CellResult& r = result.cells[i];
      if (options.interrupt != nullptr && options.interrupt->load()) {
        interrupted = true;
        r.durability = Durability::Incomplete;
        continue;
      }
      if (!options.cache_dir.empty() && read_cache(options.cache_dir, r)) {
        r.from_cache = true;
        ++hits;
      } else {
        bool stopped = false;
        compute(configs[i], r.cell, options, r, stopped);
        ++computed;
        if (stopped) {
          interrupted = true;
        } else if (!options.cache_dir.empty()) {
          write_cache(options.cache_dir, r);
        }
      }
      report(r, copies_of[i]);
    }
  };
  const int jobs = std::clamp<int>(options.jobs, 1, static_cast<int>(std::max<size_t>(work.size(), 1)));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();

  // Copies take the computed result of the first cell with their configuration.
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t first = first_with_key[result.cells[i].key];
    if (first != i) {
      const MatrixCell cell = result.cells[i].cell;
      result.cells[i] = result.cells[first];
      result.cells[i].cell = cell;
    }
    const CellResult& r = result.cells[i];
    if (r.red()) ++result.red;
    if (r.gone()) ++result.gone;
    if (r.durability == Durability::Incomplete || r.availability == "incomplete") ++result.incomplete;
  }
  result.computed = computed.load();
  result.cache_hits = hits.load();
  result.interrupted = interrupted.load();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace isr::analysis
