// A TCP proxy in front of one listener of one Kafka node. Every advertised address and
// controller.quorum.voters entry points at such proxies, so that cutting one side of one
// node is a real network cut of exactly that traffic: the proxy freezes the connections
// the cut covers (no byte moves either way, new connections are accepted and frozen too),
// as a firewall DROP would; healing releases what was held. Peers see silence and close
// on their own timeouts, as in a real partition.
//
// Each accepted connection is tagged with the node it comes from (the owner of the
// peer's socket, found through /proc/net/tcp and /proc/<pid>/fd), so that a cut of node
// n's replication or quorum side also freezes n's own outgoing connections to the other
// nodes' proxies ("either end", PROTOCOL.md).
//
// The client-listener proxy also parses Kafka's framing (4-byte size; request header
// api_key, api_version, correlation_id) to drop the responses of Produce requests
// (api key 0) on demand: a lost produce response, for the duplicates scenario; and to
// drop Produce requests themselves before they reach the broker: a lost acks=0 request
// (the client expects no response to it, so nothing else is missing on the connection).
//
// The controller-listener proxy parses the same framing to hold one broker's metadata
// replay while its heartbeats flow (hold_metadata, PROTOCOL.md): a KRaft broker fetches
// the metadata log through its KafkaRaftClient (Fetch, api key 1; FetchSnapshot, 59) and
// heartbeats through BrokerLifecycleManager's own NodeToControllerChannelManager
// (BrokerRegistration 62, BrokerHeartbeat 63; AlterPartition 56 and the forwarding
// channel are further managers), each with a NetworkClient, hence a TCP connection, of
// its own. A connection is marked "raft" by its first request that is not ApiVersions
// (18, sent first on every connection): Fetch or FetchSnapshot. While the origin broker
// is held, the next request frame of a raft connection, and so everything after it on
// that connection, waits in the proxy; responses already on their way still arrive. The
// hold is per connection because a Kafka NetworkClient matches responses to requests in
// order per connection (InFlightRequests.completeNext): holding one request and passing
// a later one on the same connection would break the client.
//
// The same proxy holds one broker's registration and unfencing (hold_registration): a
// connection whose first request after ApiVersions is BrokerRegistration (62) or
// BrokerHeartbeat (63) is its BrokerLifecycleManager's, and while the origin broker is
// held every request frame of it waits, so the controller neither registers a restarted
// incarnation nor unfences a fenced one until the trace does (a slow lifecycle channel).
// Its raft and AlterPartition connections are untouched, so a combined node's controller
// stays in the quorum.
//
// Two more holds serve the shrink of a follower right after it fetched a record (issue
// 28, PROTOCOL.md gate_fetch / hold_alter_partition): the replication proxy parses the
// same framing, and once a response to follower F carries the armed bytes (the record's
// value) it closes F's fetch gate, so F's next request waits in the proxy: F holds the
// record while its leader has not seen it fetch past it. The controller proxy holds the
// request frames of a broker's AlterPartition connection (first request after ApiVersions
// AlterPartition, 56: its AlterPartitionManager's own channel) while that broker is held.
package org.isrcheck.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

final class TcpProxy implements AutoCloseable {
  enum Listener { CLIENT, REPLICATION, CONTROLLER, ZOOKEEPER }

  /** Decides whether a connection is cut; implemented by the cluster (its cut set). */
  interface CutPolicy {
    boolean frozen(int targetNode, Listener listener, Integer originNode);
    /** Monitor that heal notifies. */
    Object monitor();
    /** Which node, if any, owns the socket whose local port is `port`. */
    Integer originOf(int peerPort, int proxyPort);
    /** Whether the metadata-log fetches of `originNode` are held (hold_metadata). */
    boolean metadataHeld(Integer originNode);
    /** Whether the registration and heartbeats of `originNode` are held (hold_registration). */
    boolean registrationHeld(Integer originNode);
    /** The bytes whose arrival at `originNode` closes its fetch gate (gate_fetch), or null. */
    byte[] fetchGateValue(Integer originNode);
    /** Whether the fetch gate of `originNode` is closed: its replication requests wait. */
    boolean fetchGateClosed(Integer originNode);
    /** Closes the fetch gate of `originNode` (a response carried the armed bytes). */
    void closeFetchGate(Integer originNode);
    /** Whether the AlterPartition requests of `originNode` are held (hold_alter_partition). */
    boolean alterPartitionHeld(Integer originNode);
  }

  /** Kafka api keys the controller proxy tells apart (clients/.../message/*Request.json). */
  static final int API_FETCH = 1;
  static final int API_API_VERSIONS = 18;
  static final int API_ALTER_PARTITION = 56;
  static final int API_FETCH_SNAPSHOT = 59;
  static final int API_BROKER_REGISTRATION = 62;
  static final int API_BROKER_HEARTBEAT = 63;

