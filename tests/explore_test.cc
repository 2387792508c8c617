// `isrcheck explore` without a socket (explorer/): positions in URLs, replaying a path
// against each model of the registry, the pages and routes (a bad path is a 400 page,
// a trace loads as a path), the renderer's HTML step, the Kafka meaning of every action
// kind, and the command's flags, exit codes and stop on SIGINT/SIGTERM. The browser
// test (tests/browser/explore.sh, label browser) drives the real server in Chromium.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "counterexamples/render/render.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_reader.h"
#include "explorer/explore_page.h"
#include "explorer/explore_path.h"
#include "explorer/explore_session.h"
#include "explorer/explore_site.h"
#include "spec/models.h"
#include "tests/trace_test_support.h"

namespace {

using isr::explorer::PathError;
using isr::explorer::Position;
using isr::explorer::Request;
using isr::explorer::Response;
using isr::explorer::Session;
using isr::explorer::Site;
using nlohmann::json;

// The query parameters of a link the pages hold, decoded as the server's library does.
std::map<std::string, std::string> query_of(const std::string& url) {
  std::map<std::string, std::string> params;
  const std::size_t q = url.find('?');
  if (q == std::string::npos) return params;
  auto decode = [](const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%' && i + 2 < text.size()) {
        out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += text[i] == '+' ? ' ' : text[i];
      }
    }
    return out;
  };
  std::size_t start = q + 1;
  while (start <= url.size()) {
    std::size_t end = url.find('&', start);
    if (end == std::string::npos) end = url.size();
    const std::string pair = url.substr(start, end - start);
    const std::size_t eq = pair.find('=');
    if (eq != std::string::npos) params[decode(pair.substr(0, eq))] = decode(pair.substr(eq + 1));
    start = end + 1;
  }
  return params;
}

Response get(const Site& site, const std::string& url) {
  Request request{"GET", url.substr(0, url.find('?')), query_of(url), {}};
  return isr::explorer::handle(site, request);
}

isr::spec::PartitionModel partition(const std::vector<std::string>& overrides = {}) {
  return isr::spec::PartitionModel(isr::spec::load_config(nullptr, overrides));
}

std::vector<isr::spec::NameRow> meanings(const std::string& model) { return isr::spec::listing_of(model, "actions"); }

// --- positions in URLs ----------------------------------------------------------------

