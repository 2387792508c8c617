// One Kafka cluster under test: the nodes of a scenario on loopback ports behind the
// driver's proxies, formatted and started by the release's own tools, the faults of
// PROTOCOL.md applied to exactly one node or one side of it, and the observations
// (Describer) read from the brokers themselves and from their disks.
package org.isrcheck.conformance;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

final class Cluster implements TcpProxy.CutPolicy {
  /** Kafka's defaults lowered so that a scenario runs in seconds (issue 16, point 6). */
  static final Map<String, String> LOWERED = Map.ofEntries(
      Map.entry("replica.lag.time.max.ms", "2000"),
      Map.entry("broker.session.timeout.ms", "1500"),
      Map.entry("broker.heartbeat.interval.ms", "250"),
      Map.entry("controller.quorum.election.timeout.ms", "1000"),
      Map.entry("controller.quorum.fetch.timeout.ms", "2000"),
      Map.entry("replica.fetch.wait.max.ms", "100"),
      // Housekeeping for a one-partition test cluster.
      Map.entry("offsets.topic.replication.factor", "1"),
      Map.entry("transaction.state.log.replication.factor", "1"),
      Map.entry("transaction.state.log.min.isr", "1"),
      Map.entry("share.coordinator.state.topic.replication.factor", "1"),
      Map.entry("share.coordinator.state.topic.min.isr", "1"),
      Map.entry("group.initial.rebalance.delay.ms", "0"),
      Map.entry("auto.create.topics.enable", "false"),
      // A timer-driven preferred election is a step no trace takes (elect_preferred does it).
      Map.entry("auto.leader.rebalance.enable", "false"),
      // Fewer threads: three JVMs share two cores.
      Map.entry("num.network.threads", "2"),
      Map.entry("num.io.threads", "2"),
      Map.entry("background.threads", "2"),
      Map.entry("num.replica.fetchers", "1"),
      Map.entry("log.cleaner.threads", "1"),
      Map.entry("num.recovery.threads.per.data.dir", "1"));

  final File workDir;
  final String kafkaVersion;
  final String classpath;
  final String clusterId = Uuid.randomUuid().toString();
  final Map<Integer, Node> nodes = new TreeMap<>();
  final List<Integer> voters;
  final int heapMb;
  final Map<String, String> features;
  // ZooKeeper mode (ZooKeeperMode): the controller-role nodes are the ZooKeeper ensemble.
  final boolean zookeeper;
  // KIP-853 dynamic quorum (start_cluster "quorum": "dynamic"), null on a static one.
  DynamicQuorum dynamic;
  private final Set<String> cuts = ConcurrentHashMap.newKeySet();
  // Brokers whose metadata-log fetches the controller proxies hold (hold_metadata).
  private final Set<Integer> metadataHolds = ConcurrentHashMap.newKeySet();
  // Brokers whose registration and heartbeats the controller proxies hold (hold_registration).
  private final Set<Integer> registrationHolds = ConcurrentHashMap.newKeySet();
  // Followers whose fetch gate is armed with the bytes that close it, and those closed (gate_fetch).
  private final Map<Integer, byte[]> fetchGates = new ConcurrentHashMap<>();
  private final Set<Integer> closedGates = ConcurrentHashMap.newKeySet();
  // Brokers whose AlterPartition requests the controller proxies hold (hold_alter_partition).
  private final Set<Integer> alterPartitionHolds = ConcurrentHashMap.newKeySet();
  private final Object cutMonitor = new Object();
  private Admin admin;
  String topic;
  List<Integer> topicReplicas = List.of();

  Cluster(File workDir, String kafkaVersion, String classpath, List<Integer> voters, int heapMb,
          Map<String, String> features, boolean zookeeper) {
    this.zookeeper = zookeeper;
    this.workDir = workDir;
    this.kafkaVersion = kafkaVersion;
    this.classpath = classpath;
    this.voters = voters;
    this.heapMb = heapMb;
    this.features = features;
  }

  // ---- start ---------------------------------------------------------------------

