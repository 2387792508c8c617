// One blocking connection to one broker listener, for requests the Java Admin client does
// not expose as needed: sent to exactly that broker (its own metadata cache answers), with
// fields Admin drops (the leader epoch). Versions are negotiated with ApiVersions, so a
// kafka-clients 4.4 driver talks to a 3.9 broker too. Not thread-safe: one per node, used
// under its own lock.
package org.isrcheck.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

final class RawClient implements AutoCloseable {
  private final int port;
  private Socket socket;
  private DataInputStream in;
  private DataOutputStream out;
  private final Map<Short, Short> maxVersions = new HashMap<>();
  private int correlation = 1;

  RawClient(int port) {
    this.port = port;
  }

  /** The broker's highest version of `api`, or -1 when it does not support it. */
  synchronized short maxVersion(ApiKeys api, long deadline) throws IOException {
    ensureConnected(deadline);
    return maxVersions.getOrDefault(api.id, (short) -1);
  }

  /**
   * Sends the request built at the highest version both sides support (capped at `cap` when
   * `cap` >= 0) and returns the response; throws IOException on timeout or I/O failure.
   */
  synchronized AbstractResponse send(AbstractRequest.Builder<?> builder, long deadline, short cap)
      throws IOException {
    ensureConnected(deadline);
    ApiKeys api = builder.apiKey();
    short brokerMax = maxVersions.getOrDefault(api.id, (short) -1);
    if (brokerMax < 0) throw new UnsupportedVersion(api + " not supported by the broker");
    short version = (short) Math.min(Math.min(brokerMax, builder.latestAllowedVersion()), cap >= 0 ? cap : Short.MAX_VALUE);
    if (version < builder.oldestAllowedVersion()) {
      throw new UnsupportedVersion(api + ": broker max version " + brokerMax + " below the client's oldest");
    }
    try {
      return exchange(builder.build(version), version, deadline);
    } catch (IOException e) {
      closeSocket();
      throw e;
    }
  }

  static final class UnsupportedVersion extends IOException {
    UnsupportedVersion(String m) {
      super(m);
    }
  }

  private AbstractResponse exchange(AbstractRequest request, short version, long deadline) throws IOException {
    RequestHeader header = new RequestHeader(request.apiKey(), version, "isrcheck-driver", correlation++);
    ByteBuffer buf = request.serializeWithHeader(header);
    setTimeout(deadline);
    out.writeInt(buf.remaining());
    out.write(buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
    out.flush();
    while (true) {
      int size = in.readInt();
      byte[] body = new byte[size];
      in.readFully(body);
      ByteBuffer rb = ByteBuffer.wrap(body);
      int corr = rb.getInt(0);
      if (corr != header.correlationId()) continue;  // a late answer to a timed-out request
      return AbstractResponse.parseResponse(rb, header);
    }
  }

  private void setTimeout(long deadline) throws IOException {
    long left = deadline - System.currentTimeMillis();
    if (left <= 0) throw new SocketTimeoutException("deadline passed");
    socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
  }

  private void ensureConnected(long deadline) throws IOException {
    if (socket != null && !socket.isClosed()) return;
    long left = deadline - System.currentTimeMillis();
    if (left <= 0) throw new SocketTimeoutException("deadline passed");
    Socket s = new Socket();
    try {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) Math.min(left, 2000));
      s.setTcpNoDelay(true);
      socket = s;
      in = new DataInputStream(s.getInputStream());
      out = new DataOutputStream(s.getOutputStream());
      // ApiVersions v3 is understood by every release we run (3.x and 4.x).
      short v = 3;
      AbstractResponse r = exchange(new ApiVersionsRequest.Builder(v).build(v), v, deadline);
      ApiVersionsResponseData data = ((ApiVersionsResponse) r).data();
      if (data.errorCode() != 0) throw new IOException("ApiVersions error " + data.errorCode());
      maxVersions.clear();
      for (ApiVersionsResponseData.ApiVersion av : data.apiKeys()) {
        maxVersions.put(av.apiKey(), av.maxVersion());
      }
    } catch (IOException e) {
      closeSocket();
      try {
        s.close();
      } catch (IOException ignored) {
        // already failing
      }
      throw e;
    }
  }

  private void closeSocket() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    socket = null;
  }

  @Override
  public synchronized void close() {
    closeSocket();
  }
}
