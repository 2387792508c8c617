// ZooKeeper mode (issue 28 item 4): a Kafka 3.x cluster whose controller is a broker
// elected through ZooKeeper. The scenario's nodes with the controller role are the
// ZooKeeper ensemble (the model's voters under controller.mode=zookeeper,
// spec/partition/zookeeper.cc), each a QuorumPeerMain JVM from the release's own
// classpath (Kafka 3.9.1 depends on org.apache.zookeeper:zookeeper 3.8.4), behind a proxy
// of the driver so that `cut N quorum` freezes broker N's ZooKeeper session and its
// heartbeats (a real session expiry). The brokers are kafka.Kafka with broker.id and
// zookeeper.connect and no KRaft settings; nothing is formatted (a ZooKeeper-mode broker
// writes meta.properties itself).
package org.isrcheck.conformance;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

final class ZooKeeperMode {
  private ZooKeeperMode() {}

  /**
   * The ZooKeeper session of every broker (zookeeper.session.timeout.ms). 6 s is Kafka's
   * default before 2.5 (KIP-537 raised it to 18 s): a pause or quorum cut longer than this
   * expires the session, the steering's short pauses (< 1 s) and a loaded machine's GC
   * stalls do not. The servers' tickTime of 500 ms allows sessions of 1 to 10 s.
   */
  static final int SESSION_TIMEOUT_MS = 6000;
  static final int TICK_MS = 500;