  /**
   * What the first request frames of a connection make of it: null while only
   * ApiVersions (or nothing) went by, then true for a raft connection (Fetch or
   * FetchSnapshot first), false for any other (heartbeat, registration, AlterPartition).
   */
  static Boolean classify(Boolean sofar, int apiKey) {
    if (sofar != null || apiKey == API_API_VERSIONS) return sofar;
    return apiKey == API_FETCH || apiKey == API_FETCH_SNAPSHOT;
  }

  /**
   * The same for a broker's lifecycle connection: null while only ApiVersions went by, then
   * true when the first other request is BrokerRegistration or BrokerHeartbeat.
   */
  static Boolean classifyLifecycle(Boolean sofar, int apiKey) {
    if (sofar != null || apiKey == API_API_VERSIONS) return sofar;
    return apiKey == API_BROKER_REGISTRATION || apiKey == API_BROKER_HEARTBEAT;
  }

  /** The same for a broker's AlterPartition connection. */
  static Boolean classifyAlterPartition(Boolean sofar, int apiKey) {
    if (sofar != null || apiKey == API_API_VERSIONS) return sofar;
    return apiKey == API_ALTER_PARTITION;
  }

  /** Whether `frame` contains `needle` (a record value in a fetch response). */
  static boolean contains(byte[] frame, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= frame.length; ++i) {
      for (int j = 0; j < needle.length; ++j) {
        if (frame[i + j] != needle[j]) continue outer;
      }
      return true;
    }
    return false;
  }

  /** The api key of a request frame (the header's first two bytes), or -1 when too short. */
  static int apiKeyOf(byte[] frame) {
    return frame.length < 8 ? -1 : ((frame[0] & 0xff) << 8) | (frame[1] & 0xff);
  }

  final int node;
  final Listener listener;
  private final int upstreamPort;
  private final ServerSocket server;
  private final CutPolicy policy;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Set<Conn> conns = ConcurrentHashMap.newKeySet();
  private final AtomicInteger dropProduceResponses = new AtomicInteger();
  private final AtomicInteger dropped = new AtomicInteger();
  private final AtomicInteger dropProduceRequests = new AtomicInteger();
  private final AtomicInteger droppedRequests = new AtomicInteger();
  // Raft request frames that waited for a metadata hold, and raft connections seen.
  private final AtomicInteger heldFrames = new AtomicInteger();
  private final AtomicInteger raftConnections = new AtomicInteger();
  // Lifecycle request frames (registration, heartbeat) that waited for a registration hold.
  private final AtomicInteger heldLifecycleFrames = new AtomicInteger();
  // AlterPartition frames held (in total, and waiting now); fetch frames behind a closed gate.
  private final AtomicInteger heldAlterPartitionFrames = new AtomicInteger();
  private final AtomicInteger waitingAlterPartitionFrames = new AtomicInteger();
  private final AtomicInteger heldFetchFrames = new AtomicInteger();
  private volatile boolean closed;

  TcpProxy(int node, Listener listener, int upstreamPort, CutPolicy policy) throws IOException {
    this.node = node;
    this.listener = listener;
    this.upstreamPort = upstreamPort;
    this.policy = policy;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    Thread t = new Thread(this::acceptLoop, "proxy-" + node + "-" + listener);
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void armProduceResponseDrop(int count) {
    dropProduceResponses.set(count);
  }

  int droppedProduceResponses() {
    return dropped.get();
  }

  /** Drops the next `count` Produce requests from clients (0 disarms). */
  void armProduceRequestDrop(int count) {
    dropProduceRequests.set(count);
  }

  int droppedProduceRequests() {
    return droppedRequests.get();
  }

  /** Raft request frames that had to wait for a metadata hold on this proxy. */
  int heldMetadataFrames() {
    return heldFrames.get();
  }

  /** Registration and heartbeat frames that had to wait for a registration hold. */
  int heldLifecycleFrames() {
    return heldLifecycleFrames.get();
  }

  /** AlterPartition frames that had to wait for a hold (in total). */
  int heldAlterPartitionFrames() {
    return heldAlterPartitionFrames.get();
  }

  /** AlterPartition frames waiting in this proxy now. */
  int waitingAlterPartitionFrames() {
    return waitingAlterPartitionFrames.get();
  }

  /** Replication request frames that waited behind a closed fetch gate (in total). */
  int heldFetchFrames() {
    return heldFetchFrames.get();
  }

  /** Connections this proxy classified as raft (metadata log) connections. */
  int raftConnectionsSeen() {
    return raftConnections.get();
  }

  /** The open connections: "origin->node:listener" (origin "external" when no node owns it). */
  java.util.List<String> connections() {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (Conn c : conns) {
      out.add((c.origin == null ? "external" : c.origin.toString()) + "->" + node + ":" + listener.name().toLowerCase()
          + (Boolean.TRUE.equals(c.raft) ? " raft" : "")
          + (policy.frozen(node, listener, c.origin) ? " (frozen)" : "")
          + (Boolean.TRUE.equals(c.lifecycle) ? " lifecycle" : "")
          + (Boolean.TRUE.equals(c.raft) && policy.metadataHeld(c.origin) ? " (metadata held)" : "")
          + (Boolean.TRUE.equals(c.lifecycle) && policy.registrationHeld(c.origin) ? " (registration held)" : ""));
    }
    java.util.Collections.sort(out);
    return out;
  }

  /** Closes every connection through this proxy (the node behind it went away). */
  void closeConnections() {
    for (Socket s : sockets) closeQuietly(s);
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    closeConnections();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket down;
      try {
        down = server.accept();
      } catch (IOException e) {
        if (closed) return;
        continue;
      }
      Thread t = new Thread(() -> connect(down), "proxy-conn-" + node + "-" + listener);
      t.setDaemon(true);
      t.start();
    }
  }

  private void connect(Socket down) {
    sockets.add(down);
    Integer origin = policy.originOf(down.getPort(), port());
    Socket up = new Socket();
    try {
      down.setTcpNoDelay(true);
      // Do not even reach the node while the connection is cut (a SYN dropped).
      waitWhileFrozen(origin);
      up.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 2000);
      up.setTcpNoDelay(true);
      sockets.add(up);
    } catch (IOException | InterruptedException e) {
      closeQuietly(down);
      closeQuietly(up);
      sockets.remove(down);
      return;
    }
    Conn c = new Conn(down, up, origin);
    conns.add(c);
    Thread a = new Thread(() -> c.pump(true), "pump-" + node + "-" + listener + "-up");
    Thread b = new Thread(() -> c.pump(false), "pump-" + node + "-" + listener + "-down");
    a.setDaemon(true);
    b.setDaemon(true);
    a.start();
    b.start();
  }

  private void waitWhileFrozen(Integer origin) throws InterruptedException {
    Object m = policy.monitor();
    synchronized (m) {
      while (!closed && policy.frozen(node, listener, origin)) {
        m.wait(200);
      }
    }
  }

  private void waitWhileMetadataHeld(Integer origin) throws InterruptedException {
    Object m = policy.monitor();
    synchronized (m) {
      while (!closed && policy.metadataHeld(origin)) {
        m.wait(200);
      }
    }
  }

  private void waitWhileAlterPartitionHeld(Integer origin) throws InterruptedException {
    Object m = policy.monitor();
    synchronized (m) {
      while (!closed && policy.alterPartitionHeld(origin)) {
        m.wait(200);
      }
    }
  }

  private void waitWhileGateClosed(Integer origin) throws InterruptedException {
    Object m = policy.monitor();
    synchronized (m) {
      while (!closed && policy.fetchGateClosed(origin)) {
        m.wait(200);
      }
    }
  }

  private void waitWhileRegistrationHeld(Integer origin) throws InterruptedException {
    Object m = policy.monitor();
    synchronized (m) {
      while (!closed && policy.registrationHeld(origin)) {
        m.wait(200);
      }
    }
  }

  private final class Conn {
    final Socket down;
    final Socket up;
    final Integer origin;
    // Controller proxy: whether this is a raft connection (null: not known yet).
    volatile Boolean raft;
    // Controller proxy: whether this is a broker's lifecycle connection (null: not known yet).
    volatile Boolean lifecycle;
    // Controller proxy: whether this is a broker's AlterPartition connection (null: not known yet).
    volatile Boolean alterPartition;
    // Correlation ids of Produce requests in flight on this connection (client proxy).
    final Set<Integer> produceCorrelations = ConcurrentHashMap.newKeySet();
    final AtomicInteger finished = new AtomicInteger();

    Conn(Socket down, Socket up, Integer origin) {
      this.down = down;
      this.up = up;
      this.origin = origin;
    }

    /** toUpstream: client -> node direction. */
    void pump(boolean toUpstream) {
      Socket from = toUpstream ? down : up;
      Socket to = toUpstream ? up : down;
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        if (listener == Listener.CLIENT || listener == Listener.CONTROLLER || listener == Listener.REPLICATION) {
          framed(new DataInputStream(in), new DataOutputStream(out), toUpstream);
        } else {
          raw(in, out);
        }
        waitWhileFrozen(origin);
        to.shutdownOutput();
      } catch (IOException | InterruptedException e) {
        closeQuietly(down);
        closeQuietly(up);
      } finally {
        if (finished.incrementAndGet() == 2) {
          closeQuietly(down);
          closeQuietly(up);
          conns.remove(this);
        }
        if (down.isClosed()) sockets.remove(down);
        if (up.isClosed()) sockets.remove(up);
      }
    }

    private void raw(InputStream in, OutputStream out) throws IOException, InterruptedException {
      byte[] buf = new byte[64 * 1024];
      while (true) {
        int n = in.read(buf);
        if (n < 0) return;
        waitWhileFrozen(origin);
        out.write(buf, 0, n);
        out.flush();
      }
    }

    private void framed(DataInputStream in, DataOutputStream out, boolean request)
        throws IOException, InterruptedException {
      while (true) {
        int size;
        try {
          size = in.readInt();
        } catch (java.io.EOFException e) {
          return;
        }
        if (size < 0 || size > 200 * 1024 * 1024) throw new IOException("bad frame size " + size);
        byte[] frame = new byte[size];
        in.readFully(frame);
        waitWhileFrozen(origin);
        if (request && listener == Listener.CONTROLLER) {
          Boolean before = raft;
          raft = classify(before, apiKeyOf(frame));
          if (before == null && Boolean.TRUE.equals(raft)) {
            raftConnections.incrementAndGet();
            Log.info("proxy " + node + "/" + listener + ": connection from " + origin + " is a raft connection");
          }
          if (Boolean.TRUE.equals(raft) && policy.metadataHeld(origin)) {
            heldFrames.incrementAndGet();
            waitWhileMetadataHeld(origin);
            // A cut that began during the hold freezes the frame further.
            waitWhileFrozen(origin);
          }
          lifecycle = classifyLifecycle(lifecycle, apiKeyOf(frame));
          if (Boolean.TRUE.equals(lifecycle) && policy.registrationHeld(origin)) {
            heldLifecycleFrames.incrementAndGet();
            Log.info("proxy " + node + "/" + listener + ": holding a lifecycle request (api key " + apiKeyOf(frame)
                + ") of broker " + origin);
            waitWhileRegistrationHeld(origin);
            waitWhileFrozen(origin);
          }
          alterPartition = classifyAlterPartition(alterPartition, apiKeyOf(frame));
          if (Boolean.TRUE.equals(alterPartition) && policy.alterPartitionHeld(origin)) {
            heldAlterPartitionFrames.incrementAndGet();
            waitingAlterPartitionFrames.incrementAndGet();
            Log.info("proxy " + node + "/" + listener + ": holding an AlterPartition request of broker " + origin);
            try {
              waitWhileAlterPartitionHeld(origin);
            } finally {
              waitingAlterPartitionFrames.decrementAndGet();
            }
            waitWhileFrozen(origin);
          }
        } else if (listener == Listener.REPLICATION && origin != null) {
          if (request && policy.fetchGateClosed(origin)) {
            heldFetchFrames.incrementAndGet();
            waitWhileGateClosed(origin);
            waitWhileFrozen(origin);
          } else if (!request) {
            byte[] value = policy.fetchGateValue(origin);
            if (value != null && contains(frame, value)) {
              policy.closeFetchGate(origin);
              Log.info("proxy " + node + "/" + listener + ": a response carried the gated bytes to " + origin
                  + ": its fetch gate is closed");
            }
          }
        } else if (request && listener == Listener.CLIENT) {
          if (size >= 8) {
            int apiKey = ((frame[0] & 0xff) << 8) | (frame[1] & 0xff);
            int correlation = readInt(frame, 4);
            if (apiKey == 0 && dropProduceRequests.getAndUpdate(v -> v > 0 ? v - 1 : 0) > 0) {
              droppedRequests.incrementAndGet();
              Log.info("proxy " + node + "/" + listener + ": dropped the Produce request of correlation id "
                  + correlation);
              continue;
            }
            if (apiKey == 0) produceCorrelations.add(correlation);
          }
        } else if (!request && listener == Listener.CLIENT && size >= 4) {
          int correlation = readInt(frame, 0);
          if (produceCorrelations.remove(correlation)) {
            if (dropProduceResponses.getAndUpdate(v -> v > 0 ? v - 1 : 0) > 0) {
              dropped.incrementAndGet();
              Log.info("proxy " + node + "/" + listener + ": dropped the Produce response of correlation id "
                  + correlation);
              continue;
            }
          }
        }
        out.writeInt(size);
        out.write(frame);
        out.flush();
      }
    }
  }

  private static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
