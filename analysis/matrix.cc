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
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "analysis/availability.h"
#include "analysis/verify.h"
#include "io/files.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

// Bump when the meaning or the stored form of a cached cell changes.
// v2: cells also check no-committed-loss-globally (Durability::DataGone).
constexpr std::string_view kCacheFormat = "isrcheck-matrix-cache-v2";
// The copies-lost column's entries (one per row). Bump when its definition changes.
constexpr std::string_view kCopiesLostFormat = "isrcheck-matrix-copies-lost-v2";  // v2: controllers never stop

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

// The key of a row's copies-lost entry: the analysis and its definition, the salt, the
// state limit, the reduction, and the configuration of its first search (the row's
// resolved configuration; the k-th search differs only in its fault budget).
std::string copies_lost_key(const json& first_config, const MatrixOptions& options, const std::string& salt) {
  std::string text;
  text += kCopiesLostFormat;
  text += "\nanalysis=copies-lost: faults_begin=after-ack, stops=power|disk, k=1..RF";
  text += "\n";
  text += salt;
  text += "\nmax_states=" + std::to_string(options.max_states);
  text += std::string("\npor=") + (options.copies_lost_por ? "on" : "off");
  text += "\n" + first_config.dump();
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

// The entry stored under `key`, or null when there is none or it is damaged (a damaged
// entry is recomputed).
json read_cache_entry(const std::string& dir, const std::string& key) {
  std::ifstream in(cache_file(dir, key));
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  try {
    return io::files::parse_json(text.str());
  } catch (const io::files::InputError&) {
    return nullptr;
  }
}

bool read_cache(const std::string& dir, CellResult& r) {
  const json entry = read_cache_entry(dir, r.key);
  return !entry.is_null() && computed_from_json(entry, r);
}

// Written to a temporary name and renamed, so a concurrent reader (another job or
// another run) never sees half a file.
void write_cache_entry(const std::string& dir, const std::string& key, const json& entry) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  try {
    io::files::write_file_atomically(cache_file(dir, key).string(), entry.dump() + "\n");
  } catch (const io::files::InputError&) {
    // a cache that cannot be written only costs recomputation
  }
}

void write_cache(const std::string& dir, const CellResult& r) { write_cache_entry(dir, r.key, computed_to_json(r)); }

std::optional<CopiesLost> parse_copies_lost(std::string_view name) {
  for (CopiesLost c : {CopiesLost::Found, CopiesLost::None, CopiesLost::Incomplete}) {
    if (copies_lost_name(c) == name) return c;
  }
  return std::nullopt;
}

std::optional<checker::Verdict> parse_verdict(std::string_view name) {
  for (checker::Verdict v : {checker::Verdict::Holds, checker::Verdict::Violated, checker::Verdict::Incomplete}) {
    if (checker::verdict_name(v) == name) return v;
  }
  return std::nullopt;
}

json row_to_json(const RowResult& r) {
  json searches = json::array();
  for (const CopiesLostSearch& k : r.searches) {
    searches.push_back(json{{"copies", k.copies},
                            {"verdict", checker::verdict_name(k.verdict)},
                            {"distinct_states", k.distinct_states},
                            {"seconds", k.seconds},
                            {"bounds_reached", k.bounds_reached}});
  }
  return json{{"format", kCopiesLostFormat}, {"key", r.key},          {"config", r.config},
              {"verdict", copies_lost_name(r.verdict)},           {"copies", r.copies},
              {"property", r.property},  {"trace", r.trace},      {"trace_steps", r.trace_steps},
              {"searches", searches}};
}

