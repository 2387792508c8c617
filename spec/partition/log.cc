// A replica's log: appending (and the fsync policy it follows), truncating to an
// offset, and its latest leader epoch (UnifiedLog.appendAsLeader / appendAsFollower,
// UnifiedLog.truncateTo).
#include <algorithm>

#include "spec/partition/rules.h"

namespace isr::spec::rules {

bool tracks_flush(const Config& c) { return c.faults.max_lossy_crashes > 0; }

void append(const Config& c, ReplicaState& r, LogEntry entry) {
  r.log[r.leo++] = entry;
  // log.flush.interval.messages=1 fsyncs every append; Kafka's default leaves it to the
  // OS, so the suffix past `flushed` is lost by a power failure (MODEL.md, flush policy).
  if (tracks_flush(c) && c.flush == FlushPolicy::EveryAppend) r.flushed = r.leo;
}

void truncate_to(ReplicaState& r, int offset) {
  if (offset >= r.leo) return;
  for (int i = offset; i < r.leo; ++i) r.log[i] = LogEntry{};
  r.leo = static_cast<uint8_t>(offset);
  // UnifiedLog.truncateTo keeps the HW and checkpoints within the log end.
  r.hw = std::min(r.hw, r.leo);
  r.flushed = std::min(r.flushed, r.leo);
  r.hw_checkpoint = std::min(r.hw_checkpoint, r.leo);
}

int latest_epoch(const ReplicaState& r) { return r.leo == 0 ? -1 : r.log[r.leo - 1].epoch; }

}  // namespace isr::spec::rules