TEST(ExplorePath, SplitsAndJoinsSteps) {
  EXPECT_TRUE(isr::explorer::split_path("").empty());
  EXPECT_EQ(isr::explorer::split_path("3.0.5"), (std::vector<std::string>{"3", "0", "5"}));
  EXPECT_EQ(isr::explorer::split_path("Crash(node=2, kill).0"), (std::vector<std::string>{"Crash(node=2, kill)", "0"}));
  EXPECT_EQ(isr::explorer::join_path({"a", "1"}), "a.1");
  for (const char* bad : {"3..5", ".3", "3."}) {
    try {
      isr::explorer::split_path(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const PathError& e) {
      EXPECT_EQ(e.field, "path") << bad;
      EXPECT_NE(e.message.find("is empty"), std::string::npos) << e.message;
    }
  }
}

TEST(ExplorePath, ParsesPositionsAndRefusesBadParametersNamingThem) {
  Position p = isr::explorer::parse_position({{"path", "3.0.5"}});
  EXPECT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(p.at, 3u);  // the end by default
  EXPECT_EQ(p.initial, 0);
  p = isr::explorer::parse_position({{"path", "3.0.5"}, {"at", "1"}, {"init", "2"}});
  EXPECT_EQ(p.at, 1u);
  EXPECT_EQ(p.initial, 2);
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> bad = {
      {{{"path", "3.0"}, {"at", "3"}}, "at"},  {{{"path", "3.0"}, {"at", "-1"}}, "at"},
      {{{"path", "3.0"}, {"at", "1x"}}, "at"}, {{{"path", "3"}, {"init", "x"}}, "init"},
      {{{"path", "3"}, {"init", ""}}, "init"}};
  for (const auto& [params, field] : bad) {
    try {
      isr::explorer::parse_position(params);
      ADD_FAILURE() << field << " accepted";
    } catch (const PathError& e) {
      EXPECT_EQ(e.field, field);
    }
  }
}

TEST(ExplorePath, UrlsRoundTrip) {
  EXPECT_EQ(isr::explorer::url_encode("Crash(node=2, kill)"), "Crash(node%3D2%2C%20kill)");
  const Position p{1, {"Crash(node=2, kill)", "0", "Fetch(follower=1, leader=0)"}, 2};
  const std::string url = isr::explorer::position_url(p);
  EXPECT_EQ(url.rfind("/state?path=", 0), 0u) << url;
  EXPECT_EQ(isr::explorer::parse_position(query_of(url)), p) << url;
  // Defaults are left out, so that a plain path is a plain URL.
  EXPECT_EQ(isr::explorer::position_url(Position{0, {"0"}, 1}), "/state?path=0");
}

TEST(ExplorePath, NamesStepsByNameUnlessTheNameCannotServe) {
  EXPECT_EQ(isr::explorer::step_for("Crash(node=2, kill)", 4, true), "Crash(node=2, kill)");
  EXPECT_EQ(isr::explorer::step_for("Crash(node=2, kill)", 4, false), "4");  // shared by two actions
  EXPECT_EQ(isr::explorer::step_for("Odd.Name", 4, true), "4");              // holds the separator
  EXPECT_EQ(isr::explorer::step_for("17", 4, true), "4");                    // reads as an index
}

// --- replaying paths ------------------------------------------------------------------

TEST(ExploreSession, ANameAndAnIndexReachTheSameState) {
  const auto model = partition();
  const Session session(model, "partition", meanings("partition"));
  const auto start = session.view(Position{});
  ASSERT_FALSE(start.actions.empty());
  const auto by_index = session.view(Position{0, {"1"}, 1});
  const auto by_name = session.view(Position{0, {start.actions[1].name}, 1});
  EXPECT_EQ(by_index.state_html, by_name.state_html);
  EXPECT_NE(by_index.state_html, start.state_html);
  EXPECT_EQ(by_name.step_names, (std::vector<std::string>{start.actions[1].name}));
}

TEST(ExploreSession, FollowingLinksGivesUrlsThatReopenTheSameState) {
  const auto model = partition();
  const Session session(model, "partition", meanings("partition"));
  auto view = session.view(Position{});
  for (int step = 0; step < 4; ++step) {
    ASSERT_FALSE(view.actions.empty());
    const auto& action = view.actions[view.actions.size() / 2];
    EXPECT_FALSE(action.meaning.empty()) << action.kind << " has no Kafka meaning";
    const Position next = isr::explorer::parse_position(query_of(action.url));
    EXPECT_EQ(next.at, static_cast<std::size_t>(step + 1));
    const auto reopened = session.view(next);
    EXPECT_EQ(reopened.step_names.back(), action.name);
    EXPECT_EQ(session.view(isr::explorer::parse_position(query_of(isr::explorer::position_url(next)))).state_html,
              reopened.state_html);
    view = reopened;
  }
  // Back keeps the steps ahead: the same path at one step fewer.
  Position back = view.position;
  back.at -= 1;
  const auto earlier = session.view(back);
  EXPECT_EQ(earlier.step_names, view.step_names);
  EXPECT_EQ(earlier.position.steps, view.position.steps);
}

TEST(ExploreSession, APathThatDoesNotReplaySaysWhichStepAndWhatIsEnabled) {
  const auto model = partition();
  const Session session(model, "partition", meanings("partition"));
  const std::string first = session.view(Position{}).actions[0].name;
  auto expect_error = [&](const Position& p, const std::string& field, const std::string& words) {
    try {
      session.view(p);
      ADD_FAILURE() << "accepted";
    } catch (const PathError& e) {
      EXPECT_EQ(e.field, field);
      EXPECT_NE(e.message.find(words), std::string::npos) << e.message;
    }
  };
  expect_error(Position{0, {first, "NoSuchAction(node=1)"}, 2}, "path", "step 2 (\"NoSuchAction(node=1)\") is not enabled");
  expect_error(Position{0, {"NoSuchAction(node=1)"}, 1}, "path", first);  // the enabled actions are listed
  expect_error(Position{0, {"999"}, 1}, "path", "enabled actions here, indexed from 0");
  expect_error(Position{0, {"99999999999999999999"}, 1}, "path", "indexed from 0");
  expect_error(Position{5, {}, 0}, "init", "1 initial state");
  expect_error(Position{0, {"0"}, 2}, "at", "0 to 1");
  // Steps ahead are replayed too: a broken forward step is an error, not a dead link.
  expect_error(Position{0, {"0", "NoSuchAction(node=1)"}, 0}, "path", "step 2");
}

TEST(ExploreSession, PropertiesAreEvaluatedInTheCurrentState) {
  const auto model = partition({"acks=1", "faults.max_lossy_crashes=0"});
  const Session session(model, "partition", meanings("partition"));
  const auto start = session.view(Position{});
  ASSERT_EQ(start.properties.size(), model.properties().size());
  for (const auto& p : start.properties) EXPECT_TRUE(p.holds) << p.name;
}

// A counterexample `check` wrote loads as a path that ends in its violation.
TEST(ExploreSession, ACounterexampleLoadsAsAPathEndingInItsViolation) {
  const std::string file = isr::trace_test::temp_path(".json");
  const auto run = isr::trace_test::run_isrcheck("check --set acks=1 --quiet --trace-out '" + file + "'");
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const json trace = json::parse(isr::trace_test::slurp(file));
  std::remove(file.c_str());
  const auto model = partition({"acks=1"});
  const Session session(model, "partition", meanings("partition"));
  Position p = session.position_of_trace(trace);
  EXPECT_EQ(p.at, 0u);
  ASSERT_EQ(p.steps.size() + 1, trace["steps"].size());
  p.at = p.steps.size();
  const auto end = session.view(p);
  const auto violated = std::find_if(end.properties.begin(), end.properties.end(),
                                     [&](const auto& v) { return v.name == trace["property"]; });
  ASSERT_NE(violated, end.properties.end());
  EXPECT_FALSE(violated->holds);
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    EXPECT_EQ(end.step_names[i], isr::counterexamples::step_action_name(trace["steps"][i + 1]));
  }

  // Another configuration, another model, a step that is not enabled: refused, naming the field.
  const auto other = partition();
  const Session default_session(other, "partition", meanings("partition"));
  // The field at fault, or a field inside it (a stricter trace reader may name the kind).
  auto refused = [&](const Session<isr::spec::PartitionModel>& s, const json& t, const std::string& field) {
    try {
      s.position_of_trace(t);
      ADD_FAILURE() << field << " accepted";
    } catch (const PathError& e) {
      EXPECT_EQ(e.field.rfind(field, 0), 0u) << e.what();
    }
  };
  refused(default_session, trace, "config");
  json relabelled = trace;
  relabelled["model"] = "kraft";
  refused(session, relabelled, "model");
  json broken = trace;
  broken["steps"][1]["action"]["kind"] = "NoSuchKind";
  refused(session, broken, "steps[1].action");
  json moved = trace;
  moved["steps"][1]["state"]["nodes"][0]["broker_epoch"] = 77;
  refused(session, moved, "steps[1].state");
  json malformed = trace;
  malformed.erase("steps");
  refused(session, malformed, "steps");
}

