// Runs in a child JVM on the classpath of the Kafka release under test (plus this jar), as
// FormatHelper does: reads the KRaft metadata log (`__cluster_metadata-0`: segments and,
// where segments were deleted, the snapshot before them) of each controller directory
// given, with that release's own decoder (MetadataRecordSerde, as kafka-dump-log.sh
// --cluster-metadata-decoder does), and prints the controller's committed decisions for
// one topic's partition 0 and the broker registrations as JSON lines (docs/recording.md,
// "Decisions"). The partition state after each record is Kafka's own replay:
// PartitionRegistration(PartitionRecord) and PartitionRegistration.merge(PartitionChangeRecord),
// so the leader epoch and partition epoch are the ones the controller computes.
//
// Only metadata classes whose signatures are the same in 3.9.1 and 4.4.0 are linked
// (checked with javap on both jars; the driver jar is compiled against 4.4.0 with them
// `provided`); the record framing, which moved between the two, is reached by reflection.
// So are the members 3.4.1 and 3.5.2 (the KIP-903 release pair) lack: a PartitionRegistration's
// elr and lastKnownElr (KIP-966, 3.7) and a RegisterBrokerRecord's logDirs (KIP-858, 3.7);
// linked directly they threw NoSuchFieldError, and those releases' recordings had no
// decisions. Absent, they are what those releases had: no ELR, no directories.
//
// Committed: a record counts when a majority of the directories given hold a batch with
// its offset and the same leader epoch (Raft's log matching: the same entry); one
// directory (a single voter) is its own majority. Arguments: <topic> <dir>... (a missing
// directory is an empty log: a voter whose disk was lost). Exit 0, or 1 with a message.
package org.isrcheck.conformance;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.BrokerRegistrationChangeRecord;
import org.apache.kafka.common.metadata.FenceBrokerRecord;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.metadata.UnfenceBrokerRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.metadata.BrokerRegistrationFencingChange;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.metadata.PartitionRegistration;
import org.apache.kafka.server.common.ApiMessageAndVersion;

