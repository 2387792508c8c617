// The counterexample corpus: manifest validation, regeneration and verification (see
// corpus.h). Every configuration in the manifest is resolved while loading, so that a
// typo anywhere fails before hours of checks, with the field named.
#include "analysis/corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/availability.h"
#include "analysis/corpus_models.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_reader.h"
#include "io/files.h"
#include "io/json_fields.h"
#include "spec/partition/config.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

// The strict readers the model configurations use (io/json_fields.h); the manifest
// throws its own error type, so it asks for the problem instead of the exception.
using io::json_fields::join;
using io::json_fields::shown;

void check_keys(const json& object, const std::string& field, const std::vector<std::string>& allowed) {
  // The manifest's root has no field name; json_fields would call it "config".
  if (!object.is_object()) throw CorpusError(field, "expected an object, got " + shown(object));
  if (auto problem = io::json_fields::find_key_problem(object, field, allowed)) {
    throw CorpusError(problem->field, problem->message);
  }
}

const json& required(const json& object, const std::string& field, const std::string& key) {
  const auto it = object.find(key);
  if (it == object.end()) throw CorpusError(field.empty() ? key : field + "." + key, "missing");
  return *it;
}

std::string read_string(const json& v, const std::string& field) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    throw CorpusError(field, "expected a non-empty string, got " + shown(v));
  }
  return v.get<std::string>();
}

int read_positive(const json& v, const std::string& field) {
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1000) {
    throw CorpusError(field, "expected an integer from 1 to 1000, got " + shown(v));
  }
  return static_cast<int>(v.get<int64_t>());
}

bool read_bool(const json& v, const std::string& field) {
  if (!v.is_boolean()) throw CorpusError(field, "expected true or false, got " + shown(v));
  return v.get<bool>();
}

// Names become file names and appear in commands: keep them to [a-z0-9-].
void check_name(const std::string& name, const std::string& field) {
  const bool ok = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!ok || name.front() == '-') {
    throw CorpusError(field, "\"" + name + "\" is not kebab-case (letters a-z, digits and '-')");
  }
}

std::vector<std::string> availability_names() {
  std::vector<std::string> names;
  for (auto a : {WriteAvailability::Available, WriteAvailability::NotEnoughReplicas,
                 WriteAvailability::NoEligibleLeader, WriteAvailability::NoControllerQuorum}) {
    names.emplace_back(availability_name(a));
  }
  return names;
}

// A configuration error, re-rooted under the manifest field the document came from.
json resolve(const CorpusModel& model, const json& document, const std::string& field,
             const std::string& property_field) {
  try {
    return model.resolve(document);
  } catch (const spec::ConfigError& e) {
    const std::string what = e.what();
    const std::string message = what.substr(std::min(what.size(), e.field.size() + 2));
    if (e.field == "properties" && !property_field.empty()) throw CorpusError(property_field, message);
    throw CorpusError(field + "." + e.field, message);
  }
}

