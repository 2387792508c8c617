// A KRaft cluster on a KIP-853 dynamic quorum (start_cluster "quorum": "dynamic"): the
// controllers' directory ids chosen before the format, `kafka-storage format
// --initial-controllers`, `controller.quorum.bootstrap.servers` instead of
// `controller.quorum.voters`; a controller whose disk was lost formatted again with
// `--no-initial-controllers` (a new directory id: it runs as an observer); the operator's
// Admin.removeRaftVoter / addRaftVoter; and the quorum's voters and observers
// (Admin.describeMetadataQuorum) for the observations. Kept apart from Cluster so that a
// static cluster's path is unchanged.
package org.isrcheck.conformance;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.apache.kafka.common.Uuid;

final class DynamicQuorum {
  // The metadata log directory id of each initial voter, written by the format
  // (--initial-controllers names it per voter): the key the voter set holds for it.
  private final Map<Integer, Uuid> initialDirectories = new TreeMap<>();
  // Controllers whose disk was lost: their next format joins no voter set.
  private final Set<Integer> wiped = new TreeSet<>();
  private Admin admin;

  DynamicQuorum(List<Integer> voters) {
    for (int v : voters) initialDirectories.put(v, Uuid.randomUuid());
  }

  /** What replaces controller.quorum.voters in every node's server.properties. */
  static void configure(Cluster c, Map<String, String> cfg) {
    cfg.put("controller.quorum.bootstrap.servers", bootstrap(c));
  }

  private static String bootstrap(Cluster c) {
    return c.voters.stream().map(v -> "127.0.0.1:" + c.nodes.get(v).controllerProxy.port())
        .collect(Collectors.joining(","));
  }

  /** The format flags of node `n` (StorageTool refuses them with controller.quorum.voters). */
  List<String> formatArgs(Cluster c, Node n) {
    List<String> args = new ArrayList<>();
    if (!n.controller) return args;  // a broker-only node is an observer through the bootstrap servers
    if (wiped.contains(n.id)) {
      args.add("--no-initial-controllers");
      return args;
    }
    args.add("--initial-controllers");
    args.add(c.voters.stream()
        .map(v -> v + "@127.0.0.1:" + c.nodes.get(v).controllerProxy.port() + ":" + initialDirectories.get(v))
        .collect(Collectors.joining(",")));
    return args;
  }

  void diskLost(Node n) {
    if (n.controller) wiped.add(n.id);
  }

