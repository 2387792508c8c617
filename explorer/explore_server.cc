// The explorer on a socket (explore_server.h): cpp-httplib's server in a thread of its
// own, translating its requests into explore_site.h's and back.
#include "explorer/explore_server.h"

#include <httplib.h>

#include <chrono>
#include <thread>

namespace isr::explorer {
namespace {

// A trace of the largest configurations is a few MiB; more than this is not a trace.
constexpr std::size_t kMaxUpload = 64u << 20;
// Requests are answered by replaying a short path: two threads keep the machine usable.
constexpr std::size_t kThreads = 2;

Request request_of(const httplib::Request& in) {
  Request out;
  out.method = in.method;
  out.path = in.path;
  for (const auto& [key, value] : in.params) out.params.emplace(key, value);  // the first of repeated keys
  // A multipart form (the page's) sends the file and the text box as parts.
  for (const char* part : {"file", "trace"}) {
    if (!out.trace_text.empty() || !in.has_file(part)) continue;
    out.trace_text = in.get_file_value(part).content;
  }
  if (out.trace_text.empty() && in.has_param("trace")) out.trace_text = in.get_param_value("trace");
  return out;
}

}  // namespace

std::size_t serve(const Site& site, const int port, const std::function<void(int)>& on_listening,
                  const std::atomic<bool>& stop) {
  httplib::Server server;
  std::atomic<std::size_t> served{0};
  server.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  server.set_payload_max_length(kMaxUpload);
  auto answer = [&](const httplib::Request& in, httplib::Response& out) {
    const Response response = handle(site, request_of(in));
    out.status = response.status;
    if (!response.location.empty()) out.set_header("Location", response.location);
    out.set_content(response.body, response.content_type.c_str());
    ++served;
  };
  server.Get(".*", answer);
  server.Post(".*", answer);

  const int bound = port == 0 ? server.bind_to_any_port(kHost) : (server.bind_to_port(kHost, port) ? port : -1);
  if (bound <= 0) {
    throw BindError(std::string(kHost) + ":" + std::to_string(port) + " cannot be bound (in use, or a port below "
                    "1024 without privileges); --port 0 picks a free one");
  }
  std::atomic<bool> ended{false};
  std::thread listener([&] {
    server.listen_after_bind();
    ended.store(true);
  });
  while (!server.is_running() && !ended.load() && !stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (ended.load()) {
    listener.join();
    throw BindError(std::string(kHost) + ":" + std::to_string(bound) + " was bound but does not accept connections");
  }
  if (!stop.load()) on_listening(bound);
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server.stop();
  listener.join();
  return served.load();
}

}  // namespace isr::explorer
