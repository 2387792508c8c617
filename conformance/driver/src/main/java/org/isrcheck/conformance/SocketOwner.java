// Finds which process owns the client end of a loopback TCP connection: the line of
// /proc/net/tcp{,6} whose local port is the peer's port and whose remote port is the
// proxy's gives the socket inode; the process whose /proc/<pid>/fd holds
// "socket:[inode]" owns it. Lets a proxy know which node a connection comes from.
package org.isrcheck.conformance;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

final class SocketOwner {
  private SocketOwner() {}

  /** The inode of the socket with local port `localPort` connected to `remotePort`, or -1. */
  static long inode(int localPort, int remotePort) {
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        continue;
      }
      for (int i = 1; i < lines.size(); i++) {
        String[] f = lines.get(i).trim().split("\\s+");
        if (f.length < 10) continue;
        if (port(f[1]) == localPort && port(f[2]) == remotePort) {
          try {
            return Long.parseLong(f[9]);
          } catch (NumberFormatException e) {
            return -1;
          }
        }
      }
    }
    return -1;
  }

  /** The key of `pids` (node id) whose process holds socket `inode`, or null. */
  static Integer owner(long inode, Map<Integer, Long> pids) {
    if (inode <= 0) return null;
    String target = "socket:[" + inode + "]";
    for (Map.Entry<Integer, Long> e : pids.entrySet()) {
      Path fds = Path.of("/proc", Long.toString(e.getValue()), "fd");
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(fds)) {
        for (Path fd : ds) {
          try {
            if (Files.readSymbolicLink(fd).toString().equals(target)) return e.getKey();
          } catch (IOException ignored) {
            // fd closed meanwhile
          }
        }
      } catch (IOException ignored) {
        // process gone
      }
    }
    return null;
  }

  private static int port(String hexAddress) {
    int colon = hexAddress.lastIndexOf(':');
    return colon < 0 ? -1 : Integer.parseInt(hexAddress.substring(colon + 1), 16);
  }
}
