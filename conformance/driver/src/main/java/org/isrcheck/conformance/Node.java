// One Kafka node: its ports, directories, server.properties and its JVM. Each node is its
// own child JVM (kafka.Kafka server.properties) on the classpath of the release under
// test, so that kill -9, SIGTERM and SIGSTOP hit exactly one node.
package org.isrcheck.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

final class Node {
  final int id;
  final boolean broker;
  final boolean controller;
  final File dir;       // work_dir/node-<id>
  final File dataDir;   // log.dirs (and the metadata log)
  final File config;    // server.properties
  final File log;       // the JVM's stdout/stderr (Kafka's log4j console output)
  // Real listener ports (the node binds them) and the observer port (not proxied).
  int clientReal = -1, replicationReal = -1, controllerReal = -1, observer = -1;
  TcpProxy clientProxy, replicationProxy, controllerProxy;
  RawClient raw;        // to the observer listener
  Process process;
  boolean paused;
  volatile boolean expectedAlive;  // started by us and not killed/stopped since
  // The disk was lost and not formatted yet: formatted at the next start (disk_loss).
  volatile boolean formatBeforeStart;
  int starts;
  // kafka.Kafka; a ZooKeeper server node (ZooKeeperMode) runs QuorumPeerMain on its config.
  String mainClass = "kafka.Kafka";

  /** dataDir: null for work_dir/node-id/data; else start_cluster's data_dirs entry (a mount). */
  Node(int id, boolean broker, boolean controller, File workDir, File dataDir) {
    this.id = id;
    this.broker = broker;
    this.controller = controller;
    this.dir = new File(workDir, "node-" + id);
    this.dataDir = dataDir != null ? dataDir : new File(dir, "data");
    this.config = new File(dir, "server.properties");
    this.log = new File(dir, "server.log");
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  long pid() {
    return process == null ? -1 : process.pid();
  }

  List<String> roles() {
    List<String> r = new ArrayList<>();
    if (broker) r.add("broker");
    if (controller) r.add("controller");
    return r;
  }

  void writeConfig(Map<String, String> cfg) throws IOException {
    StringBuilder sb = new StringBuilder("# written by the isrcheck conformance driver\n");
    for (Map.Entry<String, String> e : new TreeMap<>(cfg).entrySet()) {
      sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
    }
    Files.writeString(config.toPath(), sb.toString(), StandardCharsets.UTF_8);
  }

  void start(String javaBin, String classpath, List<String> jvmOptions) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin);
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(mainClass);
    cmd.add(config.getAbsolutePath());
    starts++;
    Files.writeString(log.toPath(), "==== isrcheck driver: start " + starts + " of node " + id + " at "
        + java.time.Instant.now() + " ====\n", StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    process = Spawner.start(cmd, log, "node-" + id);
    paused = false;
  }

  /** kill -9 and wait (bounded) for the process to be gone. */
  boolean kill(long timeoutMs) throws InterruptedException {
    if (process == null) return true;
    process.destroyForcibly();
    boolean gone = process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    if (gone) Spawner.forget(process);
    paused = false;
    return gone;
  }

  void closeProxies() {
    for (TcpProxy p : new TcpProxy[] {clientProxy, replicationProxy, controllerProxy}) {
      if (p != null) p.close();
    }
    if (raw != null) raw.close();
  }
}
