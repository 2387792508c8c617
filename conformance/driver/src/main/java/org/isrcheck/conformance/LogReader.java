// Reads one replica's log from its segment files (<log.dirs>/<topic>-0/*.log) with
// Kafka's own FileRecords, as kafka-dump-log.sh does (DumpLogSegments): each record as
// [partition leader epoch of its batch, k] where the value is "record-<k>", and each
// batch as its base offset, record count, partition leader epoch and values (a scenario
// whose model record stands for a batch of Kafka records maps batches to model records,
// conformance/batch_mapping.h). Works on a stopped node's disk too; a tail being written
// concurrently ends the read there.
package org.isrcheck.conformance;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;

final class LogReader {
  private LogReader() {}

  static final class Entry {
    final int epoch;
    final long offset;
    final int record;  // k of "record-k", -1 otherwise
    final String value;

    Entry(int epoch, long offset, int record, String value) {
      this.epoch = epoch;
      this.offset = offset;
      this.record = record;
      this.value = value;
    }
  }

  /** One record batch as stored: Kafka appends, replicates and truncates whole batches. */
  static final class Batch {
    final long baseOffset;
    final int count;
    final int epoch;
    final List<String> values = new ArrayList<>();

    Batch(long baseOffset, int count, int epoch) {
      this.baseOffset = baseOffset;
      this.count = count;
      this.epoch = epoch;
    }
  }

  static final class Result {
    final List<Entry> entries = new ArrayList<>();
    final List<Batch> batches = new ArrayList<>();
    long leo = 0;
    String problem;  // non-null when part of the log could not be read
  }

  static Result read(File partitionDir) {
    Result r = new Result();
    File[] segments = partitionDir.listFiles((d, name) -> name.endsWith(".log"));
    if (segments == null) return r;  // no such directory: an empty log
    Arrays.sort(segments);           // base offsets are zero-padded: name order = offset order
    for (File segment : segments) {
      try (FileRecords records = FileRecords.open(segment, false)) {
        for (FileChannelRecordBatch batch : records.batches()) {
          Batch b = new Batch(batch.baseOffset(), (int) (batch.lastOffset() - batch.baseOffset() + 1),
              batch.partitionLeaderEpoch());
          for (Record rec : batch) {
            String value = text(rec.value());
            r.entries.add(new Entry(batch.partitionLeaderEpoch(), rec.offset(), recordId(value), value));
            b.values.add(value);
          }
          r.batches.add(b);
          r.leo = batch.lastOffset() + 1;
        }
      } catch (Exception e) {
        // A segment deleted or truncated under us, or a batch half-written at the tail.
        r.problem = segment.getName() + ": " + e;
      }
    }
    return r;
  }

  private static String text(ByteBuffer b) {
    if (b == null) return null;
    byte[] bytes = new byte[b.remaining()];
    b.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static int recordId(String value) {
    if (value == null || !value.startsWith("record-")) return -1;
    try {
      return Integer.parseInt(value.substring(7));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
