// Fuzz target: what a browser sends `isrcheck explore` (explorer/explore_site.h), for
// every model of the registry. The input's first line is the query of GET /state and
// GET /trace.json (key=value pairs joined by &, taken as they are: the fuzzer writes the
// bytes a percent-decoder would produce), the rest a trace POSTed to /trace. Every input
// must be answered with a page (200, 303, 400 or 404): an exception escaping the routes,
// or any other status, aborts, and libFuzzer keeps the input. The server itself
// (explore_server.cc) only translates requests, so no socket is opened here.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "explorer/explore_session.h"
#include "explorer/explore_site.h"
#include "fuzz/harness.h"
#include "spec/models.h"

namespace {

// One session per model, built once: a model and its session live as long as the process.
const std::vector<const isr::explorer::Explorer*>& explorers() {
  static const std::vector<const isr::explorer::Explorer*> all = [] {
    std::vector<const isr::explorer::Explorer*> list;
    isr::spec::for_each_model([&](const auto& row) {
      static const auto model = row.load(nullptr, {});
      static const isr::explorer::Session session(model, std::string(row.name),
                                                  isr::spec::listing_of(row.name, "actions"));
      list.push_back(&session);
    });
    return list;
  }();
  return all;
}

std::map<std::string, std::string> query(const std::string& line) {
  std::map<std::string, std::string> params;
  std::size_t start = 0;
  while (start <= line.size()) {
    std::size_t end = line.find('&', start);
    if (end == std::string::npos) end = line.size();
    const std::string pair = line.substr(start, end - start);
    const std::size_t eq = pair.find('=');
    if (eq != std::string::npos) params.emplace(pair.substr(0, eq), pair.substr(eq + 1));
    start = end + 1;
  }
  return params;
}

void answer(const isr::explorer::Site& site, const isr::explorer::Request& request, const std::string& what) {
  int status = 0;
  try {
    status = isr::explorer::handle(site, request).status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_explore: %s escaped the routes: %s\n", what.c_str(), e.what());
    std::abort();
  }
  if (status != 200 && status != 303 && status != 400 && status != 404) {
    std::fprintf(stderr, "fuzz_explore: %s answered %d\n", what.c_str(), status);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string line = input.substr(0, newline);
  const std::string trace = newline == std::string::npos ? std::string() : input.substr(newline + 1);
  for (const isr::explorer::Explorer* explorer : explorers()) {
    const isr::explorer::Site site{*explorer, {}, {}};
    answer(site, {"GET", "/state", query(line), {}}, "GET /state?" + line);
    answer(site, {"GET", "/trace.json", query(line), {}}, "GET /trace.json?" + line);
    if (!trace.empty()) answer(site, {"POST", "/trace", {}, trace}, "POST /trace");
  }
  return 0;
}
