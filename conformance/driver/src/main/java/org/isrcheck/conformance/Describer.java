// The observables of docs/scenarios.md, read from the cluster itself: each broker's own
// metadata cache (a DescribeTopicPartitions request to that broker alone, Metadata v12
// on brokers without it), fenced brokers (DescribeCluster with include_fenced_brokers,
// KIP-1073), the leader's high watermark (ListOffsets latest, read_uncommitted:
// Partition.fetchOffsetForTimestamp answers the HW) and every replica's log from its disk.
// Every request goes to a broker's OBSERVER listener, which no cut touches, and is bounded.
package org.isrcheck.conformance;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

final class Describer {
  private static final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "describe");
    t.setDaemon(true);
    return t;
  });
  private static final JsonNodeFactory json = JsonNodeFactory.instance;

  /** One broker's metadata view of partition 0. */
  static final class View {
    int leader = -1;
    int leaderEpoch = -1;
    List<Integer> isr = List.of();
    List<Integer> elr = List.of();
    List<Integer> lastKnownElr = List.of();
    String api;

    List<Object> key() {
      return List.of(leader, leaderEpoch, new TreeSet<>(isr), new TreeSet<>(elr), new TreeSet<>(lastKnownElr));
    }

    ObjectNode toJson() {
      ObjectNode o = json.objectNode();
      o.put("leader", leader);
      o.put("leader_epoch", leaderEpoch);
      o.set("isr", ints(isr));
      o.set("elr", ints(elr));
      o.set("last_known_elr", ints(lastKnownElr));
      return o;
    }
  }

  /** What one broker answered about the cluster: fenced brokers, or the unfenced list. */
  static final class ClusterView {
    Set<Integer> fenced;       // include_fenced_brokers answers; null otherwise
    Set<Integer> unfenced = new TreeSet<>();
    String method;
  }

  /** Broker n's own view of `topic` partition 0, or null (no answer, no such topic). */
  static View view(Node n, String topic, long deadline) {
    try {
      if (n.raw.maxVersion(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, deadline) >= 0) {
        DescribeTopicPartitionsResponse r = (DescribeTopicPartitionsResponse) n.raw.send(
            new DescribeTopicPartitionsRequest.Builder(List.of(topic)), deadline, (short) -1);
        for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic t : r.data().topics()) {
          if (!topic.equals(t.name()) || t.errorCode() != 0) continue;
          for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition p : t.partitions()) {
            if (p.partitionIndex() != 0 || p.errorCode() != 0 && p.errorCode() != Errors.LEADER_NOT_AVAILABLE.code()) continue;
            View v = new View();
            v.leader = p.leaderId();
            v.leaderEpoch = p.leaderEpoch();
            v.isr = sorted(p.isrNodes());
            v.elr = p.eligibleLeaderReplicas() == null ? List.of() : sorted(p.eligibleLeaderReplicas());
            v.lastKnownElr = p.lastKnownElr() == null ? List.of() : sorted(p.lastKnownElr());
            v.api = "DescribeTopicPartitions";
            return v;
          }
        }
        return null;
      }
      MetadataResponse r = (MetadataResponse) n.raw.send(new MetadataRequest.Builder(List.of(topic), false), deadline, (short) -1);
      for (MetadataResponseData.MetadataResponseTopic t : r.data().topics()) {
        if (!topic.equals(t.name()) || t.errorCode() != 0) continue;
        for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
          if (p.partitionIndex() != 0) continue;
          View v = new View();
          v.leader = p.leaderId();
          v.leaderEpoch = p.leaderEpoch();
          v.isr = sorted(p.isrNodes());
          v.api = "Metadata";
          return v;
        }
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  static ClusterView clusterView(Node n, long deadline) {
    try {
      ClusterView cv = new ClusterView();
      short max = n.raw.maxVersion(ApiKeys.DESCRIBE_CLUSTER, deadline);
      if (max >= 2) {
        DescribeClusterResponse r = (DescribeClusterResponse) n.raw.send(new DescribeClusterRequest.Builder(
            new DescribeClusterRequestData().setIncludeFencedBrokers(true)), deadline, (short) -1);
        cv.fenced = new TreeSet<>();
        for (DescribeClusterResponseData.DescribeClusterBroker b : r.data().brokers()) {
          if (b.isFenced()) cv.fenced.add(b.brokerId()); else cv.unfenced.add(b.brokerId());
        }
        cv.method = "include_fenced_brokers";
        return cv;
      }
      MetadataResponse r = (MetadataResponse) n.raw.send(new MetadataRequest.Builder(List.of(), false), deadline, (short) -1);
      for (org.apache.kafka.common.Node b : r.brokers()) cv.unfenced.add(b.id());
      cv.method = "missing_from_metadata";
      return cv;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The leader's high watermark, or null. */
  static Long highWatermark(Node leader, String topic, long deadline) {
    while (System.currentTimeMillis() < deadline) {
      try {
        ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        t.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition()
            .setPartitionIndex(0).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP).setCurrentLeaderEpoch(-1));
        ListOffsetsResponse r = (ListOffsetsResponse) leader.raw.send(
            ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED).setTargetTimes(List.of(t)),
            deadline, (short) -1);
        for (ListOffsetsResponseData.ListOffsetsTopicResponse tr : r.data().topics()) {
          for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : tr.partitions()) {
            if (p.errorCode() == 0) return p.offset();
            if (p.errorCode() != Errors.OFFSET_NOT_AVAILABLE.code()) return null;  // not (or no longer) leader
          }
        }
        Thread.sleep(50);  // OFFSET_NOT_AVAILABLE: HW below the epoch start offset, retry
      } catch (IOException | RuntimeException e) {
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  static ObjectNode describe(Cluster c, String topic, long deadline) {
    Map<Integer, Future<View>> views = new TreeMap<>();
    Map<Integer, Future<ClusterView>> clusterViews = new TreeMap<>();
    long perBroker = Math.min(deadline, System.currentTimeMillis() + Math.max(500, (deadline - System.currentTimeMillis()) / 2));
    for (Node n : c.nodes.values()) {
      if (!n.broker || !n.alive() || n.paused) continue;
      views.put(n.id, pool.submit(() -> view(n, topic, perBroker)));
      clusterViews.put(n.id, pool.submit(() -> clusterView(n, perBroker)));
    }
    Map<Integer, View> answered = new TreeMap<>();
    Map<Integer, ClusterView> clusterAnswered = new TreeMap<>();
    for (Map.Entry<Integer, Future<View>> e : views.entrySet()) {
      View v = get(e.getValue(), deadline);
      if (v != null) answered.put(e.getKey(), v);
      ClusterView cv = get(clusterViews.get(e.getKey()), deadline);
      if (cv != null) clusterAnswered.put(e.getKey(), cv);
    }
    List<String> unknown = new ArrayList<>();
    ObjectNode out = json.objectNode();

    // The freshest view: drop brokers another answering broker lists as fenced (a broker
    // cut from the quorum keeps a stale cache), then highest leader epoch, then the view
    // most brokers share, then the lowest id.
    Set<Integer> fencedByOthers = new TreeSet<>();
    Set<Integer> brokers = c.brokerIds();
    for (Map.Entry<Integer, ClusterView> e : clusterAnswered.entrySet()) {
      for (int b : fencedOf(e.getValue(), brokers)) if (b != e.getKey()) fencedByOthers.add(b);
    }
    Map<Integer, View> candidates = new TreeMap<>();
    for (Map.Entry<Integer, View> e : answered.entrySet()) {
      if (!fencedByOthers.contains(e.getKey())) candidates.put(e.getKey(), e.getValue());
    }
    if (candidates.isEmpty()) candidates.putAll(answered);
    Integer source = null;
    if (!candidates.isEmpty()) {
      int maxEpoch = candidates.values().stream().mapToInt(v -> v.leaderEpoch).max().getAsInt();
      Map<List<Object>, Integer> votes = new HashMap<>();
      for (View v : candidates.values()) if (v.leaderEpoch == maxEpoch) votes.merge(v.key(), 1, Integer::sum);
      int best = votes.values().stream().mapToInt(Integer::intValue).max().getAsInt();
      for (Map.Entry<Integer, View> e : candidates.entrySet()) {
        if (e.getValue().leaderEpoch == maxEpoch && votes.get(e.getValue().key()) == best) {
          source = e.getKey();
          break;
        }
      }
    }
    boolean agree = answered.values().stream().map(View::key).distinct().count() <= 1;
    if (source == null) {
      for (String f : new String[] {"leader", "leader_epoch", "isr", "elr", "last_known_elr"}) {
        out.putNull(f);
        unknown.add(f);
      }
    } else {
      View v = answered.get(source);
      out.put("leader", v.leader);
      out.put("leader_epoch", v.leaderEpoch);
      out.set("isr", ints(v.isr));
      out.set("elr", ints(v.elr));
      out.set("last_known_elr", ints(v.lastKnownElr));
      out.put("view_api", v.api);
    }
    // Fenced brokers, as the source broker (else any answering broker) sees them.
    ClusterView cv = source != null && clusterAnswered.containsKey(source) ? clusterAnswered.get(source)
        : clusterAnswered.values().stream().findFirst().orElse(null);
    if (cv == null) {
      out.putNull("fenced");
      unknown.add("fenced");
    } else {
      out.set("fenced", ints(new ArrayList<>(fencedOf(cv, brokers))));
      out.put("fenced_method", cv.method);
    }
    // HW from the leader itself.
    Long hw = null;
    if (source != null) {
      int leaderId = answered.get(source).leader;
      Node leader = c.nodes.get(leaderId);
      if (leader != null && leader.alive() && !leader.paused) hw = highWatermark(leader, topic, deadline);
      if (leaderId >= 0 && hw == null) unknown.add("hw");
    } else {
      unknown.add("hw");
    }
    if (hw == null) out.putNull("hw"); else out.put("hw", hw);
    if (source == null) out.putNull("source"); else out.put("source", source);
    out.put("views_agree", agree);

    ObjectNode replicas = json.objectNode();
    for (Node n : c.nodes.values()) {
      if (!n.broker) continue;
      ObjectNode r = json.objectNode();
      r.put("alive", n.alive());
      r.put("paused", n.paused);
      LogReader.Result log = LogReader.read(new File(n.dataDir, topic + "-0"));
      r.put("leo", log.leo);
      ArrayNode entries = json.arrayNode();
      ArrayNode offsets = json.arrayNode();
      for (LogReader.Entry e : log.entries) {
        ArrayNode pair = json.arrayNode();
        pair.add(e.epoch);
        pair.add(e.record);
        entries.add(pair);
        offsets.add(e.offset);
      }
      r.set("log", entries);
      r.set("offsets", offsets);
      ArrayNode batches = json.arrayNode();
      for (LogReader.Batch b : log.batches) {
        ObjectNode bj = json.objectNode();
        bj.put("base", b.baseOffset);
        bj.put("count", b.count);
        bj.put("epoch", b.epoch);
        ArrayNode values = bj.putArray("values");
        b.values.forEach(values::add);
        batches.add(bj);
      }
      r.set("batches", batches);
      if (log.problem != null) r.put("log_problem", log.problem);
      View v = answered.get(n.id);
      if (v == null) r.putNull("view"); else r.set("view", v.toJson());
      if (n.alive() && !n.paused && v == null && !views.containsKey(n.id)) unknown.add("replicas." + n.id + ".view");
      replicas.set(Integer.toString(n.id), r);
    }
    out.set("replicas", replicas);
    ArrayNode u = json.arrayNode();
    unknown.forEach(u::add);
    out.set("unknown", u);
    return out;
  }

  private static Set<Integer> fencedOf(ClusterView cv, Set<Integer> brokers) {
    if (cv.fenced != null) {
      // Registered brokers marked fenced; a broker never registered is not listed at all.
      return cv.fenced;
    }
    Set<Integer> missing = new TreeSet<>(brokers);
    missing.removeAll(cv.unfenced);
    return missing;
  }

  private static <T> T get(Future<T> f, long deadline) {
    try {
      return f.get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      f.cancel(true);
      return null;
    }
  }

  private static List<Integer> sorted(List<Integer> l) {
    List<Integer> s = new ArrayList<>(l);
    s.sort(null);
    return s;
  }

  static ArrayNode ints(List<Integer> l) {
    ArrayNode a = json.arrayNode();
    for (int i : l) a.add(i);
    return a;
  }

  static boolean same(Object a, Object b) {
    return Objects.equals(a, b);
  }
}