// The explorer's path is a trace like any other: replay accepts it step by step.
TEST(ExploreSession, ThePathSoFarIsAValidTrace) {
  const auto model = partition();
  const Session session(model, "partition", meanings("partition"));
  const Position p{0, {"0", "1", "0"}, 3};
  const json trace = session.trace_of(session.walk(p), 3);
  EXPECT_NO_THROW(isr::counterexamples::check_trace(trace));
  EXPECT_TRUE(isr::counterexamples::replay_trace(model, trace, isr::counterexamples::ReplayEnd::StepsOnly).reproduced);
  EXPECT_EQ(session.position_of_trace(trace).steps.size(), 3u);
}

// Every model of the registry is explored through the generic interface, and every
// action kind it has is explained in Kafka's terms.
TEST(ExploreSession, EveryModelIsExploredWithAMeaningForEveryActionKind) {
  int models = 0;
  isr::spec::for_each_model([&](const auto& row) {
    ++models;
    const auto model = row.load(nullptr, {});
    const std::string name(row.name);
    const auto rows = meanings(name);
    std::set<std::string> explained;
    for (const auto& r : rows) {
      EXPECT_FALSE(r.description.empty()) << name << " " << r.name;
      explained.insert(std::string(r.name));
    }
    for (const auto kind : model.action_kinds()) {
      EXPECT_TRUE(explained.count(std::string(kind))) << name << ": action kind " << kind << " has no meaning";
    }
    const Session session(model, name, rows);
    auto view = session.view(Position{});
    EXPECT_NE(view.state_html.find("<h3>Step 0: Init</h3>"), std::string::npos) << name;
    for (int step = 0; step < 3 && !view.actions.empty(); ++step) {
      for (const auto& action : view.actions) EXPECT_FALSE(action.meaning.empty()) << name << " " << action.name;
      view = session.view(isr::explorer::parse_position(query_of(view.actions.back().url)));
    }
    EXPECT_EQ(view.position.at, 3u) << name;
    EXPECT_EQ(view.properties.size(), model.properties().size()) << name;
  });
  EXPECT_EQ(models, static_cast<int>(isr::spec::kModelCount));
}

