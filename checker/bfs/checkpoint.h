// Checkpoint and resume of the exhaustive search (`check --checkpoint DIR`, `--resume
// DIR`; docs/checker.md, "Checkpoint and resume"): what bfs.h must keep to go on from the
// end of a completed level exactly as if it had never stopped, written with the atomic,
// checksummed file of checker/bfs/checkpoint_file.h.
//
// A checkpoint is the search at a level boundary: levels 0..depth complete, the frontier
// holding level `depth`. That is the whole state of a level-synchronous BFS: the visited
// set (every fingerprint of levels 0..depth), the parent log (for counterexamples), the
// frontier's states and the counters. Resuming re-expands level depth + 1 from scratch, in
// the same waves, so the result (counts, level sizes, verdict, trace) is the one of an
// uninterrupted run, for any thread count. A stop in the middle of a level writes the
// boundary before it: the fingerprints that level's finished waves had already inserted
// are left out (the engine passes them, sorted, as `exclude`).
//
// Layout after checkpoint_file.h's header: identity; fingerprint bits and sizeof(State);
// the counters; the visited set (count, fingerprints in increasing order); the parent
// log; the frontier (count, then each state as its sparse XOR with the previous one,
// checker/store/xor_encoding.h: ~15 bytes a Kafka state instead of ~600).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/bfs/checkpoint_file.h"
#include "checker/bfs/checkpoint_options.h"
#include "checker/store/parent_log.h"
#include "checker/store/state_store.h"
#include "checker/store/visited_set.h"
#include "checker/store/xor_encoding.h"

namespace isr::checker {

// The engine's figures at a level boundary, saved as they are (bfs.h's members).
struct CheckpointCounters {
  uint64_t generated = 0;
  uint64_t distinct = 0;
  int32_t depth = 0;
  uint32_t bounds_mask = 0;
  uint32_t usage_mask = 0;
  uint8_t lookup_in_expand = 1;  // where the next level looks successors up (speed only)
  uint64_t frontier_encoded_bytes = 0;
  uint64_t frontier_states = 0;
  uint64_t peak_memory = 0;
  uint64_t por_reduced = 0;
  uint64_t por_proviso = 0;
  double seconds = 0;  // wall time of every run up to this checkpoint
  std::vector<uint64_t> level_sizes;
};

template <class State, class Fp>
struct CheckpointTables {
  BasicVisitedSet<Fp>& visited;
  ParentLog& parents;
  StateStore<State>& frontier;
};

namespace checkpoint_detail {

template <class State, class Fp>
void write_engine_header(CheckpointWriter& out, const CheckpointOptions& options) {
  out.string(options.identity);
  out.value(static_cast<uint32_t>(kFingerprintBits<Fp>));
  out.value(static_cast<uint64_t>(sizeof(State)));
}

inline void write_counters(CheckpointWriter& out, const CheckpointCounters& c) {
  out.value(c.generated);
  out.value(c.distinct);
  out.value(c.depth);
  out.value(c.bounds_mask);
  out.value(c.usage_mask);
  out.value(c.lookup_in_expand);
  out.value(c.frontier_encoded_bytes);
  out.value(c.frontier_states);
  out.value(c.peak_memory);
  out.value(c.por_reduced);
  out.value(c.por_proviso);
  out.value(c.seconds);
  out.value(static_cast<uint64_t>(c.level_sizes.size()));
  for (const uint64_t n : c.level_sizes) out.value(n);
}

inline CheckpointCounters read_counters(CheckpointReader& in) {
  CheckpointCounters c;
  c.generated = in.value<uint64_t>();
  c.distinct = in.value<uint64_t>();
  c.depth = in.value<int32_t>();
  c.bounds_mask = in.value<uint32_t>();
  c.usage_mask = in.value<uint32_t>();
  c.lookup_in_expand = in.value<uint8_t>();
  c.frontier_encoded_bytes = in.value<uint64_t>();
  c.frontier_states = in.value<uint64_t>();
  c.peak_memory = in.value<uint64_t>();
  c.por_reduced = in.value<uint64_t>();
  c.por_proviso = in.value<uint64_t>();
  c.seconds = in.value<double>();
  c.level_sizes.resize(in.count(sizeof(uint64_t)));
  for (uint64_t& n : c.level_sizes) n = in.value<uint64_t>();
  if (c.depth < 0 || c.level_sizes.size() != static_cast<size_t>(c.depth) + 1) in.corrupt("level sizes do not match the depth");
  return c;
}

}  // namespace checkpoint_detail

// Writes the search at a level boundary into options.dir (atomically). `exclude`: sorted
// fingerprints the visited set holds beyond the boundary (a level stopped midway).
// Returns the file's size.
template <class State, class Fp>
uint64_t write_checkpoint(const CheckpointOptions& options, const CheckpointCounters& counters,
                          const BasicVisitedSet<Fp>& visited, const std::vector<Fp>& exclude,
                          const ParentLog& parents, const StateStore<State>& frontier) {
  CheckpointWriter out(options.dir);
  checkpoint_detail::write_engine_header<State, Fp>(out, options);
  checkpoint_detail::write_counters(out, counters);

  // The visited set iterates in increasing order, as `exclude` is sorted.
  out.value(static_cast<uint64_t>(visited.size() - exclude.size()));
  size_t skip = 0;
  uint64_t kept = 0;
  visited.for_each([&](const Fp& fp) {
    while (skip < exclude.size() && exclude[skip] < fp) ++skip;
    if (skip < exclude.size() && exclude[skip] == fp) return;
    out.value(fp);
    ++kept;
  });
  if (kept != visited.size() - exclude.size()) throw std::logic_error("checkpoint: excluded fingerprints not in the visited set");

  parents.write_to(out);

  using Encoding = XorEncoding<sizeof(State)>;
  out.value(static_cast<uint64_t>(frontier.size()));
  typename StateStore<State>::Reader reader(frontier);
  std::vector<uint8_t> previous(sizeof(State), 0);
  std::vector<uint8_t> encoded(Encoding::kMaxEncoded);
  for (size_t i = 0; i < frontier.size(); ++i) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(&reader.get(i));
    const uint8_t* end = Encoding::encode(bytes, previous.data(), encoded.data());
    const auto n = static_cast<uint32_t>(end - encoded.data());
    out.value(n);
    out.put(encoded.data(), n);
    std::copy(bytes, bytes + sizeof(State), previous.begin());
  }
  return out.commit();
}