  void setUp(Map<Integer, List<String>> roles, Map<String, String> brokerConfig, Map<Integer, File> dataDirs)
      throws IOException, DriverException {
    Files.createDirectories(workDir.toPath());
    Spawner.setPidFile(workDir.toPath().resolve("pids"));
    writeLoggingConfigs();
    if (zookeeper) {
      ZooKeeperMode.setUp(this, roles, brokerConfig, dataDirs);
      return;
    }
    for (Map.Entry<Integer, List<String>> e : roles.entrySet()) {
      Node n = new Node(e.getKey(), e.getValue().contains("broker"), e.getValue().contains("controller"), workDir,
          dataDirs.get(e.getKey()));
      Files.createDirectories(n.dir.toPath());
      Files.createDirectories(n.dataDir.toPath());
      nodes.put(n.id, n);
    }
    for (Node n : nodes.values()) {
      int[] ports = freePorts(4);
      if (n.broker) {
        n.clientReal = ports[0];
        n.replicationReal = ports[1];
        n.observer = ports[3];
        n.clientProxy = new TcpProxy(n.id, TcpProxy.Listener.CLIENT, n.clientReal, this);
        n.replicationProxy = new TcpProxy(n.id, TcpProxy.Listener.REPLICATION, n.replicationReal, this);
        n.raw = new RawClient(n.observer);
      }
      if (n.controller) {
        n.controllerReal = ports[2];
        n.controllerProxy = new TcpProxy(n.id, TcpProxy.Listener.CONTROLLER, n.controllerReal, this);
      }
    }
    String quorumVoters = voters.stream()
        .map(v -> v + "@127.0.0.1:" + nodes.get(v).controllerProxy.port())
        .collect(Collectors.joining(","));
    for (Node n : nodes.values()) {
      Map<String, String> cfg = new LinkedHashMap<>(LOWERED);
      List<String> listeners = new ArrayList<>();
      List<String> advertised = new ArrayList<>();
      if (n.broker) {
        listeners.add("CLIENT://127.0.0.1:" + n.clientReal);
        listeners.add("REPLICATION://127.0.0.1:" + n.replicationReal);
        listeners.add("OBSERVER://127.0.0.1:" + n.observer);
        advertised.add("CLIENT://127.0.0.1:" + n.clientProxy.port());
        advertised.add("REPLICATION://127.0.0.1:" + n.replicationProxy.port());
        advertised.add("OBSERVER://127.0.0.1:" + n.observer);
        cfg.put("inter.broker.listener.name", "REPLICATION");
      }
      if (n.controller) {
        listeners.add("CONTROLLER://127.0.0.1:" + n.controllerReal);
        advertised.add("CONTROLLER://127.0.0.1:" + n.controllerProxy.port());
      }
      cfg.put("node.id", Integer.toString(n.id));
      cfg.put("process.roles", String.join(",", n.roles()));
      cfg.put("listeners", String.join(",", listeners));
      // Before 3.9 (KIP-853) a controller-only node must not advertise listeners
      // (KafkaConfig.validateValues: "advertised.listeners config must be empty when
      // process.roles=controller"); its peers reach it through controller.quorum.voters,
      // which names its proxy either way.
      if (n.broker || ZooKeeperMode.atLeast(kafkaVersion, 3, 9)) {
        cfg.put("advertised.listeners", String.join(",", advertised));
      }
      cfg.put("listener.security.protocol.map",
          "CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,OBSERVER:PLAINTEXT,CONTROLLER:PLAINTEXT");
      cfg.put("controller.listener.names", "CONTROLLER");
      if (dynamic != null) DynamicQuorum.configure(this, cfg);
      else cfg.put("controller.quorum.voters", quorumVoters);
      cfg.put("log.dirs", n.dataDir.getAbsolutePath());
      cfg.putAll(brokerConfig);  // the scenario's values win
      n.writeConfig(cfg);
    }
  }

