// Checkpoint and resume of the distributed search (`check --distributed --checkpoint DIR`,
// `--resume DIR` under mpirun; docs/distributed.md, "Checkpoint and resume"): the files,
// one per rank plus a manifest, and the collective protocol that keeps them consistent.
//
// A checkpoint is the search at a level boundary, as in checker/bfs/checkpoint.h, but
// each rank saves only its part: the fingerprints it owns, its parent and position logs
// (levels 0..depth), its frontier states with their global positions, and its counters.
// Resuming on the same number of ranks gives each rank back exactly what it had, so the
// rest of the search is the uninterrupted one (waves, positions and keys are global).
//
// Files in DIR, all written with checker/bfs/checkpoint_file.h (checksummed, renamed into
// place, fsynced):
//   rank-K-of-N.G.bin   rank K's part of checkpoint generation G
//   manifest.bin        identity, N, G, depth and distinct states of the last complete one
// Protocol (collective, at a boundary every rank agreed on): every rank writes its file
// of generation G + 1; a reduction tells whether all succeeded; then rank 0 replaces the
// manifest, and only after a second reduction does each rank delete its generation-G file.
// Until the manifest is renamed, it names generation G, whose files are all still there:
// a crash at any point leaves one complete checkpoint.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "checker/bfs/checkpoint_file.h"
#include "checker/bfs/checkpoint_options.h"
#include "checker/store/parent_log.h"
#include "checker/store/position_log.h"
#include "checker/store/state_codec.h"
#include "checker/store/visited_set.h"
#include "checker/store/xor_encoding.h"

