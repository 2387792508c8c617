// One file's page cache (see file_overlay.h).
#include "conformance/powerfs/file_overlay.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace isr::powerfs {

FileOverlay::FileOverlay(int fd, uint64_t durable_size)
    : fd_(fd), durable_size_(durable_size), floor_(durable_size), size_(durable_size) {}

FileOverlay::~FileOverlay() { ::close(fd_); }

bool FileOverlay::dirty() const {
  return !pages_.empty() || size_ != durable_size_ || floor_ != durable_size_ || last_truncate_.has_value();
}

int FileOverlay::read_durable(char* out, size_t len, uint64_t off) const {
  std::memset(out, 0, len);
  if (off >= floor_) return 0;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(len, floor_ - off));
  size_t got = 0;
  while (got < want) {
    const ssize_t r = ::pread(fd_, out + got, want - got, static_cast<off_t>(off + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) break;  // shorter than recorded: the rest reads as zeros
    got += static_cast<size_t>(r);
  }
  return 0;
}

ssize_t FileOverlay::read(char* out, size_t len, uint64_t off) const {
  if (off >= size_) return 0;
  len = static_cast<size_t>(std::min<uint64_t>(len, size_ - off));
  size_t done = 0;
  while (done < len) {
    const uint64_t pos = off + done;
    const uint64_t index = pos / kPage;
    const size_t in_page = static_cast<size_t>(pos % kPage);
    auto it = pages_.lower_bound(index);
    if (it != pages_.end() && it->first == index) {
      const size_t n = std::min(kPage - in_page, len - done);
      std::memcpy(out + done, it->second.data() + in_page, n);
      done += n;
      continue;
    }
    // A run of pages not held: one read from the backing file up to the next held page.
    uint64_t run_end = off + len;
    if (it != pages_.end()) run_end = std::min(run_end, it->first * kPage);
    const size_t n = static_cast<size_t>(run_end - pos);
    if (const int r = read_durable(out + done, n, pos); r < 0) return r;
    done += n;
  }
  return static_cast<ssize_t>(len);
}

FileOverlay::Page* FileOverlay::page_for_write(uint64_t index, int* err) {
  auto it = pages_.find(index);
  if (it != pages_.end()) return &it->second;
  Page p;
  // floor_ <= size_, so nothing past the application's size comes from the backing file.
  if (const int r = read_durable(p.data(), kPage, index * kPage); r < 0) {
    *err = r;
    return nullptr;
  }
  return &pages_.emplace(index, p).first->second;
}

ssize_t FileOverlay::write(const char* in, size_t len, uint64_t off) {
  size_t done = 0;
  while (done < len) {
    const uint64_t pos = off + done;
    const size_t in_page = static_cast<size_t>(pos % kPage);
    const size_t n = std::min(kPage - in_page, len - done);
    int err = 0;
    Page* p = page_for_write(pos / kPage, &err);
    if (p == nullptr) return done > 0 ? static_cast<ssize_t>(done) : err;
    std::memcpy(p->data() + in_page, in + done, n);
    done += n;
    size_ = std::max<uint64_t>(size_, pos + n);
  }
  return static_cast<ssize_t>(len);
}

int FileOverlay::truncate(uint64_t size) {
  if (size < size_) {
    // Pages wholly past the new end go; the page holding it keeps only its head. Backing
    // bytes past it are hidden by floor_ (a later extension reads zeros there).
    const uint64_t first_gone = (size + kPage - 1) / kPage;
    pages_.erase(pages_.lower_bound(first_gone), pages_.end());
    if (size % kPage != 0) {
      auto it = pages_.find(size / kPage);
      if (it != pages_.end()) {
        const size_t keep = static_cast<size_t>(size % kPage);
        std::memset(it->second.data() + keep, 0, kPage - keep);
      }
    }
    floor_ = std::min(floor_, size);
  }
  size_ = size;
  last_truncate_ = size;
  return 0;
}

int FileOverlay::resize_backing(uint64_t to) {
  // Cut at floor_ first: the backing bytes between floor_ and `to` were truncated away
  // by the application and must read back as zeros.
  if (floor_ < durable_size_ && ::ftruncate(fd_, static_cast<off_t>(floor_)) != 0) return -errno;
  if (to != floor_ || floor_ < durable_size_) {
    if (::ftruncate(fd_, static_cast<off_t>(to)) != 0) return -errno;
  }
  return 0;
}

int FileOverlay::sync(bool datasync) {
  if (dirty()) {
    if (const int r = resize_backing(size_); r < 0) return r;
    for (const auto& [index, page] : pages_) {
      const uint64_t start = index * kPage;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kPage, size_ - start));
      size_t put = 0;
      while (put < n) {
        const ssize_t w = ::pwrite(fd_, page.data() + put, n - put, static_cast<off_t>(start + put));
        if (w < 0) {
          if (errno == EINTR) continue;
          return -errno;
        }
        put += static_cast<size_t>(w);
      }
    }
  }
  if ((datasync ? ::fdatasync(fd_) : ::fsync(fd_)) != 0) return -errno;
  pages_.clear();
  durable_size_ = floor_ = size_;
  last_truncate_.reset();
  return 0;
}

int FileOverlay::commit_truncate() {
  if (!last_truncate_) return 0;
  const uint64_t to = *last_truncate_;
  if (const int r = resize_backing(to); r < 0) return r;
  if (::fsync(fd_) != 0) return -errno;
  // The backing file is now the durable view up to `to` (zeros past the old floor_);
  // the pages written since stay held.
  durable_size_ = floor_ = to;
  last_truncate_.reset();
  return 0;
}

}  // namespace isr::powerfs