  /** Formats the storage of `which` with the cluster id, in one JVM of the release. */
  void format(Collection<Node> which, long deadline) throws IOException, DriverException, InterruptedException {
    if (zookeeper) {
      // Nothing to format: a ZooKeeper-mode broker writes its meta.properties at startup.
      for (Node n : which) if (n.controller) ZooKeeperMode.writeMyId(this, n);
      return;
    }
    StringBuilder lines = new StringBuilder();
    for (Node n : which) {
      List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", n.config.getAbsolutePath()));
      if (dynamic != null) args.addAll(dynamic.formatArgs(this, n));
      for (Map.Entry<String, String> f : features.entrySet()) {
        args.add("--feature");
        args.add(f.getKey() + "=" + f.getValue());
      }
      lines.append(String.join("\t", args)).append('\n');
    }
    File argsFile = new File(workDir, "format-args.txt");
    Files.writeString(argsFile.toPath(), lines.toString(), StandardCharsets.UTF_8);
    File log = new File(workDir, "format.log");
    List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Dlog4j2.configurationFile=" + new File(workDir, "log4j2.properties"),
        "-Dlog4j.configuration=file:" + new File(workDir, "log4j.properties"),
        "-cp", classpath + File.pathSeparator + Driver.ownJar(), FormatHelper.class.getName(),
        argsFile.getAbsolutePath()));
    Process p = Spawner.start(cmd, log, "format");
    boolean done = p.waitFor(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
    if (!done) {
      p.destroyForcibly();
      Spawner.forget(p);
      throw DriverException.timeout("formatting storage did not finish in time (see " + log + ")");
    }
    Spawner.forget(p);
    if (p.exitValue() != 0) {
      throw DriverException.kafka("kafka-storage format failed (exit " + p.exitValue() + "): " + tail(log, 15));
    }
  }

  /**
   * The controller's committed decisions for partition 0 of `topic` and the broker
   * registrations since its creation, read from every voter's `__cluster_metadata-0` (also
   * of stopped voters: the files stay) by MetadataLogHelper in one JVM of the release:
   * one JSON object per line (docs/recording.md, "Decisions").
   */
  List<String> metadataLog(String topic, long deadline) throws IOException, DriverException, InterruptedException {
    if (zookeeper) {
      throw DriverException.badRequest("metadata_log: a ZooKeeper-mode cluster has no metadata log (its controller "
          + "writes znodes)");
    }
    List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xmx128m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Dlog4j2.configurationFile=" + new File(workDir, "log4j2.properties"),
        "-Dlog4j.configuration=file:" + new File(workDir, "log4j.properties"),
        "-cp", classpath + File.pathSeparator + Driver.ownJar(), MetadataLogHelper.class.getName(), topic));
    for (int v : voters) {
      Node n = nodes.get(v);
      if (n != null) cmd.add(new File(n.dataDir, "__cluster_metadata-0").getAbsolutePath());
    }
    File out = new File(workDir, "metadata-log.jsonl");
    Files.deleteIfExists(out.toPath());  // Spawner appends
    Process p = Spawner.start(cmd, out, "metadata-log");
    boolean done = p.waitFor(left(deadline), TimeUnit.MILLISECONDS);
    if (!done) {
      p.destroyForcibly();
      Spawner.forget(p);
      throw DriverException.timeout("reading the metadata log did not finish in time (see " + out + ")");
    }
    Spawner.forget(p);
    List<String> lines = Files.readAllLines(out.toPath(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw DriverException.internal("reading the metadata log failed (exit " + p.exitValue() + "): " + tail(out, 15));
    }
    List<String> json = new ArrayList<>();
    for (String l : lines) if (l.startsWith("{")) json.add(l);
    return json;
  }

  void startNode(Node n) throws IOException {
    n.start(javaBinary(), classpath, nodeJvmOptions(n));
  }

  List<String> nodeJvmOptions(Node n) {
    if (zookeeper && n.controller) return ZooKeeperMode.serverJvmOptions(this, n);
    return List.of("-Xmx" + heapMb + "m", "-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-XX:-UsePerfData", "-Djava.awt.headless=true", "-Djava.net.preferIPv4Stack=true",
        "-Dlog4j2.configurationFile=" + new File(workDir, "log4j2.properties"),
        "-Dlog4j.configuration=file:" + new File(workDir, "log4j.properties"),
        "-Dkafka.logs.dir=" + n.dir.getAbsolutePath());
  }

  /** Waits until every broker answers and its metadata lists every broker (all unfenced). */
  void awaitReady(long deadline) throws DriverException, InterruptedException {
    Set<Integer> brokers = brokerIds();
    String last = "no broker answered yet";
    long stableSince = -1;
    while (System.currentTimeMillis() < deadline) {
      checkNoneDied();
      boolean all = true;
      for (Node n : nodes.values()) {
        if (!n.broker) continue;
        try {
          MetadataResponse r = (MetadataResponse) n.raw.send(
              new MetadataRequest.Builder(List.of(), false), Math.min(deadline, System.currentTimeMillis() + 1000), (short) -1);
          Set<Integer> seen = r.brokers().stream().map(org.apache.kafka.common.Node::id).collect(Collectors.toSet());
          if (!seen.containsAll(brokers)) {
            all = false;
            last = "broker " + n.id + " sees unfenced brokers " + new TreeMap<>(Map.of("b", seen)).get("b");
          }
        } catch (IOException e) {
          all = false;
          last = "broker " + n.id + ": " + e.getMessage();
        }
      }
      if (all && (!brokers.isEmpty() || controllersUp())) {
        // Hold for a second: with broker.session.timeout.ms at 1.5 s a loaded machine can
        // fence a broker again right after its first unfencing, and a topic created then
        // starts with a smaller ISR.
        if (stableSince < 0) stableSince = System.currentTimeMillis();
        if (System.currentTimeMillis() - stableSince >= 1000) return;
      } else {
        stableSince = -1;
      }
      Thread.sleep(100);
    }
    throw DriverException.timeout("cluster not ready in time: " + last);
  }

  private boolean controllersUp() {
    return nodes.values().stream().allMatch(Node::alive);
  }

  void checkNoneDied() throws DriverException {
    for (Node n : nodes.values()) {
      if (n.process != null && !n.process.isAlive() && n.expectedAlive) {
        n.expectedAlive = false;
        throw DriverException.kafka("node " + n.id + " exited with status " + n.process.exitValue()
            + ": " + errors(n.log, 5) + " (log: " + n.log + ")");
      }
    }
  }

  Set<Integer> brokerIds() {
    return nodes.values().stream().filter(n -> n.broker).map(n -> n.id).collect(Collectors.toCollection(java.util.TreeSet::new));
  }

  String clientBootstrap() {
    return nodes.values().stream().filter(n -> n.broker).map(n -> "127.0.0.1:" + n.clientProxy.port())
        .collect(Collectors.joining(","));
  }

  String observerBootstrap() {
    return nodes.values().stream().filter(n -> n.broker).map(n -> "127.0.0.1:" + n.observer)
        .collect(Collectors.joining(","));
  }

  synchronized Admin admin() {
    if (admin == null) {
      Properties p = new Properties();
      p.put("bootstrap.servers", observerBootstrap());
      p.put("request.timeout.ms", "3000");
      p.put("default.api.timeout.ms", "10000");
      p.put("client.id", "isrcheck-admin");
      p.put("metadata.max.age.ms", "1000");
      admin = Admin.create(p);
    }
    return admin;
  }

  // ---- topic -----------------------------------------------------------------------

  void createTopic(String name, List<Integer> replicas, Map<String, String> config, long deadline)
      throws DriverException, InterruptedException {
    for (int r : replicas) {
      Node n = nodes.get(r);
      if (n == null || !n.broker) throw DriverException.badRequest("replicas: " + r + " is not a broker of this cluster");
    }
    NewTopic t = new NewTopic(name, Map.of(0, replicas)).configs(config);
    try {
      admin().createTopics(List.of(t)).all().get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw DriverException.kafka("createTopics: " + e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw DriverException.timeout("createTopics did not complete in time");
    }
    topic = name;
    topicReplicas = List.copyOf(replicas);
    Set<Integer> all = new HashSet<>(replicas);
    String last = "";
    while (System.currentTimeMillis() < deadline) {
      boolean ok = true;
      for (Node n : nodes.values()) {
        if (!n.broker || !n.alive()) continue;
        Describer.View v = Describer.view(n, name, Math.min(deadline, System.currentTimeMillis() + 1000));
        if (v == null || v.leader != replicas.get(0) || !new HashSet<>(v.isr).equals(all)) {
          ok = false;
          last = "broker " + n.id + " sees " + (v == null ? "no partition" : "leader " + v.leader + " isr " + v.isr);
        }
      }
      if (ok) return;
      Thread.sleep(100);
    }
    throw DriverException.timeout("topic " + name + " not ready in time: " + last);
  }

  void electPreferred(int leader, long deadline) throws DriverException, InterruptedException {
    requireTopic();
    if (!topicReplicas.contains(leader)) throw DriverException.badRequest("leader: " + leader + " is not a replica");
    List<Integer> order = new ArrayList<>();
    order.add(leader);
    for (int r : topicReplicas) if (r != leader) order.add(r);
    TopicPartition tp = new TopicPartition(topic, 0);
    try {
      if (!order.equals(topicReplicas)) {
        admin().alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(order))))
            .all().get(left(deadline), TimeUnit.MILLISECONDS);
        while (!admin().listPartitionReassignments(Set.of(tp)).reassignments().get(left(deadline), TimeUnit.MILLISECONDS).isEmpty()) {
          Thread.sleep(100);
        }
        topicReplicas = List.copyOf(order);
      }
      try {
        admin().electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions().get(left(deadline), TimeUnit.MILLISECONDS)
            .get(tp).ifPresent(err -> {
              if (!(err instanceof ElectionNotNeededException)) throw new RuntimeException(err);
            });
      } catch (RuntimeException e) {
        throw DriverException.kafka("electLeaders: " + (e.getCause() == null ? e : e.getCause()));
      }
    } catch (ExecutionException e) {
      throw DriverException.kafka("preferred election: " + e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw DriverException.timeout("preferred election did not complete in time");
    }
  }

  void requireTopic() throws DriverException {
    if (topic == null) throw DriverException.badRequest("no topic: send op \"create_topic\" first");
  }

  // ---- faults ------------------------------------------------------------------------

  Node node(int id) throws DriverException {
    Node n = nodes.get(id);
    if (n == null) throw DriverException.badRequest("node: " + id + " is not a node of this cluster (nodes " + nodes.keySet() + ")");
    return n;
  }

  void kill(Node n, long timeoutMs) throws DriverException, InterruptedException {
    n.expectedAlive = false;
    if (!n.kill(timeoutMs)) throw DriverException.timeout("node " + n.id + " did not die within " + timeoutMs + " ms");
    if (n.raw != null) n.raw.close();
  }

  void stop(Node n, long timeoutMs) throws DriverException, InterruptedException {
    if (!n.alive()) throw DriverException.badRequest("node " + n.id + " is not running");
    if (n.paused) throw DriverException.badRequest("node " + n.id + " is paused: resume it before a controlled shutdown");
    n.expectedAlive = false;
    n.process.destroy();  // SIGTERM: KafkaServer's shutdown hook does the controlled shutdown
    if (!n.process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
      n.kill(5000);
      throw DriverException.timeout("node " + n.id + " did not finish its controlled shutdown within "
          + timeoutMs + " ms; killed");
    }
    Spawner.forget(n.process);
    if (n.raw != null) n.raw.close();
  }

  void diskLoss(Node n, long deadline) throws DriverException, InterruptedException, IOException {
    kill(n, 10000);
    deleteRecursively(n.dataDir.toPath());
    Files.createDirectories(n.dataDir.toPath());
    // Formatted at the next start, not here: a format is a JVM run of seconds under load,
    // and the state right after the loss (the node down, its log empty, not yet fenced)
    // is what a trace that ends with the loss observes.
    n.formatBeforeStart = true;
    if (dynamic != null) dynamic.diskLost(n);
  }

  void start(Node n, boolean waitUnfenced, boolean waitServing, long deadline)
      throws DriverException, InterruptedException, IOException {
    if (n.alive()) throw DriverException.badRequest("node " + n.id + " is already running");
    if (zookeeper && n.broker) ZooKeeperMode.awaitOldSessionGone(this, n, deadline);
    if (n.formatBeforeStart) {
      format(List.of(n), deadline);
      n.formatBeforeStart = false;
    }
    startNode(n);
    n.expectedAlive = true;
    // A KRaft broker serves requests only once unfenced (BrokerServer.startup waits for
    // the unfencing before enableRequestProcessing): with its registration held there is
    // nothing to wait for.
    if (!n.broker || !waitServing) return;
    String last = "";
    while (System.currentTimeMillis() < deadline) {
      checkNoneDied();
      try {
        MetadataResponse r = (MetadataResponse) n.raw.send(new MetadataRequest.Builder(List.of(), false),
            Math.min(deadline, System.currentTimeMillis() + 1000), (short) -1);
        boolean listed = r.brokers().stream().anyMatch(b -> b.id() == n.id);
        if (!waitUnfenced || listed) return;
        last = "broker " + n.id + " answers but is not unfenced yet";
      } catch (IOException e) {
        last = e.getMessage();
      }
      Thread.sleep(100);
    }
    throw DriverException.timeout("node " + n.id + " did not come up in time: " + last);
  }

  void pause(Node n) throws DriverException, IOException {
    if (!n.alive()) throw DriverException.badRequest("node " + n.id + " is not running");
    Spawner.signal(n.pid(), "STOP");
    n.paused = true;
  }

  void resume(Node n) throws DriverException, IOException {
    if (!n.alive()) throw DriverException.badRequest("node " + n.id + " is not running");
    Spawner.signal(n.pid(), "CONT");
    n.paused = false;
  }

  static final List<String> SIDES = List.of("quorum", "brokers", "clients");

  void cut(Node n, String side, boolean cut) throws DriverException {
    if (!SIDES.contains(side)) throw DriverException.badRequest("side: \"" + side + "\" is not one of " + SIDES);
    if (side.equals("quorum") && !n.controller && !n.broker) throw DriverException.badRequest("node has no quorum side");
    if ((side.equals("brokers") || side.equals("clients")) && !n.broker) {
      throw DriverException.badRequest("side: node " + n.id + " is not a broker (it has no " + side + " side)");
    }
    synchronized (cutMonitor) {
      if (cut) cuts.add(n.id + ":" + side); else cuts.remove(n.id + ":" + side);
      cutMonitor.notifyAll();
    }
  }

  List<String> cuts() {
    return cuts.stream().sorted().collect(Collectors.toList());
  }

  /**
   * Holds (or releases) the metadata replay of broker `n`: every controller proxy holds
   * the request frames of n's raft connections (TcpProxy), while its heartbeats flow, so
   * the controller keeps it registered and unfenced while it applies no new metadata.
   */
  void holdMetadata(Node n, boolean hold) throws DriverException {
    if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker (it replays no metadata as one)");
    if (hold && zookeeper) throw DriverException.badRequest("hold_metadata: not in ZooKeeper mode (LeaderAndIsr reaches a broker over the replication listener)");
    if (hold && n.controller) {
      // A combined node's broker reads the metadata its own controller replicates: if it
      // is the active controller no fetch goes through a proxy at all, and holding a
      // voter's fetches takes it out of the quorum. Dedicated controllers are needed.
      throw DriverException.badRequest("node: " + n.id + " is a combined broker+controller; hold_metadata needs a "
          + "broker-only node (use dedicated controllers)");
    }
    synchronized (cutMonitor) {
      if (hold) metadataHolds.add(n.id); else metadataHolds.remove(n.id);
      cutMonitor.notifyAll();
    }
  }

  /**
   * Holds (or releases) the registration and unfencing of broker `n`: every controller
   * proxy holds the request frames of n's lifecycle connections (BrokerRegistration,
   * BrokerHeartbeat; TcpProxy), while its raft and AlterPartition connections flow. Also
   * for combined nodes: their controller's raft traffic is untouched.
   */
  void holdRegistration(Node n, boolean hold) throws DriverException {
    if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker (it never registers as one)");
    if (hold && zookeeper) throw DriverException.badRequest("hold_registration: not in ZooKeeper mode (a broker registers in ZooKeeper, not with a controller)");
    synchronized (cutMonitor) {
      if (hold) registrationHolds.add(n.id); else registrationHolds.remove(n.id);
      cutMonitor.notifyAll();
    }
  }

  /**
   * Arms follower `n`'s fetch gate: once a response on its replication connections carries
   * `value`, its next requests wait in the proxy (it holds what it fetched; its leader has
   * not seen it fetch past it). A null value closes the gate at once.
   */
  void gateFetch(Node n, String value) throws DriverException {
    if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker (it fetches no partition)");
    synchronized (cutMonitor) {
      if (value == null) {
        closedGates.add(n.id);
      } else {
        fetchGates.put(n.id, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      cutMonitor.notifyAll();
    }
  }

  /** Opens and disarms `n`'s fetch gate; returns whether it was closed. */
  boolean releaseFetchGate(Node n) {
    synchronized (cutMonitor) {
      fetchGates.remove(n.id);
      boolean was = closedGates.remove(n.id);
      cutMonitor.notifyAll();
      return was;
    }
  }

  boolean fetchGateClosed(int id) {
    return closedGates.contains(id);
  }

  /** Holds (or releases) broker `n`'s AlterPartition requests at every controller proxy. */
  void holdAlterPartition(Node n, boolean hold) throws DriverException {
    if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker (it sends no AlterPartition)");
    synchronized (cutMonitor) {
      if (hold) alterPartitionHolds.add(n.id); else alterPartitionHolds.remove(n.id);
      cutMonitor.notifyAll();
    }
  }

  @Override
  public byte[] fetchGateValue(Integer origin) {
    return origin == null ? null : fetchGates.get(origin);
  }

  @Override
  public boolean fetchGateClosed(Integer origin) {
    return origin != null && closedGates.contains(origin);
  }

  @Override
  public void closeFetchGate(Integer origin) {
    synchronized (cutMonitor) {
      if (origin != null && fetchGates.remove(origin) != null) closedGates.add(origin);
      cutMonitor.notifyAll();
    }
  }

  @Override
  public boolean alterPartitionHeld(Integer origin) {
    return origin != null && alterPartitionHolds.contains(origin);
  }

  List<Integer> registrationHolds() {
    return registrationHolds.stream().sorted().collect(Collectors.toList());
  }

  @Override
  public boolean registrationHeld(Integer origin) {
    return origin != null && registrationHolds.contains(origin);
  }

  List<Integer> metadataHolds() {
    return metadataHolds.stream().sorted().collect(Collectors.toList());
  }

  @Override
  public boolean metadataHeld(Integer origin) {
    return origin != null && metadataHolds.contains(origin);
  }

  @Override
  public boolean frozen(int target, TcpProxy.Listener listener, Integer origin) {
    switch (listener) {
      case CLIENT:
        return cuts.contains(target + ":clients");
      case REPLICATION:
        return cuts.contains(target + ":brokers") || (origin != null && cuts.contains(origin + ":brokers"));
      case CONTROLLER:
      case ZOOKEEPER:  // a broker's ZooKeeper session: its quorum side in ZooKeeper mode
        return cuts.contains(target + ":quorum") || (origin != null && cuts.contains(origin + ":quorum"));
      default:
        return false;
    }
  }

  @Override
  public Object monitor() {
    return cutMonitor;
  }

  @Override
  public Integer originOf(int peerPort, int proxyPort) {
    long inode = SocketOwner.inode(peerPort, proxyPort);
    Map<Integer, Long> pids = new TreeMap<>();
    for (Node n : nodes.values()) if (n.alive()) pids.put(n.id, n.pid());
    return SocketOwner.owner(inode, pids);
  }

  // ---- teardown -------------------------------------------------------------------

  void stopAll() {
    synchronized (this) {
      if (admin != null) {
        final Admin a = admin;
        admin = null;
        Thread t = new Thread(() -> a.close(java.time.Duration.ofMillis(1000)), "admin-close");
        t.setDaemon(true);
        t.start();
      }
    }
    if (dynamic != null) {
      final DynamicQuorum d = dynamic;
      Thread t = new Thread(d::close, "quorum-admin-close");
      t.setDaemon(true);
      t.start();
    }
    for (Node n : nodes.values()) {
      n.expectedAlive = false;
      try {
        n.kill(10000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      n.closeProxies();
    }
  }

  // ---- helpers --------------------------------------------------------------------

  static long left(long deadline) {
    return Math.max(1, deadline - System.currentTimeMillis());
  }

  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Free ports for the nodes' real listeners, below the kernel's ephemeral range
   * (net.ipv4.ip_local_port_range starts at 32768): a port picked from that range can be
   * taken by any outgoing connection (or by one of our proxies, which bind port 0)
   * between the check and the node's bind, and the node then dies with "Address already
   * in use". Each candidate is checked by binding it, and no port is handed out twice in
   * the driver's life: the nodes of one cluster get their ports one node at a time, all
   * before any node binds them, so a free-looking port may already be another node's
   * (seen: two nodes of one cluster given the same OBSERVER port, one of them dying at
   * startup).
   */
  private static final java.util.Set<Integer> handedOut = new java.util.HashSet<>();

  static synchronized int[] freePorts(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    int[] ports = new int[count];
    java.util.Random random = new java.util.Random();
    try {
      for (int i = 0; i < count; i++) {
        for (int attempt = 0; ; attempt++) {
          if (attempt > 200) throw new IOException("no free loopback port found in 20000-32767");
          int candidate = 20000 + random.nextInt(12768);
          if (handedOut.contains(candidate)) continue;
          ServerSocket s = new ServerSocket();
          try {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), candidate));
          } catch (IOException busy) {
            s.close();
            continue;
          }
          held.add(s);
          ports[i] = candidate;
          handedOut.add(candidate);
          break;
        }
      }
    } finally {
      for (ServerSocket s : held) s.close();
    }
    return ports;
  }

  /** The first `lines` ERROR lines of the log (with the line after each), or its tail. */
  static String errors(File f, int lines) {
    try {
      List<String> all = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
      List<String> out = new ArrayList<>();
      for (int i = 0; i < all.size() && out.size() < 2 * lines; i++) {
        if (all.get(i).contains("] ERROR ") || all.get(i).contains("] FATAL ")) {
          out.add(all.get(i));
          if (i + 1 < all.size()) out.add(all.get(i + 1));
        }
      }
      return out.isEmpty() ? tail(f, 10) : String.join(" | ", out);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  static String tail(File f, int lines) {
    try {
      List<String> all = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
      return String.join(" | ", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  static void deleteRecursively(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (var s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) Files.deleteIfExists(q);
    }
  }

  private void writeLoggingConfigs() throws IOException {
    String log4j2 = String.join("\n",
        "status = warn",
        "appender.console.type = Console",
        "appender.console.name = STDOUT",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = [%d] %p %m (%c)%n",
        "rootLogger.level = info",
        "rootLogger.appenderRefs = stdout",
        "rootLogger.appenderRef.stdout.ref = STDOUT",
        "logger.request.name = kafka.request.logger",
        "logger.request.level = warn",
        "");
    String log4j1 = String.join("\n",
        "log4j.rootLogger=INFO, stdout",
        "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
        "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
        "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n",
        "log4j.logger.kafka.request.logger=WARN",
        "");
    Files.writeString(new File(workDir, "log4j2.properties").toPath(), log4j2, StandardCharsets.UTF_8);
    Files.writeString(new File(workDir, "log4j.properties").toPath(), log4j1, StandardCharsets.UTF_8);
  }
}