public final class MetadataLogHelper {
  /** One metadata record as read from a log: where it is and what it says. */
  record Entry(long offset, int epoch, long appendTimeMs, boolean fromSnapshot, ApiMessage message) {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: MetadataLogHelper <topic> <metadata log dir>...");
      System.exit(2);
    }
    String topic = args[0];
    List<List<Entry>> logs = new ArrayList<>();
    for (int i = 1; i < args.length; i++) logs.add(read(new File(args[i])));
    List<Entry> committed = committed(logs);
    StringBuilder out = new StringBuilder();
    emit(topic, committed, out);
    System.out.print(out);
    System.out.flush();
  }

  /** The records of one `__cluster_metadata-0` directory, by offset. */
  static List<Entry> read(File dir) throws Exception {
    List<Entry> out = new ArrayList<>();
    File[] files = dir.listFiles();
    if (files == null) return out;  // no directory: an empty log
    TreeMap<Long, File> segments = new TreeMap<>();
    TreeMap<Long, File> snapshots = new TreeMap<>();
    for (File f : files) {
      String name = f.getName();
      if (name.endsWith(".log")) segments.put(Long.parseLong(name.substring(0, 20)), f);
      // <end offset, 20 digits>-<epoch, 10 digits>.checkpoint
      if (name.endsWith(".checkpoint") && name.length() == 20 + 1 + 10 + 11) {
        snapshots.put(Long.parseLong(name.substring(0, 20)), f);
      }
    }
    long firstSegment = segments.isEmpty() ? Long.MAX_VALUE : segments.firstKey();
    long from = 0;
    // Segments below a snapshot may have been deleted: the snapshot then stands for them
    // (the state at its end offset, not the decisions that led there).
    if (firstSegment > 0 && !snapshots.isEmpty()) {
      Map.Entry<Long, File> snap = snapshots.floorEntry(firstSegment == Long.MAX_VALUE ? Long.MAX_VALUE : firstSegment);
      if (snap == null) snap = snapshots.firstEntry();
      from = snap.getKey();
      readFile(snap.getValue(), true, from - 1, out);
    }
    for (File f : segments.values()) readFile(f, false, -1, out);
    List<Entry> kept = new ArrayList<>();
    for (Entry e : out) if (e.fromSnapshot() || e.offset() >= from) kept.add(e);
    return kept;
  }

  // The record framing classes moved in 4.0 (org.apache.kafka.common.record to
  // ...record.internal) with the same methods, so they are reached by reflection: the
  // release's own FileRecords reads the files, as its kafka-dump-log.sh does.
  static final String RECORD_PACKAGE = recordPackage();

  static String recordPackage() {
    for (String p : new String[] {"org.apache.kafka.common.record.internal", "org.apache.kafka.common.record"}) {
      try {
        Class.forName(p + ".FileRecords");
        return p;
      } catch (ClassNotFoundException ignored) {
        // try the next location
      }
    }
    throw new IllegalStateException("no Kafka FileRecords class on the classpath");
  }

  static void readFile(File f, boolean snapshot, long snapshotOffset, List<Entry> out) throws Exception {
    Class<?> fileRecords = Class.forName(RECORD_PACKAGE + ".FileRecords");
    Class<?> batchClass = Class.forName(RECORD_PACKAGE + ".RecordBatch");
    Class<?> recordClass = Class.forName(RECORD_PACKAGE + ".Record");
    Method isControl = batchClass.getMethod("isControlBatch");
    Method leaderEpoch = batchClass.getMethod("partitionLeaderEpoch");
    Method offset = recordClass.getMethod("offset");
    Method timestamp = recordClass.getMethod("timestamp");
    Method value = recordClass.getMethod("value");
    Object records = fileRecords.getMethod("open", File.class, boolean.class).invoke(null, f, false);
    // Only its channel is closed: 3.9's FileRecords.close() trims the file to its size,
    // which a read-only channel refuses (and a live voter's log must not be written).
    try {
      for (Object batch : (Iterable<?>) fileRecords.getMethod("batches").invoke(records)) {
        if ((Boolean) isControl.invoke(batch)) continue;  // leader change, snapshot header/footer, voters
        int epoch = (Integer) leaderEpoch.invoke(batch);
        for (Object r : (Iterable<?>) batch) {
          ByteBuffer v = (ByteBuffer) value.invoke(r);
          if (v == null) continue;
          ApiMessageAndVersion m = MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(v), v.remaining());
          out.add(new Entry(snapshot ? snapshotOffset : (Long) offset.invoke(r), epoch, (Long) timestamp.invoke(r),
              snapshot, m.message()));
        }
      }
    } finally {
      ((java.nio.channels.FileChannel) fileRecords.getMethod("channel").invoke(records)).close();
    }
  }

  /** The records a majority of the logs hold at the same offset with the same epoch. */
  static List<Entry> committed(List<List<Entry>> logs) {
    int majority = logs.size() / 2 + 1;
    Map<String, Integer> count = new HashMap<>();
    for (List<Entry> log : logs) {
      for (Entry e : log) count.merge(e.offset() + "/" + e.epoch() + "/" + e.fromSnapshot(), 1, Integer::sum);
    }
    // The longest log's entries, in order, while a majority holds them.
    List<Entry> longest = logs.get(0);
    for (List<Entry> log : logs) if (log.size() > longest.size()) longest = log;
    List<Entry> out = new ArrayList<>();
    for (Entry e : longest) {
      if (count.getOrDefault(e.offset() + "/" + e.epoch() + "/" + e.fromSnapshot(), 0) < majority) break;
      out.add(e);
    }
    return out;
  }

  static void emit(String topic, List<Entry> entries, StringBuilder out) {
    Uuid topicId = null;
    PartitionRegistration partition = null;
    for (Entry e : entries) {
      ApiMessage m = e.message();
      if (m instanceof TopicRecord t && t.name().equals(topic)) {
        topicId = t.topicId();
        partition = null;  // a topic created again under the name: its partition starts afresh
        continue;
      }
      if (m instanceof PartitionRecord p && p.topicId().equals(topicId) && p.partitionId() == 0) {
        partition = new PartitionRegistration(p);
        line(out, e, "partition", "PartitionRecord").append(partitionFields(partition)).append("}\n");
        continue;
      }
      if (m instanceof PartitionChangeRecord c && partition != null && c.topicId().equals(topicId)
          && c.partitionId() == 0) {
        partition = partition.merge(c);
        line(out, e, "partition", "PartitionChangeRecord").append(partitionFields(partition)).append("}\n");
        continue;
      }
      if (partition == null) continue;  // before the scenario's partition existed: not its run
      if (m instanceof RegisterBrokerRecord r) {
        StringBuilder dirs = new StringBuilder("[");
        for (Uuid d : logDirs(r)) dirs.append(dirs.length() > 1 ? "," : "").append('"').append(d).append('"');
        line(out, e, "register_broker", "RegisterBrokerRecord").append(",\"broker\":").append(r.brokerId())
            .append(",\"broker_epoch\":").append(r.brokerEpoch()).append(",\"fenced\":").append(r.fenced())
            .append(",\"in_controlled_shutdown\":").append(r.inControlledShutdown())
            .append(",\"directories\":").append(dirs).append("]}\n");
      } else if (m instanceof BrokerRegistrationChangeRecord r) {
        String fencing = BrokerRegistrationFencingChange.fromValue(r.fenced())
            .map(f -> f == BrokerRegistrationFencingChange.FENCE ? "fence"
                : f == BrokerRegistrationFencingChange.UNFENCE ? "unfence" : "none")
            .orElse("none");
        line(out, e, "broker_change", "BrokerRegistrationChangeRecord").append(",\"broker\":").append(r.brokerId())
            .append(",\"broker_epoch\":").append(r.brokerEpoch()).append(",\"fencing\":\"").append(fencing)
            .append("\",\"in_controlled_shutdown\":").append(r.inControlledShutdown()).append("}\n");
      } else if (m instanceof FenceBrokerRecord r) {
        line(out, e, "fence_broker", "FenceBrokerRecord").append(",\"broker\":").append(r.id())
            .append(",\"broker_epoch\":").append(r.epoch()).append("}\n");
      } else if (m instanceof UnfenceBrokerRecord r) {
        line(out, e, "unfence_broker", "UnfenceBrokerRecord").append(",\"broker\":").append(r.id())
            .append(",\"broker_epoch\":").append(r.epoch()).append("}\n");
      }
    }
  }

  static StringBuilder line(StringBuilder out, Entry e, String op, String type) {
    return out.append("{\"op\":\"").append(op).append("\",\"record_type\":\"").append(type)
        .append("\",\"metadata_offset\":").append(e.offset()).append(",\"metadata_epoch\":").append(e.epoch())
        .append(",\"append_time_ms\":").append(e.appendTimeMs()).append(",\"from_snapshot\":").append(e.fromSnapshot());
  }

  static String partitionFields(PartitionRegistration p) {
    return ",\"leader\":" + p.leader + ",\"leader_epoch\":" + p.leaderEpoch + ",\"partition_epoch\":" + p.partitionEpoch
        + ",\"replicas\":" + ints(p.replicas) + ",\"isr\":" + ints(p.isr) + ",\"elr\":" + ints(intsField(p, "elr"))
        + ",\"last_known_elr\":" + ints(intsField(p, "lastKnownElr")) + ",\"leader_recovery\":\""
        + p.leaderRecoveryState + "\"";
  }

  /** A PartitionRegistration's int[] field of a later release (top of this file); null when absent. */
  static int[] intsField(PartitionRegistration p, String name) {
    try {
      return (int[]) PartitionRegistration.class.getField(name).get(p);
    } catch (NoSuchFieldException e) {
      return null;
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("PartitionRegistration." + name + " is not public in this release", e);
    }
  }

  /** A registration's log directories (KIP-858); none before the release that added them. */
  @SuppressWarnings("unchecked")
  static List<Uuid> logDirs(RegisterBrokerRecord r) {
    try {
      return (List<Uuid>) RegisterBrokerRecord.class.getMethod("logDirs").invoke(r);
    } catch (NoSuchMethodException e) {
      return List.of();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("RegisterBrokerRecord.logDirs() failed", e);
    }
  }

  static String ints(int[] values) {
    return Arrays.toString(values == null ? new int[0] : values).replace(" ", "");
  }
}
