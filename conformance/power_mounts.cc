// The isrcheck-powerfs mounts of a cluster (see power_mounts.h).
#include "conformance/power_mounts.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace isr::conformance {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

bool is_mounted(const std::string& dir) {
  std::ifstream m("/proc/mounts");
  std::string line;
  while (std::getline(m, line)) {
    std::istringstream words(line);
    std::string device, point;
    if (words >> device >> point && point == dir) return true;
  }
  return false;
}

// Runs argv to its end; its exit status (-1 when it could not run).
int run(const std::vector<std::string>& argv) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::vector<char*> raw;
    for (const std::string& s : argv) raw.push_back(const_cast<char*>(s.c_str()));
    raw.push_back(nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, 2);
    ::execvp(raw[0], raw.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string powerfs_binary(std::string* why) {
  std::string path;
  if (const char* env = std::getenv("ISRCHECK_POWERFS"); env != nullptr && *env != '\0') {
    path = env;
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) path = (exe.parent_path() / "conformance" / "powerfs" / "isrcheck-powerfs").string();
  }
  if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
    *why = "no isrcheck-powerfs executable at " + (path.empty() ? std::string("?") : path) +
           " (build the target isrcheck-powerfs, or set ISRCHECK_POWERFS)";
    return "";
  }
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    *why = "no usable /dev/fuse for isrcheck-powerfs (FUSE: apt-get install fuse3)";
    return "";
  }
  return path;
}

PowerMounts::~PowerMounts() { unmount_all(); }

bool PowerMounts::has(int node) const {
  for (const Mount& m : mounts_)
    if (m.node == node) return true;
  return false;
}

std::vector<std::pair<int, std::string>> PowerMounts::mountpoints() const {
  std::vector<std::pair<int, std::string>> out;
  for (const Mount& m : mounts_) out.emplace_back(m.node, m.mountpoint);
  return out;
}

void PowerMounts::mount(const std::string& binary, const std::string& root, const std::vector<int>& nodes) {
  for (int node : nodes) {
    const fs::path dir = fs::absolute(fs::path(root) / ("node-" + std::to_string(node)));
    const fs::path disk = dir / "disk", data = dir / "data";
    fs::create_directories(disk);
    fs::create_directories(data);
    const std::string log = (dir / "powerfs.log").string();
    const std::string mountpoint = fs::canonical(data).string();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("node " + std::to_string(node) + ": cannot start isrcheck-powerfs: fork failed");
    if (pid == 0) {
      // Its own process group (a Ctrl-C reaches isrcheck, which unmounts in order after
      // the nodes stopped); SIGTERM when isrcheck dies however it dies (the daemon then
      // unmounts; its auto_unmount covers a SIGKILL of the daemon itself).
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (out >= 0) {
        ::dup2(out, 1);
        ::dup2(out, 2);
      }
      const int in = ::open("/dev/null", O_RDONLY);
      if (in >= 0) ::dup2(in, 0);
      ::close_range(3, ~0U, 0);  // no descriptor of isrcheck's (the driver's pipes) outlives it here
      const std::string disk_s = disk.string();
      const char* argv[] = {binary.c_str(), disk_s.c_str(), mountpoint.c_str(), "-f", nullptr};
      ::execv(binary.c_str(), const_cast<char* const*>(argv));
      ::_exit(127);
    }
    mounts_.push_back({node, mountpoint, pid});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!is_mounted(mountpoint)) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        mounts_.back().pid = -1;
        throw std::runtime_error("node " + std::to_string(node) + ": isrcheck-powerfs exited before mounting " +
                                 mountpoint + " (see " + log + ")");
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("node " + std::to_string(node) + ": isrcheck-powerfs did not mount " + mountpoint +
                                 " within 10 s (see " + log + ")");
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
}

std::string PowerMounts::power(int node) {
  for (const Mount& m : mounts_) {
    if (m.node != node) continue;
    const std::string control = m.mountpoint + "/.powerfs-control";
    std::ifstream before_file(control);
    std::string status((std::istreambuf_iterator<char>(before_file)), std::istreambuf_iterator<char>());
    const int fd = ::open(control.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(control + ": " + std::strerror(errno));
    const ssize_t n = ::write(fd, "power\n", 6);
    const int e = errno;
    ::close(fd);
    if (n != 6) throw std::runtime_error(control + ": the power command failed: " + std::strerror(e));
    // "dirty_files 3\nheld_bytes 8192\npending_entries 0\nfsyncs 41\n..." -> one line (fsyncs:
    // Kafka's, since the mount: evidence that they reach the file system).
    std::string summary;
    std::istringstream lines(status);
    std::string key, value;
    while (lines >> key >> value) {
      if (key == "dirty_files" || key == "held_bytes" || key == "pending_entries" || key == "fsyncs") {
        summary += (summary.empty() ? "" : ", ") + key + " " + value;
      }
    }
    return summary;
  }
  throw std::runtime_error("node " + std::to_string(node) + " has no isrcheck-powerfs mount");
}

void PowerMounts::unmount_all() {
  for (Mount& m : mounts_) {
    if (is_mounted(m.mountpoint) && run({"fusermount3", "-u", m.mountpoint}) != 0) {
      run({"fusermount3", "-u", "-z", m.mountpoint});
    }
    if (m.pid <= 0) continue;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (::waitpid(m.pid, &status, WNOHANG) != m.pid) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(m.pid, SIGKILL);
        ::waitpid(m.pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
    m.pid = -1;
  }
  mounts_.clear();
}

}  // namespace isr::conformance
