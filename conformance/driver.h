// The conformance driver as the C++ side sees it: something that answers one JSON request
// with one JSON response, within a bounded time (the pipe protocol of the Java driver,
// conformance/driver/, documented in docs/conformance.md). DriverProcess is the real one;
// tests put an in-process fake behind the same interface.
#pragma once

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace isr::conformance {

// A response with "ok": false, or no response within the budget. `kind` is the
// driver's error kind (timeout, bad_request, kafka, internal) or "no-response" when the
// driver did not answer in time (it is then stopped: a late answer would break the
// one-request-at-a-time framing).
struct DriverError : std::runtime_error {
  DriverError(std::string kind, const std::string& message)
      : std::runtime_error(kind + ": " + message), kind(std::move(kind)) {}
  std::string kind;
};

// Raised by a driver call when the run is interrupted (SIGINT, SIGTERM).
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

// Set by the conform command's SIGINT/SIGTERM handler; long waits poll it.
std::atomic<bool>& interrupt_flag();

class Driver {
 public:
  virtual ~Driver() = default;
  // Sends `request` (its "id" is set by the driver) and returns the response object with
  // "ok": true. Throws DriverError otherwise, Interrupted when interrupt_flag() is set.
  // `budget` bounds the wait for the response (the request's own timeout_ms plus slack).
  virtual nlohmann::json call(nlohmann::json request, std::chrono::milliseconds budget) = 0;
  // Asks the driver to end and makes sure every process it started is gone.
  virtual void stop() = 0;
  // A cluster work directory whose `pids` file stop() must also clean up.
  virtual void watch_work_dir(const std::string& dir) { (void)dir; }
};

}  // namespace isr::conformance
