// The matrix's on-disk cache (see matrix_cache.h): keys, the stored form of a cell and
// of a copies-lost row, and reading and writing entries.
#include "analysis/matrix_cache.h"

#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "analysis/matrix_cell.h"
#include "io/files.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

// Bump when the meaning or the stored form of a cached cell changes.
// v2: cells also check no-committed-loss-globally (Durability::DataGone).
constexpr std::string_view kCacheFormat = "isrcheck-matrix-cache-v2";
// The copies-lost column's entries (one per row). Bump when its definition changes.
constexpr std::string_view kCopiesLostFormat = "isrcheck-matrix-copies-lost-v2";  // v2: controllers never stop

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

}  // namespace

std::string matrix_cell_key(const json& config, const MatrixOptions& options, const std::string& salt) {
  std::string text;
  text += kCacheFormat;
  text += "\n";
  text += salt;
  text += "\nmax_states=" + std::to_string(options.max_states);
  text += "\navailability=" + std::string(options.availability ? kMatrixFailingNodes : "off");
  // A reduced search counts fewer states (and may finish under max_states where a full
  // one does not): its cells are cached apart.
  if (options.por) text += "\npor=on";
  text += "\n" + config.dump();
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return hex64(h.high64) + hex64(h.low64);
}

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

std::string matrix_model_salt() {
  static const std::string salt = std::string(kCacheFormat) + ":" + executable_fingerprint();
  return salt;
}

bool read_cached(const std::string& dir, CellResult& r) {
  const json entry = read_cache_entry(dir, r.key);
  return !entry.is_null() && computed_from_json(entry, r);
}

bool read_cached(const std::string& dir, RowResult& r) {
  const json entry = read_cache_entry(dir, r.key);
  return !entry.is_null() && row_from_json(entry, r);
}

void write_cached(const std::string& dir, const CellResult& r) { write_cache_entry(dir, r.key, computed_to_json(r)); }

void write_cached(const std::string& dir, const RowResult& r) { write_cache_entry(dir, r.key, row_to_json(r)); }

}  // namespace isr::analysis
