// One file's page cache in isrcheck-powerfs: what was written, truncated or extended
// since the file's last fsync, held in memory apart from the backing file. The backing
// file always holds exactly the durable content (what a power loss leaves), so a power
// loss is "drop the overlay"; an fsync writes the overlay to the backing file and
// fsyncs it there, at the moment the application asked (README.md, "Model").
//
// State: `size_` is the size the application sees; `floor_` the lowest size the file
// had since it was last durable (backing bytes at or above it were truncated away and
// read as zeros); `pages_` the 4 KiB pages written since. A byte reads from its page if
// it has one, else from the backing file below `floor_`, else as zero.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace isr::powerfs {

class FileOverlay {
 public:
  static constexpr size_t kPage = 4096;

  // `fd`: the backing file, open read-write, owned (closed by the destructor);
  // `durable_size`: its size now.
  FileOverlay(int fd, uint64_t durable_size);
  ~FileOverlay();
  FileOverlay(const FileOverlay&) = delete;
  FileOverlay& operator=(const FileOverlay&) = delete;

  uint64_t size() const { return size_; }
  // Whether anything differs from the backing file (a sync or a power loss would change it).
  bool dirty() const;
  // Bytes held in pages (the unsynced data), for the status report.
  uint64_t held_bytes() const { return pages_.size() * kPage; }

  // As pread / pwrite / ftruncate, on the application's view; return bytes or -errno.
  ssize_t read(char* out, size_t len, uint64_t off) const;
  ssize_t write(const char* in, size_t len, uint64_t off);
  int truncate(uint64_t size);

  // fsync / fdatasync: the backing file gets the application's view (size, then pages)
  // and is fsynced (fdatasync with `datasync`); afterwards nothing is held. 0 or -errno.
  int sync(bool datasync);
  // A journal commit (ext4's jbd2, README.md): a truncate's new size is metadata and
  // becomes durable with the commit; written data stays held. 0 or -errno.
  int commit_truncate();

 private:
  using Page = std::array<char, kPage>;
  // The durable bytes [off, off + len): from the backing file below floor_, zeros above.
  int read_durable(char* out, size_t len, uint64_t off) const;
  // The page `index`, materialised from the durable content when not held; nullptr on error.
  Page* page_for_write(uint64_t index, int* err);
  // The backing file's size made `to` with the bytes between floor_ and `to` zero.
  int resize_backing(uint64_t to);

  int fd_;
  uint64_t durable_size_;  // the backing file's size
  uint64_t floor_;         // <= durable_size_, <= size_
  uint64_t size_;
  std::optional<uint64_t> last_truncate_;  // the size the last truncate set, until a commit or sync
  std::map<uint64_t, Page> pages_;
};

}  // namespace isr::powerfs