namespace isr::checker {

inline constexpr const char* kManifestFile = "manifest.bin";

inline std::string rank_checkpoint_file(uint64_t rank, uint64_t ranks, uint64_t generation) {
  return "rank-" + std::to_string(rank) + "-of-" + std::to_string(ranks) + "." + std::to_string(generation) + ".bin";
}

// What the manifest records (rank 0 writes it once every rank's file is complete).
struct DistributedManifest {
  std::string identity;
  uint64_t ranks = 0;
  uint64_t generation = 0;
  int32_t depth = 0;
  uint64_t distinct = 0;
};

inline uint64_t write_manifest(const std::string& dir, const DistributedManifest& m) {
  CheckpointWriter out(dir, kManifestFile);
  out.string(m.identity);
  out.value(m.ranks);
  out.value(m.generation);
  out.value(m.depth);
  out.value(m.distinct);
  return out.commit();
}

// CheckpointError when DIR holds no readable manifest.
inline DistributedManifest read_manifest(const std::string& dir) {
  CheckpointReader in(dir, kManifestFile);
  DistributedManifest m;
  m.identity = in.string();
  m.ranks = in.value<uint64_t>();
  m.generation = in.value<uint64_t>();
  m.depth = in.value<int32_t>();
  m.distinct = in.value<uint64_t>();
  in.finish();
  if (m.ranks == 0 || m.depth < 0) in.corrupt("a manifest of no ranks or a negative depth");
  return m;
}

// One rank's figures at a level boundary (distributed_bfs.h's members).
struct RankCheckpointCounters {
  uint64_t generated = 0;  // successors this rank computed (plus the initial states)
  uint64_t distinct = 0;   // all ranks
  uint64_t owned = 0;      // this rank's
  int32_t depth = 0;
  uint32_t bounds_mask = 0;
  uint64_t peak_memory = 0;
  uint64_t por_reduced = 0;
  uint64_t waves = 0;
  double seconds = 0;  // wall time of every run up to this checkpoint
  std::vector<uint64_t> level_sizes;
};

// One rank's part. `levels`: the parent and position log levels to keep (depth + 1);
// `exclude`: sorted fingerprints the visited set holds beyond the boundary.
template <class State>
struct RankCheckpointPart {
  const BasicVisitedSet<Fingerprint>& visited;
  const std::vector<Fingerprint>& exclude;
  const ParentLog& parents;
  const PositionLog& positions;
  size_t levels;
  const EncodedStates<State>& frontier;
  const std::vector<uint64_t>& frontier_positions;
};

// Writes (atomically) rank `rank`'s file of `generation`; returns its size.
template <class State>
uint64_t write_rank_checkpoint(const CheckpointOptions& options, uint64_t rank, uint64_t ranks, uint64_t generation,
                               const RankCheckpointCounters& c, const RankCheckpointPart<State>& part) {
  CheckpointWriter out(options.dir, rank_checkpoint_file(rank, ranks, generation));
  out.string(options.identity);
  out.value(rank);
  out.value(ranks);
  out.value(generation);
  out.value(static_cast<uint64_t>(sizeof(State)));
  out.value(c.generated);
  out.value(c.distinct);
  out.value(c.owned);
  out.value(c.depth);
  out.value(c.bounds_mask);
  out.value(c.peak_memory);
  out.value(c.por_reduced);
  out.value(c.waves);
  out.value(c.seconds);
  out.value(static_cast<uint64_t>(c.level_sizes.size()));
  for (const uint64_t n : c.level_sizes) out.value(n);

  // The visited set iterates in increasing order, as `exclude` is sorted.
  const auto& exclude = part.exclude;
  out.value(static_cast<uint64_t>(part.visited.size() - exclude.size()));
  size_t skip = 0;
  uint64_t kept = 0;
  part.visited.for_each([&](const Fingerprint& fp) {
    while (skip < exclude.size() && exclude[skip] < fp) ++skip;
    if (skip < exclude.size() && exclude[skip] == fp) return;
    out.value(fp);
    ++kept;
  });
  if (kept != part.visited.size() - exclude.size()) {
    throw std::logic_error("checkpoint: excluded fingerprints not in the visited set");
  }
  part.parents.write_to(out, part.levels);
  part.positions.write_to(out, part.levels);

  // The frontier as it is kept (StateCodec's encoding), each state after its position.
  out.value(static_cast<uint64_t>(part.frontier.size()));
  for (size_t i = 0; i < part.frontier.size(); ++i) {
    const uint8_t* encoded = part.frontier.at(i);
    const auto n = static_cast<uint32_t>(StateCodec<State>::encoded_size(encoded));
    out.value(part.frontier_positions[i]);
    out.value(n);
    out.put(encoded, n);
  }
  return out.commit();
}

// The tables rank `rank`'s file is read into (all empty).
template <class State>
struct RankCheckpointTables {
  BasicVisitedSet<Fingerprint>& visited;
  ParentLog& parents;
  PositionLog& positions;
  EncodedStates<State>& frontier;
  std::vector<uint64_t>& frontier_positions;
};

template <class State>
RankCheckpointCounters read_rank_checkpoint(const CheckpointOptions& options, const DistributedManifest& manifest,
                                            uint64_t rank, RankCheckpointTables<State> t) {
  CheckpointReader in(options.dir, rank_checkpoint_file(rank, manifest.ranks, manifest.generation));
  if (in.string() != options.identity) in.corrupt("written for another run than its manifest");
  if (in.value<uint64_t>() != rank || in.value<uint64_t>() != manifest.ranks ||
      in.value<uint64_t>() != manifest.generation) {
    in.corrupt("another rank's or another generation's file");
  }
  if (in.value<uint64_t>() != sizeof(State)) in.corrupt("written with another state layout");
  RankCheckpointCounters c;
  c.generated = in.value<uint64_t>();
  c.distinct = in.value<uint64_t>();
  c.owned = in.value<uint64_t>();
  c.depth = in.value<int32_t>();
  c.bounds_mask = in.value<uint32_t>();
  c.peak_memory = in.value<uint64_t>();
  c.por_reduced = in.value<uint64_t>();
  c.waves = in.value<uint64_t>();
  c.seconds = in.value<double>();
  c.level_sizes.resize(in.count(sizeof(uint64_t)));
  for (uint64_t& n : c.level_sizes) n = in.value<uint64_t>();
  if (c.depth != manifest.depth || c.distinct != manifest.distinct ||
      c.level_sizes.size() != static_cast<size_t>(c.depth) + 1) {
    in.corrupt("counters that do not match the manifest");
  }

  // Fingerprints come sorted: split by shard and insert as one batch (visited_set.h).
  using Set = BasicVisitedSet<Fingerprint>;
  const uint64_t n = in.count(sizeof(Fingerprint));
  if (n != c.owned) in.corrupt("a visited set that does not hold the rank's states");
  std::vector<std::vector<Fingerprint>> batches(Set::kShards);
  Fingerprint last{};
  for (uint64_t i = 0; i < n; ++i) {
    const auto fp = in.value<Fingerprint>();
    if (fp == Fingerprint{} || (i > 0 && !(last < fp)) || fp % manifest.ranks != rank) {
      in.corrupt("fingerprints out of order or of another rank");
    }
    batches[Set::shard_of(fp)].push_back(fp);
    last = fp;
  }
  std::vector<size_t> incoming(Set::kShards);
  for (size_t s = 0; s < Set::kShards; ++s) incoming[s] = batches[s].size();
  t.visited.begin_batch(incoming);
  for (size_t s = 0; s < Set::kShards; ++s) t.visited.insert_batch(s, batches[s].data(), batches[s].size());
  t.visited.end_batch(batches);

  if (!t.parents.read_from(in) || t.parents.levels() != c.level_sizes.size()) {
    in.corrupt("a parent log that does not match");
  }
  if (!t.positions.read_from(in) || t.positions.levels() != c.level_sizes.size()) {
    in.corrupt("a position log that does not match");
  }

  using Encoding = XorEncoding<sizeof(State)>;
  const uint64_t states = in.count(sizeof(uint64_t) + sizeof(uint32_t));
  if (states != t.parents.level_size(c.level_sizes.size() - 1)) in.corrupt("a frontier of another size than its level");
  // Room for what a malformed encoding could claim (encoded_size reads that far).
  std::vector<uint8_t> encoded(Encoding::kMaxEncoded + 8 * Encoding::kGroups);
  for (uint64_t i = 0; i < states; ++i) {
    const auto position = in.value<uint64_t>();
    const auto size = in.value<uint32_t>();
    if (size > Encoding::kMaxEncoded) in.corrupt("a frontier state larger than a state");
    std::fill(encoded.begin(), encoded.end(), uint8_t{0});
    in.get(encoded.data(), size);
    if (Encoding::encoded_size(encoded.data()) != size) in.corrupt("a malformed frontier state");
    if (position >= c.level_sizes.back() || (i > 0 && position <= t.frontier_positions.back())) {
      in.corrupt("frontier positions out of order");
    }
    t.frontier.append(encoded.data(), size);
    t.frontier_positions.push_back(position);
  }
  in.finish();
  return c;
}

// Deletes a file of an older generation (once the manifest no longer names it); a file
// already gone is fine.
inline void remove_rank_checkpoint(const std::string& dir, uint64_t rank, uint64_t ranks, uint64_t generation) {
  std::remove(checkpoint_path(dir, rank_checkpoint_file(rank, ranks, generation)).c_str());
}

}  // namespace isr::checker