bool row_from_json(const json& j, RowResult& r) {
  try {
    if (j.at("format") != kCopiesLostFormat || j.at("key") != r.key) return false;
    const auto verdict = parse_copies_lost(j.at("verdict").get<std::string>());
    if (!verdict) return false;
    r.verdict = *verdict;
    r.config = j.at("config");
    r.copies = j.at("copies").get<int>();
    r.property = j.at("property").get<std::string>();
    r.trace = j.at("trace");
    r.trace_steps = j.at("trace_steps").get<int>();
    r.searches.clear();
    for (const json& k : j.at("searches")) {
      const auto v = parse_verdict(k.at("verdict").get<std::string>());
      if (!v) return false;
      r.searches.push_back(CopiesLostSearch{k.at("copies").get<int>(), *v, k.at("distinct_states").get<uint64_t>(),
                                            k.at("seconds").get<double>(),
                                            k.at("bounds_reached").get<std::vector<std::string>>()});
    }
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

// The copies-lost column of one row: k = 1, 2, ... RF lost copies after the
// acknowledgement, each an exhaustive search of both loss properties, up to the first
// that loses the write. `interrupted` as for cells.
void compute_row(const MatrixOptions& options, RowResult& r, bool& interrupted) {
  VerifyOptions verify_options;
  verify_options.threads = 1;
  verify_options.max_states = options.max_states;
  verify_options.interrupt = options.interrupt;
  verify_options.por = options.copies_lost_por;
  verify_options.faults_begin = FaultsBegin::AfterAck;
  verify_options.only_copy_losses = true;
  verify_options.first_ack_only = true;
  r.searches.clear();
  for (int k = 1; k <= r.row.replication_factor; ++k) {
    const spec::Config config = copies_lost_config(options.base, options.overrides, r.row, k);
    r.config = spec::to_json(config);
    const VerifyOutcome v = verify(config, verify_options);
    r.searches.push_back(CopiesLostSearch{k, v.verdict, v.distinct_states, v.seconds, v.bounds_reached});
    if (v.stop_reason == checker::StopReason::Interrupted) interrupted = true;
    if (v.verdict == checker::Verdict::Violated) {
      r.verdict = CopiesLost::Found;
      r.copies = k;
      r.property = v.property;
      r.trace = v.trace;
      r.trace_steps = v.trace_steps;
      return;
    }
    if (v.verdict == checker::Verdict::Incomplete) {
      // Fewer copies lost hold; whether k lose the write is not known. Never guessed.
      r.verdict = CopiesLost::Incomplete;
      r.copies = k;
      return;
    }
  }
  r.verdict = CopiesLost::None;
  r.copies = r.row.replication_factor;
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

std::string_view copies_lost_name(CopiesLost c) {
  switch (c) {
    case CopiesLost::Found: return "found";
    case CopiesLost::None: return "none";
    case CopiesLost::Incomplete: return "incomplete";
  }
  return "incomplete";
}

uint64_t RowResult::distinct_states() const {
  uint64_t n = 0;
  for (const auto& k : searches) n += k.distinct_states;
  return n;
}

double RowResult::seconds() const {
  double t = 0;
  for (const auto& k : searches) t += k.seconds;
  return t;
}

std::string_view RowResult::loss() const {
  if (verdict != CopiesLost::Found) return "";
  return property == kLossProperty ? durability_name(Durability::AckedLoss) : durability_name(Durability::DataGone);
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
  doc["properties"] = json::array({kLossProperty, kGoneProperty});
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

std::string matrix_model_salt() {
  static const std::string salt = std::string(kCacheFormat) + ":" + executable_fingerprint();
  return salt;
}

MatrixResult run_matrix(const std::vector<MatrixCell>& cells, const MatrixOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string salt = options.salt.empty() ? matrix_model_salt() : options.salt;

  MatrixResult result;
  result.availability = options.availability;
  result.copies_lost = options.copies_lost;
  result.max_states = options.max_states;
  result.cells.resize(cells.size());
  std::vector<spec::Config> configs;
  configs.reserve(cells.size());
  // Cells with the same configuration (for instance from a sweep listing a value twice)
  // are computed once; so are rows.
  std::map<std::string, size_t> first_with_key;
  std::map<std::string, size_t> first_row_with_key;
  // One queue for both kinds of work, rows first: a row's searches are the longest
  // single tasks of a sweep (k = 2 at RF 3 is millions of states), and starting them
  // early keeps the jobs busy to the end.
  struct Task {
    bool row;
    size_t index;
  };
  std::vector<Task> work;
  std::set<std::string> row_ids;
  for (size_t i = 0; i < cells.size(); ++i) {
    configs.push_back(matrix_cell_config(options.base, options.overrides, cells[i]));
    CellResult& r = result.cells[i];
    r.cell = cells[i];
    r.config = spec::to_json(configs.back());
    r.key = cache_key(r.config, options, salt);
    if (!options.copies_lost || !row_ids.insert(cells[i].row_id()).second) continue;
    RowResult row;
    row.row = cells[i];
    row.row.failures = 0;
    row.row.lossy = false;
    // Validated here, before any work, like the cells.
    row.config = spec::to_json(copies_lost_config(options.base, options.overrides, row.row, 1));
    row.key = copies_lost_key(row.config, options, salt);
    result.rows.push_back(std::move(row));
    if (first_row_with_key.emplace(result.rows.back().key, result.rows.size() - 1).second) {
      work.push_back(Task{true, result.rows.size() - 1});
    }
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (first_with_key.emplace(result.cells[i].key, i).second) work.push_back(Task{false, i});
  }

  std::mutex mutex;
  MatrixProgress progress;
  progress.total = static_cast<int>(cells.size());
  progress.rows_total = static_cast<int>(result.rows.size());
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
  auto report_row = [&](int copies) {
    std::lock_guard<std::mutex> lock(mutex);
    progress.rows_done += copies;
    progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress) options.progress(progress);
  };
  std::map<size_t, int> copies_of;
  for (size_t i = 0; i < cells.size(); ++i) ++copies_of[first_with_key[result.cells[i].key]];
  std::map<size_t, int> row_copies_of;
  for (const RowResult& row : result.rows) ++row_copies_of[first_row_with_key[row.key]];

  std::atomic<bool> interrupted{false};
  std::atomic<int> computed{0};
  std::atomic<int> hits{0};
  std::atomic<int> rows_computed{0};
  std::atomic<int> row_hits{0};
  auto stop_requested = [&] { return options.interrupt != nullptr && options.interrupt->load(); };
  auto run_row = [&](size_t i) {
    RowResult& r = result.rows[i];
    if (stop_requested()) {
      interrupted = true;
      r.verdict = CopiesLost::Incomplete;
      return;
    }
    const json entry = options.cache_dir.empty() ? json(nullptr) : read_cache_entry(options.cache_dir, r.key);
    if (!entry.is_null() && row_from_json(entry, r)) {
      r.from_cache = true;
      ++row_hits;
    } else {
      bool stopped = false;
      compute_row(options, r, stopped);
      ++rows_computed;
      if (stopped) {
        interrupted = true;
      } else if (!options.cache_dir.empty()) {
        write_cache_entry(options.cache_dir, r.key, row_to_json(r));
      }
    }
    report_row(row_copies_of[i]);
  };
  auto run_cell = [&](size_t i) {
    CellResult& r = result.cells[i];
    if (stop_requested()) {
      interrupted = true;
      r.durability = Durability::Incomplete;
      return;
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
  };
  auto worker = [&] {
    while (true) {
      const size_t w = next.fetch_add(1);
      if (w >= work.size()) return;
      if (work[w].row) {
        run_row(work[w].index);
      } else {
        run_cell(work[w].index);
      }
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
  for (size_t i = 0; i < result.rows.size(); ++i) {
    const size_t first = first_row_with_key[result.rows[i].key];
    if (first != i) {
      const MatrixCell row = result.rows[i].row;
      result.rows[i] = result.rows[first];
      result.rows[i].row = row;
    }
    if (result.rows[i].verdict == CopiesLost::Incomplete) ++result.rows_incomplete;
  }
  result.computed = computed.load();
  result.cache_hits = hits.load();
  result.rows_computed = rows_computed.load();
  result.rows_from_cache = row_hits.load();
  result.interrupted = interrupted.load();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace isr::analysis
