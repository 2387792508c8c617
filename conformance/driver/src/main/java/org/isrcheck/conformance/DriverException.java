// An op's failure as the protocol reports it: a message and a kind (PROTOCOL.md).
package org.isrcheck.conformance;

final class DriverException extends Exception {
  final String kind;

  DriverException(String kind, String message) {
    super(message);
    this.kind = kind;
  }

  static DriverException badRequest(String m) {
    return new DriverException("bad_request", m);
  }

  static DriverException timeout(String m) {
    return new DriverException("timeout", m);
  }

  static DriverException kafka(String m) {
    return new DriverException("kafka", m);
  }

  static DriverException internal(String m) {
    return new DriverException("internal", m);
  }
}
