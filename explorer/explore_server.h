// The explorer's HTTP server: the routes of explore_site.h on 127.0.0.1 only, served by
// cpp-httplib (Debian's libcpp-httplib-dev: a maintained, widely packaged C++ HTTP
// library; the only file that includes it is explore_server.cc).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "explorer/explore_site.h"

namespace isr::explorer {

inline constexpr const char* kHost = "127.0.0.1";

// The port cannot be bound (in use, or privileged).
struct BindError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Serves `site` on 127.0.0.1:`port` (0: a free port the system picks), calls
// `on_listening(port)` once it accepts connections, and serves until `stop` becomes true
// (polled every 50 ms: a signal handler sets it). Returns the number of requests served.
std::size_t serve(const Site& site, int port, const std::function<void(int)>& on_listening,
                  const std::atomic<bool>& stop);

}  // namespace isr::explorer