  /** Cluster.LOWERED without the KRaft-only settings (a ZooKeeper broker has no such timers). */
  static Map<String, String> lowered() {
    Map<String, String> cfg = new LinkedHashMap<>(Cluster.LOWERED);
    cfg.keySet().removeIf(k -> k.startsWith("controller.quorum.") || k.startsWith("broker.session.")
        || k.startsWith("broker.heartbeat.") || k.startsWith("share.coordinator."));
    cfg.put("zookeeper.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
    cfg.put("zookeeper.connection.timeout.ms", "20000");
    // A broker reconnecting to a dead controller retries quickly enough for the waits.
    cfg.put("controller.socket.timeout.ms", "5000");
    return cfg;
  }

  static void setUp(Cluster c, Map<Integer, List<String>> roles, Map<String, String> brokerConfig,
                    Map<Integer, File> dataDirs) throws IOException, DriverException {
    for (Map.Entry<Integer, List<String>> e : roles.entrySet()) {
      boolean broker = e.getValue().contains("broker");
      boolean zk = e.getValue().contains("controller");
      if (broker && zk) {
        throw DriverException.badRequest("nodes[" + e.getKey() + "].roles: in ZooKeeper mode a node is a broker or a "
            + "ZooKeeper server (role controller), not both: export the trace with controller.placement=dedicated");
      }
      Node n = new Node(e.getKey(), broker, zk, c.workDir, dataDirs.get(e.getKey()));
      if (zk) n.mainClass = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
      Files.createDirectories(n.dir.toPath());
      Files.createDirectories(n.dataDir.toPath());
      c.nodes.put(n.id, n);
    }
    // The ensemble's own ports (quorum and election) are not proxied: a cut of a
    // ZooKeeper server's quorum side freezes its clients, not its peers.
    Map<Integer, int[]> peerPorts = new LinkedHashMap<>();
    for (Node n : c.nodes.values()) {
      int[] ports = Cluster.freePorts(4);
      if (n.broker) {
        n.clientReal = ports[0];
        n.replicationReal = ports[1];
        n.observer = ports[3];
        n.clientProxy = new TcpProxy(n.id, TcpProxy.Listener.CLIENT, n.clientReal, c);
        n.replicationProxy = new TcpProxy(n.id, TcpProxy.Listener.REPLICATION, n.replicationReal, c);
        n.raw = new RawClient(n.observer);
        // The controller's own channel (control.plane.listener.name, KIP-291): its
        // LeaderAndIsr, UpdateMetadata and StopReplica requests, and the brokers'
        // AlterPartition to it, so that a brokers-side cut (replica fetches) leaves them
        // alone and a quorum cut freezes them, as the model's reaches_controller says.
        n.controllerReal = ports[2];
        n.controllerProxy = new TcpProxy(n.id, TcpProxy.Listener.CONTROLLER, n.controllerReal, c);
      } else {
        n.controllerReal = ports[0];
        peerPorts.put(n.id, new int[] {ports[1], ports[2]});
        n.controllerProxy = new TcpProxy(n.id, TcpProxy.Listener.ZOOKEEPER, n.controllerReal, c);
      }
    }
    String connect = c.voters.stream().map(v -> "127.0.0.1:" + c.nodes.get(v).controllerProxy.port())
        .collect(Collectors.joining(","));
    for (Node n : c.nodes.values()) {
      Map<String, String> cfg = new LinkedHashMap<>();
      if (n.broker) {
        cfg.putAll(lowered());
        cfg.put("broker.id", Integer.toString(n.id));
        // control.plane.listener.name came in 2.2 (KIP-291): before it the controller's
        // requests share the replication listener (a brokers-side cut freezes them too).
        boolean controlPlane = atLeast(c.kafkaVersion, 2, 2);
        cfg.put("listeners", "CLIENT://127.0.0.1:" + n.clientReal + ",REPLICATION://127.0.0.1:" + n.replicationReal
            + ",OBSERVER://127.0.0.1:" + n.observer + (controlPlane ? ",CONTROL://127.0.0.1:" + n.controllerReal : ""));
        cfg.put("advertised.listeners", "CLIENT://127.0.0.1:" + n.clientProxy.port() + ",REPLICATION://127.0.0.1:"
            + n.replicationProxy.port() + ",OBSERVER://127.0.0.1:" + n.observer
            + (controlPlane ? ",CONTROL://127.0.0.1:" + n.controllerProxy.port() : ""));
        cfg.put("listener.security.protocol.map",
            "CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,OBSERVER:PLAINTEXT" + (controlPlane ? ",CONTROL:PLAINTEXT" : ""));
        cfg.put("inter.broker.listener.name", "REPLICATION");
        if (controlPlane) cfg.put("control.plane.listener.name", "CONTROL");
        cfg.put("zookeeper.connect", connect);
        cfg.put("log.dirs", n.dataDir.getAbsolutePath());
        cfg.putAll(brokerConfig);  // the scenario's values win
      } else {
        // zoo.cfg (QuorumPeerConfig): keys it does not know become system properties
        // zookeeper.<key>, which is how admin.enableServer and the 4lw whitelist are read.
        cfg.put("tickTime", Integer.toString(TICK_MS));
        cfg.put("initLimit", "20");
        cfg.put("syncLimit", "10");
        cfg.put("dataDir", n.dataDir.getAbsolutePath());
        cfg.put("clientPort", Integer.toString(n.controllerReal));
        cfg.put("clientPortAddress", "127.0.0.1");
        cfg.put("maxSessionTimeout", Integer.toString(20 * TICK_MS));
        cfg.put("admin.enableServer", "false");
        cfg.put("4lw.commands.whitelist", "ruok,dump");
        if (c.voters.size() > 1) {
          for (int v : c.voters) {
            int[] p = peerPorts.get(v);
            cfg.put("server." + v, "127.0.0.1:" + p[0] + ":" + p[1]);
          }
        }
      }
      n.writeConfig(cfg);
    }
    for (Node n : c.nodes.values()) if (n.controller) writeMyId(c, n);
  }

  /** Whether release `version` (e.g. 2.7.2, 0.11.0.3) is `major`.`minor` or later. */
  static boolean atLeast(String version, int major, int minor) {
    String[] p = version.split("\\.");
    try {
      int ma = Integer.parseInt(p[0]);
      int mi = p.length > 1 ? Integer.parseInt(p[1]) : 0;
      return ma > major || (ma == major && mi >= minor);
    } catch (NumberFormatException e) {
      return true;
    }
  }

  /** A ZooKeeper server's myid (its id in the ensemble), also after a disk loss. */
  static void writeMyId(Cluster c, Node n) throws IOException {
    if (c.voters.size() > 1) {
      Files.createDirectories(n.dataDir.toPath());
      Files.writeString(new File(n.dataDir, "myid").toPath(), n.id + "\n", StandardCharsets.UTF_8);
    }
  }

  /** JVM options of a ZooKeeper server node (no Kafka logging config applies to it). */
  static List<String> serverJvmOptions(Cluster c, Node n) {
    return List.of("-Xmx128m", "-Xms32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
        "-Djava.net.preferIPv4Stack=true", "-Dzookeeper.admin.enableServer=false",
        "-Dzookeeper.4lw.commands.whitelist=ruok,dump",
        // ZooKeeper 3.4 (Kafka before 2.4) registers log4j's JMX beans at startup, a class
        // reload4j does not have (org.apache.log4j.jmx.HierarchyDynamicMBean).
        "-Dzookeeper.jmx.log4j.disable=true",
        "-Dlog4j.configuration=file:" + new File(c.workDir, "log4j.properties"));
  }

  /**
   * Starts the ensemble, then the lowest broker alone until it is the controller (the
   * model's controller is broker 0 at the start), then the other brokers.
   */
  static void startAll(Cluster c, long deadline) throws IOException, DriverException, InterruptedException {
    for (Node n : c.nodes.values()) {
      if (!n.controller) continue;
      c.startNode(n);
      n.expectedAlive = true;
    }
    for (Node n : c.nodes.values()) if (n.controller) awaitServing(c, n, deadline);
    Node first = null;
    for (Node n : c.nodes.values()) {
      if (n.broker) {
        first = n;
        break;
      }
    }
    if (first == null) return;
    c.startNode(first);
    first.expectedAlive = true;
    awaitController(c, first, deadline);
    for (Node n : c.nodes.values()) {
      if (!n.broker || n == first) continue;
      c.startNode(n);
      n.expectedAlive = true;
    }
  }

  /** Waits until the ZooKeeper server answers `ruok` with `imok` on its own port. */
  static void awaitServing(Cluster c, Node n, long deadline) throws DriverException, InterruptedException {
    String last = "";
    while (System.currentTimeMillis() < deadline) {
      c.checkNoneDied();
      try {
        String answer = fourLetterWord(n.controllerReal, "ruok", deadline);
        if (answer.startsWith("imok")) {
          // An ensemble member answers imok before it has joined a quorum; `dump` needs one.
          if (c.voters.size() == 1 || !fourLetterWord(n.controllerReal, "dump", deadline).contains("not currently serving")) return;
          last = "not serving yet";
        } else {
          last = "answered '" + answer.trim() + "'";
        }
      } catch (IOException e) {
        last = e.getMessage();
      }
      Thread.sleep(200);
    }
    throw DriverException.timeout("ZooKeeper server " + n.id + " not serving in time: " + last);
  }

  /** Waits until `broker` reports itself as the controller (it created /controller). */
  static void awaitController(Cluster c, Node broker, long deadline) throws DriverException, InterruptedException {
    String last = "no answer yet";
    while (System.currentTimeMillis() < deadline) {
      c.checkNoneDied();
      int id = controllerSeenBy(broker, deadline);
      if (id == broker.id) return;
      last = "broker " + broker.id + " sees controller " + id;
      Thread.sleep(100);
    }
    throw DriverException.timeout("broker " + broker.id + " did not become the controller in time: " + last);
  }

  /** The controller id in `broker`'s metadata cache (-1: none, or no answer). */
  static int controllerSeenBy(Node broker, long deadline) {
    if (!broker.alive() || broker.paused) return -1;
    try {
      MetadataResponse r = (MetadataResponse) broker.raw.send(new MetadataRequest.Builder(List.of(), false),
          Math.min(deadline, System.currentTimeMillis() + 1000), (short) -1);
      return r.controller() == null ? -1 : r.controller().id();
    } catch (IOException e) {
      return -1;
    }
  }

  /** The controller as the live brokers see it: the highest id any of them reports, -1 if none. */
  static int controller(Cluster c, long deadline) {
    int seen = -1;
    for (Node n : c.nodes.values()) if (n.broker) seen = Math.max(seen, controllerSeenBy(n, deadline));
    return seen;
  }

  /**
   * Before a broker restarts: waits (bounded) until no ZooKeeper server lists an ephemeral
   * znode /brokers/ids/N of its old session. A restart within the session finds the node
   * there and fails (KafkaZkClient.registerBroker -> checkedEphemeralCreate: NODEEXISTS),
   * which the model has as a RegisterBroker enabled only after SessionExpiry.
   */
  static void awaitOldSessionGone(Cluster c, Node broker, long deadline) throws DriverException, InterruptedException {
    String path = "/brokers/ids/" + broker.id;
    String last = "";
    long until = Math.min(deadline, System.currentTimeMillis() + SESSION_TIMEOUT_MS + 15000);
    while (System.currentTimeMillis() < until) {
      boolean any = false;
      boolean asked = false;
      for (Node z : c.nodes.values()) {
        if (!z.controller || !z.alive() || z.paused) continue;
        try {
          String dump = fourLetterWord(z.controllerReal, "dump", until);
          asked = true;
          for (String line : dump.split("\n")) any = any || line.trim().equals(path);
        } catch (IOException e) {
          last = e.getMessage();
        }
      }
      if (asked && !any) return;
      if (any) last = path + " still held by the old session";
      Thread.sleep(200);
    }
    throw DriverException.timeout("broker " + broker.id + ": its old ZooKeeper session did not expire in time (" + last + ")");
  }

  /** A ZooKeeper four-letter word on the server's real client port; the whole answer. */
  static String fourLetterWord(int port, String word, long deadline) throws IOException {
    try (Socket s = new Socket()) {
      int budget = (int) Math.max(100, Math.min(2000, deadline - System.currentTimeMillis()));
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), budget);
      s.setSoTimeout(budget);
      OutputStream out = s.getOutputStream();
      out.write(word.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] all = in.readAllBytes();
      return new String(all, StandardCharsets.UTF_8);
    }
  }
}
