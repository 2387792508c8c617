// The conformance driver's entry point: reads one JSON request per line on stdin, answers
// one JSON response per line on stdout (PROTOCOL.md), logs to stderr. One long-lived JVM
// for a whole run, so no step pays a JVM start; each Kafka node is a child JVM of its own.
// Exits, killing every child, at stdin EOF (the C++ parent is gone), on SIGINT/SIGTERM
// (shutdown hook) and, through PDEATHSIG, when it is itself killed -9.
package org.isrcheck.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

public final class Driver {
  private static final ObjectMapper mapper = new ObjectMapper();
  private final PrintStream out;
  private final File classpathDir;
  private Cluster cluster;
  private final Clients clients = new Clients();

  private Driver(PrintStream out, File classpathDir) {
    this.out = out;
    this.classpathDir = classpathDir;
  }

  public static void main(String[] args) throws Exception {
    File cpDir = new File(System.getenv().getOrDefault("ISRCHECK_KAFKA_CLASSPATH_DIR", "build/conformance"));
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--kafka-classpath-dir") && i + 1 < args.length) {
        cpDir = new File(args[++i]);
      } else {
        System.err.println("usage: Driver [--kafka-classpath-dir DIR]   (DIR/<version>/classpath.txt)");
        System.exit(2);
      }
    }
    // stdout is the protocol channel: keep everything else (Kafka client logs) off it.
    PrintStream protocol = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    System.setOut(System.err);
    Driver d = new Driver(protocol, cpDir);
    d.run();
  }

  private void run() throws IOException {
    ObjectNode hello = mapper.createObjectNode();
    hello.put("id", 0);
    hello.put("ok", true);
    hello.put("ready", true);
    hello.put("protocol", 1);
    hello.put("pid", ProcessHandle.current().pid());
    hello.put("pdeathsig", Spawner.haveSetpriv());
    out.println(mapper.writeValueAsString(hello));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      ObjectNode response = handle(line);
      out.println(mapper.writeValueAsString(response));
      if (response.path("exit").asBoolean(false)) break;
    }
    Log.info(line == null ? "stdin closed: stopping every node" : "shutdown");
    teardown();
    System.exit(0);
  }

  private void teardown() {
    clients.reset();
    if (cluster != null) cluster.stopAll();
    Spawner.killAll();
  }

  private ObjectNode handle(String line) {
    long t0 = System.currentTimeMillis();
    ObjectNode resp = mapper.createObjectNode();
    JsonNode req;
    try {
      req = mapper.readTree(line);
    } catch (IOException e) {
      resp.putNull("id");
      return fail(resp, "bad_request", "not JSON: " + e.getMessage(), t0);
    }
    resp.set("id", req.path("id").isMissingNode() ? mapper.nullNode() : req.get("id"));
    String op = req.path("op").asText("");
    try {
      if (!req.isObject()) throw DriverException.badRequest("request: expected a JSON object");
      resp.put("ok", true);
      dispatch(op, req, resp);
    } catch (DriverException e) {
      return fail(resp, e.kind, e.getMessage(), t0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail(resp, "internal", "interrupted", t0);
    } catch (Exception e) {
      Log.info("op " + op + " failed: " + e);
      e.printStackTrace(System.err);
      return fail(resp, "internal", e.toString(), t0);
    }
    resp.put("ms", System.currentTimeMillis() - t0);
    return resp;
  }

  private static ObjectNode fail(ObjectNode resp, String kind, String message, long t0) {
    JsonNode id = resp.get("id");
    resp.removeAll();
    resp.set("id", id);
    resp.put("ok", false);
    resp.put("error", message);
    resp.put("kind", kind);
    resp.put("ms", System.currentTimeMillis() - t0);
    return resp;
  }

  static final List<String> OPS = List.of("ping", "status", "start_cluster", "create_topic", "producer", "produce",
      "send_status", "await_send", "sends", "consume", "kill", "stop", "disk_loss", "start", "pause", "resume",
      "cut", "heal", "drop_produce_responses", "dropped", "drop_produce_requests", "warm_producer", "hold_metadata", "release_metadata",
      "hold_registration", "release_registration", "gate_fetch", "release_fetch_gate", "hold_alter_partition",
      "release_alter_partition", "holds", "elect_preferred", "describe", "stop_cluster", "shutdown",
      "controller", "metadata_log", "remove_voter", "add_voter");

  private void dispatch(String op, JsonNode req, ObjectNode resp) throws Exception {
    switch (op) {
      case "ping":
        resp.put("pong", true);
        return;
      case "status":
        status(resp);
        return;
      case "start_cluster":
        startCluster(req, resp);
        return;
      case "shutdown":
        teardown();
        cluster = null;
        resp.put("exit", true);
        return;
      case "stop_cluster":
        clients.reset();
        if (cluster != null) {
          cluster.stopAll();
          if (req.path("delete").asBoolean(false)) Cluster.deleteRecursively(cluster.workDir.toPath());
          resp.put("work_dir", cluster.workDir.getAbsolutePath());
        }
        cluster = null;
        return;
      default:
        break;
    }
    if (!OPS.contains(op)) throw DriverException.badRequest("op: \"" + op + "\" is not one of " + OPS);
    Cluster c = requireCluster();
    long deadline;
    switch (op) {
      case "create_topic": {
        deadline = deadline(req, 30000);
        String name = text(req, "name");
        List<Integer> replicas = intList(req, "replicas");
        if (replicas.isEmpty()) throw DriverException.badRequest("replicas: expected a non-empty list of node ids");
        c.createTopic(name, replicas, stringMap(req, "config"), deadline);
        clients.forgetSends();
        resp.put("topic", name);
        return;
      }
      case "producer": {
        Properties p = new Properties();
        p.put("acks", req.path("acks").asText("all"));
        p.put("enable.idempotence", Boolean.toString(req.path("enable_idempotence").asBoolean(false)));
        p.put("retries", Integer.toString(req.path("retries").asInt(0)));
        p.put("request.timeout.ms", Integer.toString(req.path("request_timeout_ms").asInt(3000)));
        p.put("delivery.timeout.ms", Integer.toString(req.path("delivery_timeout_ms").asInt(6000)));
        p.put("max.block.ms", Integer.toString(req.path("max_block_ms").asInt(3000)));
        p.put("max.in.flight.requests.per.connection", Integer.toString(req.path("max_in_flight").asInt(1)));
        p.put("linger.ms", Integer.toString(req.path("linger_ms").asInt(0)));
        p.putAll(stringMap(req, "config"));
        int perSend = req.path("records_per_send").asInt(1);
        if (!req.path("records_per_send").isMissingNode()
            && (!req.path("records_per_send").isInt() || perSend < 1 || perSend > 1000)) {
          throw DriverException.badRequest("records_per_send: expected an integer from 1 to 1000 (Kafka records per send, one batch)");
        }
        Map<String, Object> eff;
        try {
          eff = clients.createProducer(c.clientBootstrap(), p, perSend);
        } catch (org.apache.kafka.common.KafkaException e) {
          throw DriverException.badRequest("producer config rejected by Kafka: " + e.getMessage()
              + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")"));
        }
        resp.put("producer", "created");
        resp.set("config", mapper.valueToTree(eff));
        return;
      }
      case "produce": {
        c.requireTopic();
        int k = intField(req, "record");
        long wait = req.path("wait_ms").asLong(3000);
        Clients.Send s = clients.send(c.topic, k);
        s.await(System.currentTimeMillis() + wait);
        s.fill(resp);
        return;
      }
      case "send_status":
        clients.status(intField(req, "record")).fill(resp);
        return;
      case "await_send": {
        Clients.Send s = clients.status(intField(req, "record"));
        s.await(deadline(req, 10000));
        s.fill(resp);
        return;
      }
      case "warm_producer": {
        String topic = req.path("topic").asText("");
        if (topic.isEmpty()) throw DriverException.badRequest("topic: missing (the topic whose metadata to fetch)");
        resp.put("partitions", clients.warm(topic));
        return;
      }
      case "sends": {
        ObjectNode sends = resp.putObject("sends");
        ObjectNode offsets = resp.putObject("offsets");
        for (Map.Entry<Integer, Clients.Send> e : clients.sends().entrySet()) {
          sends.put(Integer.toString(e.getKey()), e.getValue().result);
          if (e.getValue().offset != null) offsets.put(Integer.toString(e.getKey()), e.getValue().offset);
        }
        return;
      }
      case "consume": {
        c.requireTopic();
        long offset = req.path("offset").asLong(-1);
        if (!req.path("offset").canConvertToLong() || offset < 0) throw DriverException.badRequest("offset: expected an integer >= 0");
        long timeout = req.path("timeout_ms").asLong(3000);
        StringBuilder why = new StringBuilder();
        if (!req.path("count").isMissingNode()) {
          // Several consecutive records (a model record that stands for a batch).
          int count = req.path("count").asInt(0);
          if (!req.path("count").isInt() || count < 1 || count > 1000) {
            throw DriverException.badRequest("count: expected an integer from 1 to 1000 (records to read)");
          }
          List<String> values = clients.consume(c.clientBootstrap(), c.topic, offset, count, timeout, why);
          resp.put("offset", offset);
          if (values == null) {
            resp.putNull("values");
            resp.put("reason", why.toString());
          } else {
            ArrayNode vs = resp.putArray("values");
            values.forEach(vs::add);
          }
          return;
        }
        String value = clients.consume(c.clientBootstrap(), c.topic, offset, timeout, why);
        resp.put("offset", offset);
        if (value == null) {
          resp.putNull("record");
          resp.put("reason", why.toString());
        } else {
          resp.put("record", LogReader.recordId(value));
          resp.put("value", value);
        }
        return;
      }
      case "kill": {
        Node n = c.node(intField(req, "node"));
        c.kill(n, req.path("timeout_ms").asLong(10000));
        resp.put("node", n.id);
        return;
      }
      case "stop": {
        Node n = c.node(intField(req, "node"));
        c.stop(n, req.path("timeout_ms").asLong(30000));
        resp.put("node", n.id);
        resp.put("exit_status", n.process.exitValue());
        return;
      }
      case "disk_loss": {
        Node n = c.node(intField(req, "node"));
        c.diskLoss(n, deadline(req, 30000));
        resp.put("node", n.id);
        boolean voter = c.voters.contains(n.id);
        resp.put("combined_voter", voter && n.broker);
        resp.put("voter", voter);
        if (voter) {
          resp.put("warning", "node " + n.id + " is a controller voter: its metadata log (same log.dirs) went with the disk");
        }
        return;
      }
      case "start": {
        Node n = c.node(intField(req, "node"));
        c.start(n, req.path("wait_unfenced").asBoolean(false), req.path("wait_serving").asBoolean(true),
            deadline(req, 30000));
        resp.put("node", n.id);
        resp.put("pid", n.pid());
        return;
      }
      case "controller":
        // ZooKeeper mode: which broker the live brokers see as the controller.
        resp.put("controller", c.zookeeper ? ZooKeeperMode.controller(c, deadline(req, 5000)) : -1);
        return;
      case "pause":
      case "resume": {
        Node n = c.node(intField(req, "node"));
        if (op.equals("pause")) c.pause(n); else c.resume(n);
        resp.put("node", n.id);
        resp.put("paused", n.paused);
        return;
      }
      case "cut":
      case "heal": {
        Node n = c.node(intField(req, "node"));
        c.cut(n, text(req, "side"), op.equals("cut"));
        ArrayNode a = resp.putArray("cuts");
        c.cuts().forEach(a::add);
        return;
      }
      case "hold_registration":
      case "release_registration": {
        Node n = c.node(intField(req, "node"));
        c.holdRegistration(n, op.equals("hold_registration"));
        ArrayNode a = resp.putArray("registration_held");
        c.registrationHolds().forEach(a::add);
        int held = 0;
        for (Node m : c.nodes.values()) {
          if (m.controllerProxy != null) held += m.controllerProxy.heldLifecycleFrames();
        }
        resp.put("held_frames", held);
        return;
      }
      case "gate_fetch": {
        Node n = c.node(intField(req, "node"));
        c.gateFetch(n, req.hasNonNull("value") ? text(req, "value") : null);
        resp.put("node", n.id);
        return;
      }
      case "release_fetch_gate": {
        Node n = c.node(intField(req, "node"));
        resp.put("was_closed", c.releaseFetchGate(n));
        int held = 0;
        for (Node m : c.nodes.values()) {
          if (m.replicationProxy != null) held += m.replicationProxy.heldFetchFrames();
        }
        resp.put("held_frames", held);
        return;
      }
      case "hold_alter_partition":
      case "release_alter_partition":
      case "holds": {
        Node n = c.node(intField(req, "node"));
        if (!op.equals("holds")) c.holdAlterPartition(n, op.equals("hold_alter_partition"));
        int held = 0;
        int waiting = 0;
        for (Node m : c.nodes.values()) {
          if (m.controllerProxy == null) continue;
          held += m.controllerProxy.heldAlterPartitionFrames();
          waiting += m.controllerProxy.waitingAlterPartitionFrames();
        }
        resp.put("alter_partition_held_frames", held);
        resp.put("alter_partition_waiting", waiting);
        resp.put("fetch_gate_closed", c.fetchGateClosed(n.id));
        return;
      }
      case "hold_metadata":
      case "release_metadata": {
        Node n = c.node(intField(req, "node"));
        c.holdMetadata(n, op.equals("hold_metadata"));
        ArrayNode a = resp.putArray("metadata_held");
        c.metadataHolds().forEach(a::add);
        int held = 0;
        int raft = 0;
        for (Node m : c.nodes.values()) {
          if (m.controllerProxy == null) continue;
          held += m.controllerProxy.heldMetadataFrames();
          raft += m.controllerProxy.raftConnectionsSeen();
        }
        resp.put("held_frames", held);
        resp.put("raft_connections", raft);
        return;
      }
      case "drop_produce_responses": {
        Node n = c.node(intField(req, "node"));
        if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker");
        int count = intField(req, "count");
        n.clientProxy.armProduceResponseDrop(count);
        resp.put("armed", count);
        return;
      }
      case "drop_produce_requests": {
        Node n = c.node(intField(req, "node"));
        if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker");
        int count = intField(req, "count");
        if (count < 0) throw DriverException.badRequest("count: must be >= 0 (0 disarms)");
        n.clientProxy.armProduceRequestDrop(count);
        resp.put("armed", count);
        return;
      }
      case "dropped": {
        Node n = c.node(intField(req, "node"));
        if (!n.broker) throw DriverException.badRequest("node: " + n.id + " is not a broker");
        resp.put("dropped", n.clientProxy.droppedProduceResponses());
        resp.put("dropped_requests", n.clientProxy.droppedProduceRequests());
        return;
      }
      case "elect_preferred":
        c.electPreferred(intField(req, "leader"), deadline(req, 30000));
        return;
      case "metadata_log": {
        String topic = req.hasNonNull("topic") ? req.get("topic").asText() : c.topic;
        if (topic == null) throw DriverException.badRequest("topic: none given and no topic created");
        com.fasterxml.jackson.databind.node.ArrayNode decisions = resp.putArray("decisions");
        for (String line : c.metadataLog(topic, deadline(req, 60000))) decisions.add(mapper.readTree(line));
        return;
      }
      case "remove_voter":
      case "add_voter": {
        if (c.dynamic == null) throw DriverException.badRequest(op + ": the cluster runs a static quorum (start_cluster \"quorum\": \"dynamic\")");
        int id = intField(req, "node");
        if (op.equals("remove_voter")) c.dynamic.removeVoter(c, id, deadline(req, 30000));
        else c.dynamic.addVoter(c, id, deadline(req, 60000));
        resp.put("node", id);
        return;
      }
      case "describe": {
        String topic = req.hasNonNull("topic") ? req.get("topic").asText() : c.topic;
        if (topic == null) throw DriverException.badRequest("topic: none given and no topic created");
        long describeDeadline = deadline(req, 5000);
        ObjectNode d = Describer.describe(c, topic, describeDeadline);
        if (c.dynamic != null) c.dynamic.describe(c, d, Math.max(describeDeadline, System.currentTimeMillis() + 2000));
        resp.setAll(d);
        return;
      }
      default:
        throw DriverException.badRequest("op: \"" + op + "\" is not one of " + OPS);
    }
  }

  private void startCluster(JsonNode req, ObjectNode resp) throws Exception {
    if (cluster != null) throw DriverException.badRequest("a cluster is running: send stop_cluster first");
    long deadline = deadline(req, 90000);
    File workDir = new File(text(req, "work_dir"));
    if (workDir.exists()) {
      String[] entries = workDir.list();
      if (entries == null || entries.length > 0) throw DriverException.badRequest("work_dir: " + workDir + " exists and is not empty");
    }
    String version = req.path("kafka_version").asText("4.4.0");
    String classpath;
    if (req.hasNonNull("kafka_classpath")) {
      classpath = req.get("kafka_classpath").asText();
    } else {
      File cpFile = new File(new File(classpathDir, version), "classpath.txt");
      if (!cpFile.isFile()) {
        throw DriverException.badRequest("kafka_version: no classpath for Kafka " + version + " (" + cpFile
            + " missing: run scripts/install-kafka.sh --kafka-version " + version + ")");
      }
      classpath = Files.readString(cpFile.toPath(), StandardCharsets.UTF_8).trim();
    }
    JsonNode nodesJson = req.path("nodes");
    if (!nodesJson.isArray() || nodesJson.isEmpty()) throw DriverException.badRequest("nodes: expected a non-empty list of {id, roles}");
    Map<Integer, List<String>> roles = new TreeMap<>();
    for (JsonNode n : nodesJson) {
      if (!n.path("id").canConvertToInt()) throw DriverException.badRequest("nodes[].id: expected an integer");
      List<String> r = new ArrayList<>();
      for (JsonNode x : n.path("roles")) {
        String role = x.asText();
        if (!role.equals("broker") && !role.equals("controller")) {
          throw DriverException.badRequest("nodes[].roles: \"" + role + "\" is not one of [broker, controller]");
        }
        r.add(role);
      }
      if (r.isEmpty()) throw DriverException.badRequest("nodes[].roles: expected broker and/or controller");
      if (roles.put(n.get("id").asInt(), r) != null) throw DriverException.badRequest("nodes: duplicate id " + n.get("id"));
    }
    List<Integer> voters = intList(req, "voters");
    if (voters.isEmpty()) {
      for (Map.Entry<Integer, List<String>> e : roles.entrySet()) if (e.getValue().contains("controller")) voters.add(e.getKey());
    }
    for (int v : voters) {
      if (!roles.containsKey(v) || !roles.get(v).contains("controller")) {
        throw DriverException.badRequest("voters: " + v + " is not a node with the controller role");
      }
    }
    if (voters.isEmpty()) throw DriverException.badRequest("voters: no controller among the nodes");
    Map<String, String> features = stringMap(req, "features");
    // Optional: a node's log.dirs elsewhere than work_dir/node-<id>/data (an existing empty
    // directory: the harness's isrcheck-powerfs mounts for power loss).
    Map<Integer, File> dataDirs = new TreeMap<>();
    for (Map.Entry<String, String> e : stringMap(req, "data_dirs").entrySet()) {
      int id;
      try {
        id = Integer.parseInt(e.getKey());
      } catch (NumberFormatException x) {
        throw DriverException.badRequest("data_dirs: key \"" + e.getKey() + "\" is not a node id");
      }
      if (!roles.containsKey(id)) throw DriverException.badRequest("data_dirs: " + id + " is not a node of this cluster");
      File dir = new File(e.getValue());
      String[] entries = dir.list();
      if (!dir.isAbsolute() || entries == null || entries.length > 0) {
        throw DriverException.badRequest("data_dirs." + id + ": " + dir + " is not an absolute path of an existing empty directory");
      }
      dataDirs.put(id, dir);
    }
    int heap = req.path("jvm_heap_mb").asInt(384);
    String mode = req.path("controller_mode").asText("kraft");
    if (!mode.equals("kraft") && !mode.equals("zookeeper")) {
      throw DriverException.badRequest("controller_mode: \"" + mode + "\" is not one of [kraft, zookeeper]");
    }
    boolean zookeeper = mode.equals("zookeeper");
    if (zookeeper && !features.isEmpty()) {
      throw DriverException.badRequest("features: a ZooKeeper-mode cluster has no KRaft features to format with");
    }
    long t0 = System.currentTimeMillis();
    String quorum = req.path("quorum").asText("static");
    if (!quorum.equals("static") && !quorum.equals("dynamic")) {
      throw DriverException.badRequest("quorum: \"" + quorum + "\" is not one of [static, dynamic]");
    }
    if (zookeeper && quorum.equals("dynamic")) throw DriverException.badRequest("quorum: \"dynamic\" needs controller_mode kraft");
    Cluster c = new Cluster(workDir, version, classpath, voters, heap, features, zookeeper);
    if (quorum.equals("dynamic")) c.dynamic = new DynamicQuorum(voters);
    cluster = c;  // so that a failure below still stops what started
    try {
      c.setUp(roles, stringMap(req, "broker_config"), dataDirs);
      c.format(c.nodes.values(), deadline);
      long formatted = System.currentTimeMillis();
      if (zookeeper) {
        ZooKeeperMode.startAll(c, deadline);
      } else {
        for (Node n : c.nodes.values()) {
          c.startNode(n);
          n.expectedAlive = true;
        }
      }
      c.awaitReady(deadline);
      resp.put("format_ms", formatted - t0);
      resp.put("startup_ms", System.currentTimeMillis() - formatted);
    } catch (Exception e) {
      c.stopAll();
      cluster = null;
      throw e;
    }
    resp.put("cluster_id", c.clusterId);
    resp.put("kafka_version", version);
    resp.put("controller_mode", mode);
    resp.put("quorum", quorum);
    resp.put("work_dir", workDir.getAbsolutePath());
    resp.put("pids_file", new File(workDir, "pids").getAbsolutePath());
    ArrayNode nodes = resp.putArray("nodes");
    for (Node n : c.nodes.values()) nodes.add(nodeJson(n));
  }

  private ObjectNode nodeJson(Node n) {
    ObjectNode o = mapper.createObjectNode();
    o.put("id", n.id);
    ArrayNode r = o.putArray("roles");
    n.roles().forEach(r::add);
    o.put("pid", n.pid());
    o.put("alive", n.alive());
    o.put("paused", n.paused);
    o.put("log_dir", n.dataDir.getAbsolutePath());
    o.put("server_log", n.log.getAbsolutePath());
    ObjectNode p = o.putObject("ports");
    if (n.broker) {
      p.put("client", n.clientProxy.port());
      p.put("replication", n.replicationProxy.port());
      p.put("observer", n.observer);
      p.put("client_real", n.clientReal);
      p.put("replication_real", n.replicationReal);
    }
    if (n.controller) {
      p.put("controller", n.controllerProxy.port());
      p.put("controller_real", n.controllerReal);
    }
    return o;
  }

  private void status(ObjectNode resp) {
    if (cluster == null) {
      resp.put("cluster", false);
      return;
    }
    resp.put("cluster", true);
    resp.put("kafka_version", cluster.kafkaVersion);
    resp.put("work_dir", cluster.workDir.getAbsolutePath());
    ArrayNode nodes = resp.putArray("nodes");
    for (Node n : cluster.nodes.values()) nodes.add(nodeJson(n));
    ArrayNode a = resp.putArray("cuts");
    cluster.cuts().forEach(a::add);
    ArrayNode mh = resp.putArray("metadata_held");
    cluster.metadataHolds().forEach(mh::add);
    ArrayNode rh = resp.putArray("registration_held");
    cluster.registrationHolds().forEach(rh::add);
    ArrayNode conns = resp.putArray("connections");
    for (Node n : cluster.nodes.values()) {
      for (TcpProxy p : new TcpProxy[] {n.clientProxy, n.replicationProxy, n.controllerProxy}) {
        if (p != null) p.connections().forEach(conns::add);
      }
    }
  }

  private Cluster requireCluster() throws DriverException {
    if (cluster == null) throw DriverException.badRequest("no cluster: send op \"start_cluster\" first");
    return cluster;
  }

  // ---- request fields ---------------------------------------------------------------

  private static long deadline(JsonNode req, long defaultMs) throws DriverException {
    JsonNode t = req.path("timeout_ms");
    if (!t.isMissingNode() && !t.isNull() && (!t.canConvertToLong() || t.asLong() <= 0)) {
      throw DriverException.badRequest("timeout_ms: expected a positive integer");
    }
    return System.currentTimeMillis() + (t.isMissingNode() || t.isNull() ? defaultMs : t.asLong());
  }

  private static String text(JsonNode req, String field) throws DriverException {
    JsonNode v = req.path(field);
    if (!v.isTextual() || v.asText().isEmpty()) throw DriverException.badRequest(field + ": expected a non-empty string");
    return v.asText();
  }

  private static int intField(JsonNode req, String field) throws DriverException {
    JsonNode v = req.path(field);
    if (!v.canConvertToInt() || !v.isIntegralNumber()) throw DriverException.badRequest(field + ": expected an integer");
    return v.asInt();
  }

  private static List<Integer> intList(JsonNode req, String field) throws DriverException {
    List<Integer> out = new ArrayList<>();
    JsonNode v = req.path(field);
    if (v.isMissingNode() || v.isNull()) return out;
    if (!v.isArray()) throw DriverException.badRequest(field + ": expected a list of integers");
    for (JsonNode x : v) {
      if (!x.isIntegralNumber()) throw DriverException.badRequest(field + ": expected a list of integers");
      out.add(x.asInt());
    }
    return out;
  }

  private static Map<String, String> stringMap(JsonNode req, String field) throws DriverException {
    Map<String, String> out = new LinkedHashMap<>();
    JsonNode v = req.path(field);
    if (v.isMissingNode() || v.isNull()) return out;
    if (!v.isObject()) throw DriverException.badRequest(field + ": expected an object of settings");
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString());
    }
    return out;
  }

  /** This driver's jar (or classes directory), for child JVMs that run FormatHelper. */
  static String ownJar() {
    try {
      return Path.of(Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (Exception e) {
      throw new IllegalStateException("cannot locate the driver jar", e);
    }
  }
}
