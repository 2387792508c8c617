// Starts every child process of the driver (Kafka nodes, the storage formatter) from one
// thread that lives as long as the driver, through `setpriv --pdeathsig KILL`, so that a
// child gets SIGKILL when the driver dies, even by kill -9: PR_SET_PDEATHSIG fires when
// the *thread* that created the child exits (prctl(2)), hence the dedicated thread.
// Every pid is appended to the run's pid file (last-resort cleanup by PID) and killed by
// the shutdown hook.
package org.isrcheck.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

final class Spawner {
  private static final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "spawner");
    t.setDaemon(true);
    return t;
  });
  private static final Set<Process> children = ConcurrentHashMap.newKeySet();
  private static volatile Path pidFile;
  private static final boolean haveSetpriv = new File("/usr/bin/setpriv").canExecute();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(Spawner::killAll, "kill-children"));
  }

  private Spawner() {}

  static void setPidFile(Path file) throws IOException {
    pidFile = file;
    appendPid(ProcessHandle.current().pid(), "driver");
  }

  /** Starts `command` with stdout and stderr appended to `log`. */
  static Process start(List<String> command, File log, String what) throws IOException {
    List<String> full = new java.util.ArrayList<>();
    if (haveSetpriv) {
      full.addAll(List.of("/usr/bin/setpriv", "--pdeathsig", "KILL", "--"));
    }
    full.addAll(command);
    Future<Process> f = thread.submit(() -> {
      ProcessBuilder pb = new ProcessBuilder(full);
      pb.redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log));
      pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      return pb.start();
    });
    Process p;
    try {
      p = f.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IOException("cannot start " + what + ": " + e.getMessage(), e);
    }
    children.add(p);
    appendPid(p.pid(), what);
    return p;
  }

  static void forget(Process p) {
    children.remove(p);
  }

  static boolean haveSetpriv() {
    return haveSetpriv;
  }

  static void killAll() {
    for (Process p : children) {
      p.destroyForcibly();
    }
    for (Process p : children) {
      try {
        p.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    children.clear();
  }

  /** Sends a signal the Java API has no call for (STOP, CONT) with /bin/kill. */
  static void signal(long pid, String signal) throws IOException {
    Process p = new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(pid))
        .redirectErrorStream(true).start();
    try {
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("kill -" + signal + " " + pid + " did not finish");
      }
      if (p.exitValue() != 0) {
        throw new IOException("kill -" + signal + " " + pid + " failed: "
            + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }

  private static synchronized void appendPid(long pid, String what) throws IOException {
    Path f = pidFile;
    if (f == null) return;
    Files.writeString(f, pid + " " + what + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
