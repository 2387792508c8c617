// The command line's side of checkpoints (cli/check_checkpoint.h).
#include "cli/check_checkpoint.h"

#include <string>
#include <vector>

#include "checker/bfs/checkpoint_file.h"
#include "checker/bfs/distributed_checkpoint.h"
#include "cli/commands.h"
#include "cli/run_support.h"
#include "cli/version.h"
#include "io/files.h"

namespace isr::cli {

using nlohmann::json;

std::string checkpoint_identity_text(std::string_view model, const json& config, bool symmetry, bool por,
                                     int fingerprint_bits) {
  const json identity = {{"model", model},
                         {"config", config},
                         {"options", {{"symmetry", symmetry}, {"por", por}, {"fingerprint", fingerprint_bits}}},
                         {"binary", {{"version", kVersion}, {"revision", kRevision}}}};
  return identity.dump();
}

namespace {

// The dotted paths at which two JSON documents differ, with both values.
void differences(const json& theirs, const json& ours, const std::string& path, std::vector<std::string>& out) {
  if (theirs.is_object() && ours.is_object()) {
    for (const auto& [key, value] : theirs.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      if (!ours.contains(key)) {
        out.push_back(at + ": " + value.dump() + " in the checkpoint, absent here");
      } else {
        differences(value, ours.at(key), at, out);
      }
    }
    for (const auto& [key, value] : ours.items()) {
      if (!theirs.contains(key)) out.push_back((path.empty() ? key : path + "." + key) + ": absent in the checkpoint, " + value.dump() + " here");
    }
    return;
  }
  if (theirs != ours) out.push_back(path + ": " + theirs.dump() + " in the checkpoint, " + ours.dump() + " here");
}

}  // namespace

void check_resumable(const std::string& dir, const std::string& identity, const std::string& file) {
  std::string theirs;
  try {
    theirs = checker::checkpoint_identity(dir, file);
  } catch (const checker::CheckpointError& e) {
    throw UsageError("--resume", e.what());
  }
  if (theirs == identity) return;
  json a;
  try {
    a = io::files::parse_json(theirs);
  } catch (const io::files::InputError&) {
    throw UsageError("--resume", "the checkpoint in \"" + dir + "\" was not written by isrcheck check");
  }
  std::vector<std::string> diff;
  differences(a, json::parse(identity), "", diff);
  std::string message = "the checkpoint in \"" + dir +
                        "\" is of another run; resume it with the same --model, --config, --set, --symmetry, "
                        "--por and --fingerprint, and the same isrcheck binary. What differs:";
  for (const auto& d : diff) message += "\n  " + d;
  throw UsageError("--resume", message);
}

void check_resumable_ranks(const std::string& dir, int ranks) {
  uint64_t theirs = 0;
  try {
    theirs = checker::read_manifest(dir).ranks;
  } catch (const checker::CheckpointError& e) {
    throw UsageError("--resume", e.what());
  }
  if (theirs == static_cast<uint64_t>(ranks)) return;
  throw UsageError("--resume", "the checkpoint in \"" + dir + "\" was written by " + std::to_string(theirs) +
                                   " ranks and this run has " + std::to_string(ranks) +
                                   ": each rank resumes its own part; run it under mpirun -np " +
                                   std::to_string(theirs));
}

void report_checkpoint(const checker::CheckpointOptions& options, const checker::CheckpointReport& report,
                       bool incomplete, std::ostream& out, json& document, const std::string& name) {
  if (options.dir.empty()) return;
  const std::string file = checker::checkpoint_path(options.dir, name);
  if (report.resumed) {
    out << "resumed from " << file << ": depth " << report.resumed_depth << ", " << report.resumed_states
        << " distinct states\n";
  }
  if (report.written > 0) {
    out << "checkpoint: " << file << " (depth " << report.written_depth << ", " << report.written_states
        << " distinct states, " << bytes_text(report.written_bytes) << "; " << report.written << " written)\n";
  }
  if (incomplete) {
    if (report.written > 0 || report.resumed) {
      out << "to go on: the same command with --resume " << options.dir << " in place of --checkpoint\n";
    } else {
      out << "no checkpoint was written (none was due and the stop wrote none)\n";
    }
  }
  document["checkpoint"] = {{"dir", options.dir},
                            {"resumed", report.resumed},
                            {"resumed_depth", report.resumed ? json(report.resumed_depth) : json(nullptr)},
                            {"resumed_states", report.resumed ? json(report.resumed_states) : json(nullptr)},
                            {"written", report.written},
                            {"written_depth", report.written > 0 ? json(report.written_depth) : json(nullptr)},
                            {"written_states", report.written > 0 ? json(report.written_states) : json(nullptr)},
                            {"written_bytes", report.written > 0 ? json(report.written_bytes) : json(nullptr)}};
}

}  // namespace isr::cli