// --- the routes -----------------------------------------------------------------------

TEST(ExploreSite, RoutesAnswerAsTheBrowserNeeds) {
  const auto model = partition();
  const Session session(model, "partition", meanings("partition"));
  const Site site{session, Position{}, "/* mermaid */"};
  Response r = get(site, "/");
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.location, "/state?path=");
  r = get(site, "/state?path=");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("class=\"action\""), std::string::npos);
  EXPECT_NE(r.body.find("id=\"properties\""), std::string::npos);
  EXPECT_NE(r.body.find("<pre class=\"mermaid\">"), std::string::npos);
  EXPECT_NE(r.body.find("<script src=\"/mermaid.js\">"), std::string::npos);
  // Nothing from the network.
  EXPECT_EQ(r.body.find("http://"), std::string::npos);
  EXPECT_EQ(r.body.find("https://"), std::string::npos);
  EXPECT_EQ(r.body.find("src=\"//"), std::string::npos);

  r = get(site, "/state?path=NoSuchAction(node%3D1)");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("is not enabled here"), std::string::npos);
  EXPECT_NE(r.body.find("NoSuchAction(node=1)"), std::string::npos);
  EXPECT_EQ(get(site, "/state?path=0&at=9").status, 400);
  EXPECT_EQ(get(site, "/nothing-here").status, 404);
  r = get(site, "/mermaid.js");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "/* mermaid */");
  const Site bare{session, Position{}, ""};
  EXPECT_EQ(get(bare, "/mermaid.js").status, 404);
  EXPECT_EQ(get(site, "/trace").status, 200);

  // Loading a trace: the explorer's own path, pasted, leads to its first step.
  const json trace = session.trace_of(session.walk(Position{0, {"0", "0"}, 2}), 2);
  r = isr::explorer::handle(site, Request{"POST", "/trace", {}, trace.dump()});
  EXPECT_EQ(r.status, 303);
  const Position loaded = isr::explorer::parse_position(query_of(r.location));
  EXPECT_EQ(loaded.at, 0u);
  EXPECT_EQ(loaded.steps.size(), 2u);
  EXPECT_EQ(isr::explorer::handle(site, Request{"POST", "/trace", {}, "  "}).status, 400);
  r = isr::explorer::handle(site, Request{"POST", "/trace", {}, "{not json"});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("not JSON"), std::string::npos);
  EXPECT_EQ(isr::explorer::handle(site, Request{"DELETE", "/state", {}, ""}).status, 405);

  // The path as a trace file: valid, rendered like any trace, and loaded back as the same path.
  r = get(site, "/trace.json?path=0.1&at=1");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  const json downloaded = json::parse(r.body);
  EXPECT_NO_THROW(isr::counterexamples::check_trace(downloaded));
  EXPECT_EQ(downloaded["steps"].size(), 2u);  // up to `at`
  EXPECT_NE(isr::counterexamples::render_text(downloaded).find("Step 1: "), std::string::npos);
  EXPECT_EQ(session.position_of_trace(downloaded).steps.size(), 1u);
  EXPECT_EQ(get(site, "/trace.json?path=NoSuchAction").status, 400);
  EXPECT_NE(get(site, "/state?path=0.1&at=1").body.find("href=\"/trace.json?path=0.1&amp;at=1\""), std::string::npos);

  // A --trace start: / leads to the trace's first step.
  const Site traced{session, loaded, ""};
  EXPECT_EQ(get(traced, "/").location, isr::explorer::position_url(loaded));
}