CorpusEntry parse_entry(const json& e, const std::string& field) {
  check_keys(e, field,
             {"name", "model", "kind", "config", "property", "expected", "fix", "failures", "lossy",
              "failing_nodes", "max_steps", "slow", "why"});
  CorpusEntry entry;
  entry.name = read_string(required(e, field, "name"), field + ".name");
  check_name(entry.name, field + ".name");
  entry.model = read_string(required(e, field, "model"), field + ".model");
  const CorpusModel* model = find_corpus_model(entry.model);
  if (model == nullptr) {
    throw CorpusError(field + ".model",
                      "unknown model \"" + entry.model + "\"; allowed: " + corpus_model_names());
  }
  const std::string kind = e.contains("kind") ? read_string(e["kind"], field + ".kind") : "safety";
  if (kind == "safety") {
    entry.kind = EntryKind::Safety;
  } else if (kind == "availability") {
    // The availability analysis classifies the partition model's produce outcomes.
    if (entry.model != "partition") {
      throw CorpusError(field + ".kind", "\"availability\" is only for model \"partition\"");
    }
    entry.kind = EntryKind::Availability;
  } else {
    throw CorpusError(field + ".kind", "expected \"safety\" or \"availability\", got \"" + kind + "\"");
  }
  entry.config = required(e, field, "config");
  if (!entry.config.is_object()) {
    throw CorpusError(field + ".config", "expected a configuration object, got " + shown(entry.config));
  }
  entry.expected = read_string(required(e, field, "expected"), field + ".expected");
  const json& fix = required(e, field, "fix");
  check_keys(fix, field + ".fix", {"config", "expected"});
  entry.fix = required(fix, field + ".fix", "config");
  if (!entry.fix.is_object() || entry.fix.empty()) {
    throw CorpusError(field + ".fix.config", "expected a non-empty configuration delta, got " + shown(entry.fix));
  }
  entry.fix_expected = read_string(required(fix, field + ".fix", "expected"), field + ".fix.expected");
  entry.max_steps = read_positive(required(e, field, "max_steps"), field + ".max_steps");
  if (e.contains("slow")) entry.slow = read_bool(e["slow"], field + ".slow");
  entry.why = read_string(required(e, field, "why"), field + ".why");

  // The properties checked are the entry's business, not the configuration's.
  for (const auto& [doc, doc_field] : {std::pair{&entry.config, field + ".config"},
                                       std::pair{&entry.fix, field + ".fix.config"}}) {
    if (doc->contains("properties")) {
      throw CorpusError(doc_field + ".properties",
                        entry.kind == EntryKind::Safety ? "not allowed: the entry's \"property\" is the one checked"
                                                        : "not allowed in an availability entry");
    }
  }
  json unsafe_doc = entry.config;
  json fixed_doc = entry.config;
  fixed_doc.merge_patch(entry.fix);

  if (entry.kind == EntryKind::Safety) {
    entry.property = read_string(required(e, field, "property"), field + ".property");
    if (entry.expected != "violated") {
      throw CorpusError(field + ".expected", "expected \"violated\" in a safety entry, got \"" + entry.expected + "\"");
    }
    if (entry.fix_expected != "holds") {
      throw CorpusError(field + ".fix.expected",
                        "expected \"holds\" in a safety entry, got \"" + entry.fix_expected + "\"");
    }
    for (const char* key : {"failures", "lossy", "failing_nodes"}) {
      if (e.contains(key)) throw CorpusError(field + "." + key, "only allowed in an availability entry");
    }
    unsafe_doc["properties"] = json::array({entry.property});
    fixed_doc["properties"] = json::array({entry.property});
  } else {
    if (e.contains("property")) {
      throw CorpusError(field + ".property", "not allowed in an availability entry (it checks write availability)");
    }
    const std::vector<std::string> classes = availability_names();
    for (const auto& [value, value_field] : {std::pair{entry.expected, field + ".expected"},
                                             std::pair{entry.fix_expected, field + ".fix.expected"}}) {
      WriteAvailability parsed{};
      if (!parse_availability(value, parsed)) {
        throw CorpusError(value_field, "expected one of " + join(classes) + ", got \"" + value + "\"");
      }
    }
    entry.failures = read_positive(required(e, field, "failures"), field + ".failures");
    if (e.contains("lossy")) entry.lossy = read_bool(e["lossy"], field + ".lossy");
    if (e.contains("failing_nodes")) {
      entry.failing_nodes = read_string(e["failing_nodes"], field + ".failing_nodes");
      if (entry.failing_nodes != "any" && entry.failing_nodes != "brokers") {
        throw CorpusError(field + ".failing_nodes",
                          "expected \"any\" or \"brokers\", got \"" + entry.failing_nodes + "\"");
      }
    }
  }
  entry.unsafe_config = resolve(*model, unsafe_doc, field + ".config", field + ".property");
  entry.fixed_config = resolve(*model, fixed_doc, field + ".fix.config", field + ".property");
  if (entry.unsafe_config == entry.fixed_config) {
    throw CorpusError(field + ".fix.config", "changes nothing in the resolved configuration");
  }
  return entry;
}

