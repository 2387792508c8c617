// Runs in a child JVM on the classpath of the Kafka release under test (plus this jar):
// formats the storage of one or more nodes with that release's own
// kafka.tools.StorageTool ("kafka-storage.sh format"), one JVM for all nodes instead of
// one per node. Uses reflection only, so it links against any release: Kafka's Exit
// class moved from org.apache.kafka.common.utils to ...utils.internals in 4.x.
//
// Arguments: a file with one line per node, the StorageTool arguments separated by tabs.
// Prints "format <line> exit <status>" per line; exits 0 when every format succeeded.
//
// Releases before 3.8 have no `--feature NAME=LEVEL` (KAFKA-16308, KIP-1022, came with the
// FeatureVersion interface in 3.8), only `--release-version` (KAFKA-13410, 3.3) for the
// metadata.version: on those, metadata.version=L becomes `--release-version` of the
// release's own MetadataVersion with feature level L, and a level the release does not
// know (newer than it) is left out, so the release formats at its own latest level, which
// has none of the later level's changes either. Any other feature at level 0 (off) is
// what such a release has anyway; above 0 it cannot be set there, an error.
package org.isrcheck.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public final class FormatHelper {
  static final class ExitCalled extends RuntimeException {
    final int status;

    ExitCalled(int status) {
      super("exit " + status);
      this.status = status;
    }
  }

  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Path.of(args[0]));
    Class<?> exit = null;
    for (String name : new String[] {"org.apache.kafka.common.utils.internals.Exit",
                                     "org.apache.kafka.common.utils.Exit"}) {
      try {
        exit = Class.forName(name);
        break;
      } catch (ClassNotFoundException ignored) {
        // try the next location
      }
    }
    if (exit == null) throw new IllegalStateException("no Kafka Exit class on the classpath");
    Class<?> procedure = Class.forName(exit.getName() + "$Procedure");
    Object thrower = Proxy.newProxyInstance(procedure.getClassLoader(), new Class<?>[] {procedure},
        (proxy, method, margs) -> {
          if (method.getDeclaringClass() == Object.class) return method.invoke(proxy, margs);
          throw new ExitCalled((Integer) margs[0]);
        });
    exit.getMethod("setExitProcedure", procedure).invoke(null, thrower);
    exit.getMethod("setHaltProcedure", procedure).invoke(null, thrower);
    Method storageMain = Class.forName("kafka.tools.StorageTool").getMethod("main", String[].class);
    boolean featureFlag = classExists("org.apache.kafka.server.common.FeatureVersion");
    int failures = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) continue;
      String[] toolArgs = lines.get(i).split("\t");
      if (!featureFlag) toolArgs = withReleaseVersion(toolArgs);
      int status = 0;
      try {
        storageMain.invoke(null, (Object) toolArgs);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof ExitCalled) {
          status = ((ExitCalled) cause).status;
        } else {
          cause.printStackTrace();
          status = 99;
        }
      }
      System.out.println("format " + i + " exit " + status);
      System.out.flush();
      if (status != 0) failures++;
    }
    System.exit(failures == 0 ? 0 : 1);
  }

  private static boolean classExists(String name) {
    try {
      Class.forName(name);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** `--feature` arguments rewritten for a StorageTool without them (top of this file). */
  static String[] withReleaseVersion(String[] args) throws ReflectiveOperationException {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].equals("--feature") || i + 1 >= args.length) {
        out.add(args[i]);
        continue;
      }
      String[] nameLevel = args[++i].split("=", 2);
      short level = Short.parseShort(nameLevel[1]);
      if (nameLevel[0].equals("metadata.version")) {
        Class<?> mv = Class.forName("org.apache.kafka.server.common.MetadataVersion");
        String release = null;
        for (Object v : (Object[]) mv.getMethod("values").invoke(null)) {
          if ((Short) mv.getMethod("featureLevel").invoke(v) == level) release = (String) mv.getMethod("version").invoke(v);
        }
        if (release != null) {
          out.add("--release-version");
          out.add(release);
        } else {
          System.out.println("format: metadata.version level " + level + " is newer than this release knows: "
              + "formatted at the release's default");
        }
      } else if (level != 0) {
        throw new IllegalArgumentException("feature " + nameLevel[0] + "=" + level
            + ": this release's StorageTool has no --feature (Kafka 3.8+) and no such feature");
      }
    }
    return out.toArray(new String[0]);
  }
}