TEST(ExplorePage, TextFromTheModelOrTheUserIsEscaped) {
  const std::string page = isr::explorer::error_page(400, "path", "step 1 (\"<script>alert(1)</script>\")");
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

// --- the renderer's HTML step ----------------------------------------------------------

TEST(RenderStepHtml, MarksWhatChangedSinceThePreviousStep) {
  const auto model = partition();
  const Session session(model, "partition", meanings("partition"));
  const json trace = session.trace_of(session.walk(Position{0, {"0", "1"}, 2}), 2);
  const std::string initial = isr::counterexamples::render_step_html(trace, 0);
  const std::string fetched = isr::counterexamples::render_step_html(trace, 2);
  EXPECT_EQ(initial.find("<mark>"), std::string::npos);
  EXPECT_NE(fetched.find("<td class=\"changed\"><mark>"), std::string::npos) << fetched;
  EXPECT_NE(fetched.find("<b>changed:</b>"), std::string::npos);
  // The same columns as the text rendering prints.
  const std::string text = isr::counterexamples::render_text(trace, 0);
  for (const char* column : {"view leader", "HW ckpt", "in flight"}) {
    EXPECT_NE(text.find(column), std::string::npos);
    EXPECT_NE(fetched.find(std::string("<th>") + column + "</th>"), std::string::npos) << column;
  }
  EXPECT_EQ(isr::counterexamples::render_mermaid(trace, false).find("VIOLATED"), std::string::npos);
  EXPECT_NE(isr::counterexamples::render_mermaid(trace, true).find("VIOLATED"), std::string::npos);
}

// --- the command ------------------------------------------------------------------------

TEST(ExploreCommand, BadInputExitsTwoNamingTheField) {
  using isr::trace_test::run_isrcheck;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"explore --port 70000", "--port"},
      {"explore --port x", "--port"},
      {"explore --set acks=7", "acks"},
      {"explore --model nosuch", "--model"},
      {"explore --trace /nonexistent/t.json", "--trace"},
      {"explore --mermaid-js /nonexistent/m.js --port 0", "--mermaid-js"},
  };
  for (const auto& [args, field] : cases) {
    const auto run = run_isrcheck(args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find(field), std::string::npos) << args << "\n" << run.err;
  }
  const std::string bad = isr::trace_test::write_temp("{\"format\": \"isrcheck-trace\"}");
  const auto run = run_isrcheck("explore --trace '" + bad + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--trace"), std::string::npos) << run.err;
  std::remove(bad.c_str());
}

TEST(ExploreCommand, ListActionsPrintsEveryKindWithItsKafkaMeaning) {
  const auto run = isr::trace_test::run_isrcheck("list actions --model kraft");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("KafkaRaftClient.handleVoteRequest"), std::string::npos) << run.out;
  const auto cluster = isr::trace_test::run_isrcheck("list actions --model cluster");
  EXPECT_NE(cluster.out.find("KraftVote"), std::string::npos);
  EXPECT_EQ(cluster.out.find("ControllerFailover"), std::string::npos);  // the quorum elects the controller there
}

// --port 0 prints the URL; SIGINT and SIGTERM stop the server cleanly with exit 0.
class ExploreSignal : public ::testing::TestWithParam<int> {};

TEST_P(ExploreSignal, StopsCleanlyAndSaysSo) {
  const std::string out_path = isr::trace_test::temp_path(".out");
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    execl(ISRCHECK_BINARY, ISRCHECK_BINARY, "explore", "--port", "0", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  std::string text;
  for (int i = 0; i < 600 && text.find("http://127.0.0.1:") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    text = isr::trace_test::slurp(out_path);
  }
  EXPECT_NE(text.find("http://127.0.0.1:"), std::string::npos) << text;
  kill(pid, GetParam());
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 400 && !exited; ++i) {
    exited = waitpid(pid, &status, WNOHANG) == pid;
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  ASSERT_TRUE(exited) << "explore did not stop within 20 s";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(isr::trace_test::slurp(out_path).find("stopped after"), std::string::npos);
  std::remove(out_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, ExploreSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

}  // namespace