std::string read_text(const std::string& path, bool& found) {
  std::ifstream in(path, std::ios::binary);
  found = static_cast<bool>(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const CorpusModel& model_of(const CorpusEntry& entry) {
  const CorpusModel* model = find_corpus_model(entry.model);
  if (model == nullptr) throw std::invalid_argument("the corpus has no model \"" + entry.model + "\"");
  return *model;
}

SideResult availability_side(const CorpusEntry& entry, const json& resolved, const RunOptions& options) {
  const spec::Config config = spec::load_config(&resolved, {});
  AvailabilityOptions availability_options;
  availability_options.failures = entry.failures;
  availability_options.lossy = entry.lossy;
  availability_options.failing_nodes = entry.failing_nodes;
  availability_options.threads = options.threads;
  availability_options.por = options.por;
  availability_options.interrupt = options.interrupt;
  const AvailabilityReport report = analyze_availability(config, availability_options);
  SideResult r;
  // A class read off an incomplete graph would be a guess.
  r.verdict = report.complete ? std::string(availability_name(report.verdict)) : "incomplete";
  r.steps = report.witness_steps;
  r.states = report.graph_states;
  r.seconds = report.seconds;
  r.trace = report.witness_trace;
  return r;
}

}  // namespace

Manifest parse_manifest(const json& document) {
  check_keys(document, "", {"format", "version", "description", "entries"});
  const json& format = required(document, "", "format");
  if (format != kCorpusFormatName) {
    throw CorpusError("format", std::string("expected \"") + kCorpusFormatName + "\", got " + shown(format));
  }
  const json& version = required(document, "", "version");
  if (version != kCorpusFormatVersion) {
    throw CorpusError("version", "expected " + std::to_string(kCorpusFormatVersion) + ", got " + shown(version));
  }
  if (document.contains("description")) read_string(document["description"], "description");
  const json& entries = required(document, "", "entries");
  if (!entries.is_array() || entries.empty()) {
    throw CorpusError("entries", "expected a non-empty list of entries, got " + shown(entries));
  }
  Manifest manifest;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string field = "entries[" + std::to_string(i) + "]";
    CorpusEntry entry = parse_entry(entries[i], field);
    for (const CorpusEntry& other : manifest.entries) {
      if (other.name == entry.name) throw CorpusError(field + ".name", "\"" + entry.name + "\" appears twice");
    }
    manifest.entries.push_back(std::move(entry));
  }
  return manifest;
}

Manifest load_manifest(const std::string& path) {
  json document;
  try {
    document = io::files::read_json_file(path);  // with the line and column of a syntax error
  } catch (const io::files::InputError& e) {
    throw CorpusError("--manifest", e.what());
  }
  Manifest manifest = parse_manifest(document);
  manifest.path = path;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  manifest.directory = parent.empty() ? "." : parent.string();
  return manifest;
}

const CorpusEntry& find_entry(const Manifest& manifest, const std::string& name) {
  std::vector<std::string> names;
  for (const CorpusEntry& entry : manifest.entries) {
    if (entry.name == name) return entry;
    names.push_back(entry.name);
  }
  throw CorpusError("--only", "no entry \"" + name + "\"; entries: " + join(names));
}

std::string trace_file_name(const CorpusEntry& entry) { return entry.name + ".json"; }

std::string trace_file_text(const json& trace) { return trace.dump(2) + "\n"; }

SideResult run_unsafe(const CorpusEntry& entry, const RunOptions& options) {
  return entry.kind == EntryKind::Safety ? model_of(entry).search(entry.unsafe_config, options)
                                         : availability_side(entry, entry.unsafe_config, options);
}

SideResult run_fix(const CorpusEntry& entry, const RunOptions& options) {
  return entry.kind == EntryKind::Safety ? model_of(entry).search(entry.fixed_config, options)
                                         : availability_side(entry, entry.fixed_config, options);
}

std::string unsafe_problem(const CorpusEntry& entry, const SideResult& r) {
  if (r.verdict != entry.expected) return "expected " + entry.expected + ", found " + r.verdict;
  if (entry.kind == EntryKind::Safety && r.property != entry.property) {
    return "expected property " + entry.property + " violated, found " + r.property;
  }
  if (r.steps > entry.max_steps) {
    return "the trace has " + std::to_string(r.steps) + " steps, more than max_steps " +
           std::to_string(entry.max_steps);
  }
  if (r.trace.is_null()) return "no trace";
  return "";
}

