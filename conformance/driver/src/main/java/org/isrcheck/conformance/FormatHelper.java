// Runs in a child JVM on the classpath of the Kafka release under test (plus this jar):
// formats the storage of one or more nodes with that release's own
// kafka.tools.StorageTool ("kafka-storage.sh format"), one JVM for all nodes instead of
// one per node. Uses reflection only, so it links against any release: Kafka's Exit
// class moved from org.apache.kafka.common.utils to ...utils.internals in 4.x.
//
// Arguments: a file with one line per node, the StorageTool arguments separated by tabs.
// Prints "format <line> exit <status>" per line; exits 0 when every format succeeded.
package org.isrcheck.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
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
    int failures = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) continue;
      String[] toolArgs = lines.get(i).split("\t");
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
}