// Reads options.dir's checkpoint into the (fresh) tables and returns its counters.
// CheckpointError when the file is unusable or was written for another identity, another
// fingerprint width or another state layout.
template <class State, class Fp>
CheckpointCounters read_checkpoint(const CheckpointOptions& options, CheckpointTables<State, Fp> tables) {
  CheckpointReader in(options.dir);
  const std::string identity = in.string();
  if (identity != options.identity) {
    throw CheckpointError("checkpoint " + checkpoint_path(options.dir) + " belongs to another run: " + identity);
  }
  const auto bits = in.value<uint32_t>();
  const auto state_bytes = in.value<uint64_t>();
  if (bits != static_cast<uint32_t>(kFingerprintBits<Fp>) || state_bytes != sizeof(State)) {
    in.corrupt("written with " + std::to_string(bits) + "-bit fingerprints and " + std::to_string(state_bytes) +
               "-byte states, not " + std::to_string(kFingerprintBits<Fp>) + " and " + std::to_string(sizeof(State)));
  }
  CheckpointCounters counters = checkpoint_detail::read_counters(in);

  // Fingerprints come sorted: split by shard and insert as one batch (visited_set.h).
  using Set = BasicVisitedSet<Fp>;
  const uint64_t n = in.count(sizeof(Fp));
  if (n != counters.distinct) in.corrupt("the visited set does not hold the distinct states");
  std::vector<std::vector<Fp>> batches(Set::kShards);
  Fp last{};
  for (uint64_t i = 0; i < n; ++i) {
    const Fp fp = in.value<Fp>();
    if (fp == Fp{} || (i > 0 && !(last < fp))) in.corrupt("fingerprints out of order");
    batches[Set::shard_of(fp)].push_back(fp);
    last = fp;
  }
  std::vector<size_t> incoming(Set::kShards);
  for (size_t s = 0; s < Set::kShards; ++s) incoming[s] = batches[s].size();
  tables.visited.begin_batch(incoming);
  for (size_t s = 0; s < Set::kShards; ++s) tables.visited.insert_batch(s, batches[s].data(), batches[s].size());
  tables.visited.end_batch(batches);

  if (!tables.parents.read_from(in)) in.corrupt("a parent log that does not match");
  if (tables.parents.levels() != counters.level_sizes.size()) in.corrupt("a parent log of another depth");

  using Encoding = XorEncoding<sizeof(State)>;
  using Store = StateStore<State>;
  const uint64_t states = in.count(sizeof(uint32_t));
  if (states != counters.level_sizes.back()) in.corrupt("a frontier of another size than its level");
  tables.frontier.reset(states);
  State state;
  auto* bytes = reinterpret_cast<uint8_t*>(&state);
  std::fill(bytes, bytes + sizeof(State), uint8_t{0});
  // Room for what a malformed encoding could claim (encoded_size reads that far).
  std::vector<uint8_t> encoded(Encoding::kMaxEncoded + 8 * Encoding::kGroups);
  for (uint64_t i = 0; i < states; ++i) {
    const auto size = in.value<uint32_t>();
    if (size > Encoding::kMaxEncoded) in.corrupt("a frontier state larger than a state");
    in.get(encoded.data(), size);
    if (Encoding::encoded_size(encoded.data()) != size) in.corrupt("a malformed frontier state");
    Encoding::apply(encoded.data(), bytes);
    tables.frontier.append(static_cast<size_t>(i / Store::kChunk), state);
  }
  for (size_t c = 0; c < tables.frontier.chunks(); ++c) tables.frontier.seal(c);
  in.finish();
  return counters;
}

}  // namespace isr::checker
