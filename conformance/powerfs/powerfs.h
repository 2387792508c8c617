// The state of one isrcheck-powerfs mount, apart from FUSE (powerfs_main.cc binds it to
// libfuse): the backing directory, each file's page cache (file_overlay.h), the
// directory entries' journal (namespace_journal.h) and the commands of the control file.
// Every method takes the state's lock: the FUSE loop is single-threaded, the commit
// timer runs beside it.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "conformance/powerfs/file_overlay.h"
#include "conformance/powerfs/namespace_journal.h"

namespace isr::powerfs {

// The mount's virtual control file (README.md, "Control"); hidden from readdir.
inline constexpr const char* kControlPath = "/.powerfs-control";

struct Options {
  std::string backing;  // absolute, no trailing slash
  // ext4's `commit=` (5 s by default): the journal commits by itself this often; 0 never.
  unsigned commit_interval_ms = 5000;
  // ext4 journals a truncate's new size (durable at the next commit, no fsync needed);
  // off: a truncate is durable only with the file's own fsync.
  bool journal_truncates = true;
};

// One open file of the mount (struct fuse_file_info::fh).
struct Handle {
  int fd = -1;  // the backing file, open read-write
  ino_t ino = 0;
  bool control = false;
  bool sync_writes = false;  // opened O_SYNC or O_DSYNC
};

class PowerFs {
 public:
  explicit PowerFs(Options options);
  // Prepares the backing tree (the trash); 0 or -errno.
  int open();

  const Options& options() const { return options_; }
  std::string backing(const char* path) const { return options_.backing + path; }
  // The trash's name in the root: every operation on it answers ENOENT.
  static bool hidden(const char* path);

  // The file operations, each 0 (or a byte count) or -errno.
  int stat_of(const char* path, const Handle* h, struct stat* st);
  int open_file(const char* path, int flags, Handle** out);
  int create_file(const char* path, int flags, mode_t mode, Handle** out);
  void release(Handle* h);
  ssize_t read(Handle* h, char* out, size_t len, uint64_t off);
  ssize_t write(Handle* h, const char* in, size_t len, uint64_t off);
  int truncate(const char* path, Handle* h, uint64_t size);
  int fsync(Handle* h, bool datasync);
  int fsyncdir(int dir_fd);
  int mkdir(const char* path, mode_t mode);
  int unlink(const char* path);
  int rmdir(const char* path);
  int rename(const char* from, const char* to, unsigned int flags);
  int symlink(const char* target, const char* path);
  int link(const char* from, const char* to);

  // Control commands (README.md): "power", "sync", "commit". 0, or -EINVAL for another.
  int command(const std::string& word);
  // The control file's content: counters and what is held.
  std::string status();
  // The commit timer's tick, and the unmount's sync of everything (as umount does).
  void timed_commit();
  void sync_all();

 private:
  // The overlay of `ino`, made on first change from `fd` (reopened read-write).
  FileOverlay* overlay_for(ino_t ino, int fd, int* err);
  FileOverlay* find(ino_t ino);
  // A journal commit: the directory entries, then (ext4) the truncates. Lock held.
  void commit_locked();
  void sync_all_locked();

  Options options_;
  std::mutex mu_;
  NamespaceJournal journal_;
  std::unordered_map<ino_t, std::unique_ptr<FileOverlay>> overlays_;
  std::unordered_map<ino_t, int> opens_;
  unsigned long long powers_ = 0, fsyncs_ = 0, commits_ = 0, discarded_files_ = 0, undone_ops_ = 0;
};

}  // namespace isr::powerfs