  /** Admin.removeRaftVoter of the key the voter set holds for `id` (its lost directory). */
  void removeVoter(Cluster c, int id, long deadline) throws DriverException, InterruptedException {
    QuorumInfo q = quorum(c, deadline, true);
    Uuid key = null;
    for (QuorumInfo.ReplicaState v : q.voters()) if (v.replicaId() == id) key = v.replicaDirectoryId();
    if (key == null) throw DriverException.badRequest("node " + id + " is not in the voter set " + ids(q.voters()));
    try {
      admin(c).removeRaftVoter(id, key).all().get(Cluster.left(deadline), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw DriverException.kafka("removeRaftVoter(" + id + ", " + key + "): " + e.getCause());
    } catch (TimeoutException e) {
      throw DriverException.timeout("removeRaftVoter(" + id + ") did not complete in time");
    }
  }

  /** Admin.addRaftVoter of `id` with the directory id its last format wrote, on its controller proxy. */
  void addVoter(Cluster c, int id, long deadline) throws DriverException, InterruptedException, IOException {
    Node n = c.node(id);
    if (!n.controller) throw DriverException.badRequest("node " + id + " has no controller role");
    Uuid dir = directoryId(n);
    RaftVoterEndpoint endpoint = new RaftVoterEndpoint("CONTROLLER", "127.0.0.1", n.controllerProxy.port());
    // AddVoterHandler answers REQUEST_TIMED_OUT while the observer lags
    // (LeaderState.isReplicaCaughtUp): retried until the deadline, as an operator would.
    String last = "";
    while (System.currentTimeMillis() < deadline) {
      try {
        admin(c).addRaftVoter(id, dir, Set.of(endpoint)).all()
            .get(Math.min(Cluster.left(deadline), 10000), TimeUnit.MILLISECONDS);
        return;
      } catch (ExecutionException e) {
        last = String.valueOf(e.getCause());
      } catch (TimeoutException e) {
        last = "no answer in 10 s";
      }
      Thread.sleep(500);
    }
    throw DriverException.kafka("addRaftVoter(" + id + ", " + dir + ") did not succeed in time: " + last);
  }

  /**
   * Adds "voters" (the voter set's ids) and "observers" (controller-role nodes fetching
   * as observers) to a describe, or lists them under "unknown" when no controller answers.
   */
  void describe(Cluster c, ObjectNode d, long deadline) throws InterruptedException {
    try {
      QuorumInfo q = quorum(c, deadline, false);
      ArrayNode voters = d.putArray("voters");
      ids(q.voters()).forEach(voters::add);
      ArrayNode observers = d.putArray("observers");
      // An observer here is a running controller whose *current* key (its id and the
      // directory id its last format wrote) the leader lists among its observers. Kafka's
      // list alone says more: LeaderState.updateVoterAndObserverStates moves a removed
      // voter's key (the lost directory's) to the observers, where it stays until
      // clearInactiveObservers drops it (minutes), and broker-only nodes are observers too.
      Set<String> observerKeys = q.observers().stream().map(o -> o.replicaId() + "/" + o.replicaDirectoryId())
          .collect(Collectors.toSet());
      Set<Integer> observing = new TreeSet<>();
      for (Node n : c.nodes.values()) {
        if (!n.controller || !n.alive()) continue;
        Uuid current = currentDirectory(n);
        if (current != null && observerKeys.contains(n.id + "/" + current)) observing.add(n.id);
      }
      observing.forEach(observers::add);
      // The raw keys, for people reading a divergence (not compared).
      ArrayNode keys = d.putArray("quorum_keys");
      q.voters().forEach(v -> keys.add("voter " + v.replicaId() + "/" + v.replicaDirectoryId()));
      q.observers().forEach(o -> keys.add("observer " + o.replicaId() + "/" + o.replicaDirectoryId()));
    } catch (DriverException e) {
      d.putNull("voters");
      d.putNull("observers");
      ArrayNode unknown = d.has("unknown") && d.get("unknown").isArray() ? (ArrayNode) d.get("unknown") : d.putArray("unknown");
      unknown.add("voters");
      unknown.add("observers");
    }
  }

  /**
   * Admin.describeMetadataQuorum. With `retry`, asked again until the deadline when the
   * admin client found no controller to send it to within its own timeout: it can pick a
   * crashed controller again and again (that controller's proxy still accepts
   * connections, so the requests time out rather than fail at once) until the call's
   * default.api.timeout.ms passes. An operator about to remove a voter would ask again;
   * an observation (describe) is left unknown instead.
   */
  private QuorumInfo quorum(Cluster c, long deadline, boolean retry) throws DriverException, InterruptedException {
    String last;
    while (true) {
      try {
        return admin(c).describeMetadataQuorum().quorumInfo()
            .get(Math.max(1, Math.min(Cluster.left(deadline), 15000)), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!retry || !(e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException)) {
          throw DriverException.kafka("describeMetadataQuorum: " + e.getCause());
        }
        last = String.valueOf(e.getCause());
      } catch (TimeoutException e) {
        last = "no answer in time";
        if (!retry) throw DriverException.timeout("describeMetadataQuorum did not answer in time");
      }
      if (deadline - System.currentTimeMillis() <= 200) {
        throw DriverException.timeout("describeMetadataQuorum did not answer in time: " + last);
      }
      Thread.sleep(200);
    }
  }

  private static Set<Integer> ids(List<QuorumInfo.ReplicaState> replicas) {
    return replicas.stream().map(QuorumInfo.ReplicaState::replicaId).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The directory id node `n` runs on: the initial one, or its last format's after a disk loss. */
  private Uuid currentDirectory(Node n) {
    if (!wiped.contains(n.id)) return initialDirectories.get(n.id);
    try {
      return directoryId(n);
    } catch (IOException | DriverException e) {
      return null;  // not formatted again yet
    }
  }

  /** The directory.id the node's last format wrote into meta.properties. */
  private static Uuid directoryId(Node n) throws IOException, DriverException {
    Path meta = n.dataDir.toPath().resolve("meta.properties");
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(meta, StandardCharsets.UTF_8)) {
      p.load(in);
    }
    String id = p.getProperty("directory.id");
    if (id == null) throw DriverException.internal(meta + " has no directory.id");
    return Uuid.fromString(id);
  }

  /** An admin client of the controllers (KIP-919 bootstrap.controllers): quorum APIs go there. */
  private synchronized Admin admin(Cluster c) {
    if (admin == null) {
      Properties p = new Properties();
      p.put("bootstrap.controllers", bootstrap(c));
      p.put("request.timeout.ms", "3000");
      p.put("default.api.timeout.ms", "10000");
      p.put("client.id", "isrcheck-quorum-admin");
      admin = Admin.create(p);
    }
    return admin;
  }

  synchronized void close() {
    if (admin != null) admin.close(java.time.Duration.ofSeconds(2));
    admin = null;
  }
}
