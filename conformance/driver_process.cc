// Spawning and talking to the driver JVM (see driver_process.h).
#include "conformance/driver_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace isr::conformance {

namespace {

std::atomic<bool> g_interrupt{false};

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Writes all of `text`, bounded by `deadline` (the pipe may be full if the driver hangs).
bool write_all(int fd, const std::string& text, Clock::time_point deadline) {
  size_t done = 0;
  while (done < text.size()) {
    pollfd p{fd, POLLOUT, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    if (::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100))) < 0 && errno != EINTR) return false;
    if (!(p.revents & POLLOUT)) {
      if (p.revents & (POLLERR | POLLHUP)) return false;
      continue;
    }
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string cmdline_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text)
    if (c == '\0') c = ' ';
  return text;
}

// Reaps `pid` if it has exited; true when it is gone.
bool reap(pid_t pid) {
  int status = 0;
  const pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

}  // namespace

std::atomic<bool>& interrupt_flag() { return g_interrupt; }

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  // The state is the field after the parenthesised command name.
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  return line[close + 2] != 'Z' && line[close + 2] != 'X';
}

std::vector<pid_t> kill_listed_pids(const std::string& pids_file, const std::string& marker, pid_t also) {
  std::vector<pid_t> killed;
  std::ifstream in(pids_file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    long pid = 0;
    if (!(fields >> pid) || pid <= 1) continue;
    const pid_t p = static_cast<pid_t>(pid);
    if (!process_alive(p)) continue;
    // A PID may have been reused by an unrelated process since: only kill what is ours.
    if (p != also && (marker.empty() || cmdline_of(p).find(marker) == std::string::npos)) continue;
    if (::kill(p, SIGKILL) == 0) killed.push_back(p);
  }
  return killed;
}

DriverProcess::DriverProcess(const std::vector<std::string>& argv, const std::string& stderr_file,
                             std::chrono::milliseconds ready_budget) {
  if (argv.empty()) throw DriverError("internal", "no driver command");
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw DriverError("internal", std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw DriverError("internal", std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The child: its own process group, pipes on stdin/stdout, stderr to the log file.
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (err >= 0) ::dup2(err, 2);
    // Default dispositions: the parent's handlers and ignores must not leak into the JVM.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  ::setpgid(pid, pid);  // also here: no race with the first kill of the group
  pid_ = pid;
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  to_driver_ = in_pipe[1];
  from_driver_ = out_pipe[0];
  ::signal(SIGPIPE, SIG_IGN);  // a dead driver is an error from write(), not a signal
  try {
    const std::string line = read_line(Clock::now() + ready_budget);
    const nlohmann::json ready = nlohmann::json::parse(line);
    if (ready.value("ready", false) != true) throw DriverError("internal", "driver's first line is not ready: " + line);
  } catch (const nlohmann::json::exception& e) {
    stop();
    throw DriverError("internal", std::string("driver's first line is not JSON: ") + e.what());
  } catch (...) {
    stop();
    throw;
  }
}

DriverProcess::~DriverProcess() { stop(); }

std::string DriverProcess::read_line(Clock::time_point deadline) {
  for (;;) {
    const size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (line.empty()) continue;
      return line;
    }
    if (g_interrupt.load()) throw Interrupted();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) throw DriverError("no-response", "the driver did not answer in time");
    pollfd p{from_driver_, POLLIN, 0};
    // Short slices so that an interrupt is seen within 100 ms.
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (r < 0 && errno != EINTR) throw DriverError("internal", std::string("poll: ") + std::strerror(errno));
    if (r <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(from_driver_, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw DriverError("internal", std::string("read: ") + std::strerror(errno));
    }
    if (n == 0) throw DriverError("internal", "the driver exited (end of its output)");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

nlohmann::json DriverProcess::call(nlohmann::json request, std::chrono::milliseconds budget) {
  if (pid_ <= 0) throw DriverError("internal", "the driver is not running");
  const long id = next_id_++;
  request["id"] = id;
  const auto deadline = Clock::now() + budget;
  if (!write_all(to_driver_, request.dump() + "\n", deadline)) {
    throw DriverError("internal", "cannot write to the driver (it exited?)");
  }
  for (;;) {
    std::string line;
    try {
      line = read_line(deadline);
    } catch (const DriverError& e) {
      if (e.kind == "no-response") {
        // A late answer would be taken for the next request's: end the driver.
        const std::string op = request.value("op", "?");
        stop();
        throw DriverError("no-response", "no answer to " + op + " within " + std::to_string(budget.count()) + " ms");
      }
      throw;
    }
    nlohmann::json response;
    try {
      response = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      continue;  // not a protocol line (stdout noise): the protocol puts responses only there
    }
    if (!response.is_object() || response.value("id", -1L) != id) continue;
    if (response.value("ok", false) != true) {
      throw DriverError(response.value("kind", "internal"), response.value("error", response.dump()));
    }
    return response;
  }
}

void DriverProcess::kill_everything() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
  for (const std::string& dir : work_dirs_) kill_listed_pids(dir + "/pids", dir, pid_);
}

void DriverProcess::stop() {
  if (pid_ <= 0) return;
  // 1. Ask: shutdown stops every node (bounded on the driver's side), then the driver exits.
  if (to_driver_ >= 0) {
    const auto deadline = Clock::now() + std::chrono::seconds(15);
    const bool interrupted = g_interrupt.exchange(false);  // let the shutdown exchange run
    if (write_all(to_driver_, nlohmann::json({{"id", next_id_++}, {"op", "shutdown"}}).dump() + "\n", deadline)) {
      close_fd(to_driver_);  // EOF: the driver's other way to shut down
      while (Clock::now() < deadline && !reap(pid_)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (interrupted) g_interrupt.store(true);
  }
  // 2. Make sure: the process group and every PID the driver recorded.
  kill_everything();
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline && !reap(pid_)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill_everything();  // nodes started while we waited
  close_fd(to_driver_);
  close_fd(from_driver_);
  pid_ = -1;
}

}  // namespace isr::conformance