std::string fix_problem(const CorpusEntry& entry, const SideResult& r) {
  if (r.verdict != entry.fix_expected) {
    return "with the fix expected " + entry.fix_expected + ", found " + r.verdict;
  }
  return "";
}

std::string replay_problem(const CorpusEntry& entry, const json& trace) {
  try {
    counterexamples::check_trace(trace);
    if (trace.at("model") != entry.model) return "the trace is of model " + trace.at("model").dump();
    const int steps = static_cast<int>(trace.at("steps").size()) - 1;
    if (steps > entry.max_steps) {
      return "the trace has " + std::to_string(steps) + " steps, more than max_steps " +
             std::to_string(entry.max_steps);
    }
    if (entry.kind == EntryKind::Availability) {
      if (trace.at("property") != "availability:" + entry.expected) {
        return "the trace witnesses " + trace.at("property").dump() + ", not availability:" + entry.expected;
      }
      const auto result =
          model_of(entry).replay(trace.at("config"), trace, counterexamples::ReplayEnd::StepsOnly);
      return result.reproduced ? "" : result.summary();
    }
    if (trace.at("config") != entry.unsafe_config) {
      return "the trace's configuration is not the entry's (regenerate the corpus)";
    }
    if (trace.at("property") != entry.property) return "the trace violates " + trace.at("property").dump();
    const counterexamples::ReplayResult result =
        model_of(entry).replay(entry.unsafe_config, trace, counterexamples::ReplayEnd::PropertyViolated);
    return result.reproduced ? "" : result.summary();
  } catch (const counterexamples::TraceFormatError& e) {
    return std::string("malformed trace: ") + e.what();
  } catch (const spec::ConfigError& e) {
    return std::string("the trace's configuration is invalid: ") + e.what();
  }
}

RegenerateResult regenerate_entry(const CorpusEntry& entry, const std::string& out_dir, const RunOptions& options) {
  RegenerateResult result;
  result.unsafe = run_unsafe(entry, options);
  result.file = (std::filesystem::path(out_dir) / trace_file_name(entry)).string();
  result.problem = unsafe_problem(entry, result.unsafe);
  if (!result.problem.empty()) return result;
  const std::string text = trace_file_text(result.unsafe.trace);
  bool found = false;
  const std::string before = read_text(result.file, found);
  result.changed = !found || before != text;
  if (result.changed) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    try {
      io::files::write_file_atomically(result.file, text);
    } catch (const io::files::InputError& e) {
      result.problem = e.what();
      return result;
    }
  }
  result.written = true;
  return result;
}

EntryVerification verify_entry(const CorpusEntry& entry, const std::string& trace_dir, const RunOptions& options,
                               bool check_fix) {
  EntryVerification v;
  const std::string file = (std::filesystem::path(trace_dir) / trace_file_name(entry)).string();
  bool found = false;
  const std::string stored = read_text(file, found);
  if (!found) {
    v.problems.push_back("missing trace " + file + " (run isrcheck corpus regenerate)");
  } else {
    std::string problem;
    try {
      problem = replay_problem(entry, io::files::parse_json(stored));
    } catch (const io::files::InputError& e) {
      problem = std::string("not valid JSON: ") + e.what();
    }
    if (!problem.empty()) v.problems.push_back("stored trace " + file + ": " + problem);
  }
  v.unsafe = run_unsafe(entry, options);
  const std::string unsafe = unsafe_problem(entry, v.unsafe);
  if (!unsafe.empty()) {
    v.problems.push_back(unsafe);
  } else if (found && stored != trace_file_text(v.unsafe.trace)) {
    v.problems.push_back("stored trace " + file + " differs from the one found now (run isrcheck corpus regenerate)");
  }
  if (check_fix) {
    v.fix = run_fix(entry, options);
    v.fix_checked = true;
    const std::string fix = fix_problem(entry, v.fix);
    if (!fix.empty()) v.problems.push_back(fix);
  }
  return v;
}

}  // namespace isr::analysis
