// Driver logging: stderr only (stdout carries the protocol's responses).
package org.isrcheck.conformance;

import java.time.Instant;

final class Log {
  private Log() {}

  static void info(String message) {
    System.err.println(Instant.now() + " driver: " + message);
  }
}
