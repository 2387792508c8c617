// A scratch file for the parts of a search that are moved out of memory (check --spill,
// BfsOptions::spill_dir): the visited set's sorted runs and the frontier's chunks.
//
// The file is unlinked as soon as it is created, so nothing outlives the process, even
// one killed by a signal; the descriptor keeps it alive. Reads are pread (thread-safe:
// workers read while nobody writes), writes happen only on the coordinating thread.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace isr::checker {

class SpillFile {
 public:
  SpillFile() = default;
  // Creates (and unlinks) a new file in `dir`; `what` names it in error messages.
  SpillFile(const std::string& dir, const char* what) {
    static std::atomic<uint64_t> serial{0};
    std::string path = dir + "/isrcheck-" + what + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(serial.fetch_add(1)) + ".spill";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd_ < 0) fail("cannot create a spill file in " + dir);
    ::unlink(path.c_str());
  }
  ~SpillFile() { close(); }
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  SpillFile(SpillFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)), size_(std::exchange(o.size_, 0)) {}
  SpillFile& operator=(SpillFile&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = std::exchange(o.fd_, -1);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }

  bool is_open() const { return fd_ >= 0; }
  uint64_t size() const { return size_; }

  // Appends n bytes; returns the offset they start at.
  uint64_t append(const void* data, size_t n) {
    const uint64_t at = size_;
    write_at(at, data, n);
    size_ += n;
    return at;
  }

  void read(uint64_t offset, void* out, size_t n) const {
    auto* p = static_cast<char*>(out);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) fail("cannot read a spill file");
      p += got;
      n -= static_cast<size_t>(got);
      offset += static_cast<uint64_t>(got);
    }
  }

  // Forgets the contents (the space goes back to the file system).
  void clear() {
    if (fd_ >= 0 && size_ > 0 && ::ftruncate(fd_, 0) != 0) fail("cannot truncate a spill file");
    size_ = 0;
  }

 private:
  void write_at(uint64_t offset, const void* data, size_t n) {
    const auto* p = static_cast<const char*>(data);
    while (n > 0) {
      const ssize_t put = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) fail("cannot write a spill file (disk full?)");
      p += put;
      n -= static_cast<size_t>(put);
      offset += static_cast<uint64_t>(put);
    }
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  [[noreturn]] static void fail(const std::string& what) {
    throw std::runtime_error("--spill: " + what + ": " + std::strerror(errno));
  }

  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace isr::checker
