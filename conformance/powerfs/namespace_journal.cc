// The directory entries' journal (see namespace_journal.h).
#include "conformance/powerfs/namespace_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace isr::powerfs {

namespace {

std::string parent_of(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == 0 ? std::string("/") : p.substr(0, slash);
}

void fsync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // removed since (a later operation): nothing to make durable
  if (::fsync(fd) != 0) std::fprintf(stderr, "isrcheck-powerfs: fsync of directory %s: %s\n", dir.c_str(), std::strerror(errno));
  ::close(fd);
}

}  // namespace

NamespaceJournal::NamespaceJournal(std::string root) : root_(std::move(root)), trash_(root_ + "/" + kTrashName) {}

int NamespaceJournal::open() {
  if (::mkdir(trash_.c_str(), 0700) != 0 && errno != EEXIST) return -errno;
  empty_trash();
  return 0;
}

void NamespaceJournal::touch_parent(const std::string& backing_path) { dirs_.insert(parent_of(backing_path)); }

void NamespaceJournal::created(const std::string& path) {
  log_.push_back({Kind::Created, path, "", 0, 0, 0});
  touch_parent(backing(path));
}

int NamespaceJournal::mkdir(const std::string& path, mode_t mode) {
  if (::mkdir(backing(path).c_str(), mode) != 0) return -errno;
  log_.push_back({Kind::Mkdir, path, "", 0, 0, 0});
  touch_parent(backing(path));
  return 0;
}

int NamespaceJournal::unlink(const std::string& path) {
  struct stat st;
  if (::lstat(backing(path).c_str(), &st) != 0) return -errno;
  if (S_ISDIR(st.st_mode)) return -EISDIR;
  const std::string kept = trash_ + "/" + std::to_string(next_trash_++);
  if (::rename(backing(path).c_str(), kept.c_str()) != 0) return -errno;
  log_.push_back({Kind::Unlinked, path, kept, 0, 0, 0});
  touch_parent(backing(path));
  dirs_.insert(trash_);
  return 0;
}

int NamespaceJournal::rmdir(const std::string& path) {
  struct stat st;
  if (::lstat(backing(path).c_str(), &st) != 0) return -errno;
  // An empty directory holds nothing to keep: undone by making it again, as it was.
  if (::rmdir(backing(path).c_str()) != 0) return -errno;
  log_.push_back({Kind::Rmdir, path, "", st.st_mode & 07777, st.st_uid, st.st_gid});
  touch_parent(backing(path));
  return 0;
}

int NamespaceJournal::rename(const std::string& from, const std::string& to, unsigned int flags) {
  constexpr unsigned int kNoReplace = 1;  // RENAME_NOREPLACE
  if ((flags & ~kNoReplace) != 0) return -EINVAL;  // RENAME_EXCHANGE, RENAME_WHITEOUT: not modelled
  struct stat fs, ts;
  if (::lstat(backing(from).c_str(), &fs) != 0) return -errno;
  const bool replaces = ::lstat(backing(to).c_str(), &ts) == 0;
  if (replaces) {
    if ((flags & kNoReplace) != 0) return -EEXIST;
    if (fs.st_ino == ts.st_ino) return 0;  // rename(2): two names of one file, nothing done
    // The replaced entry goes first, as its own undoable step (put back after the rename
    // is undone).
    int r = 0;
    if (S_ISDIR(ts.st_mode)) {
      r = S_ISDIR(fs.st_mode) ? rmdir(to) : -EISDIR;
    } else {
      r = S_ISDIR(fs.st_mode) ? -ENOTDIR : unlink(to);
    }
    if (r != 0) return r;
  }
  if (::rename(backing(from).c_str(), backing(to).c_str()) != 0) {
    const int e = errno;
    if (replaces) {
      undo(log_.back());
      log_.pop_back();
    }
    return -e;
  }
  log_.push_back({Kind::Renamed, from, to, 0, 0, 0});
  touch_parent(backing(from));
  touch_parent(backing(to));
  return 0;
}

void NamespaceJournal::undo(const Op& op) {
  int r = 0;
  switch (op.kind) {
    case Kind::Created:
      r = ::unlink(backing(op.a).c_str());
      break;
    case Kind::Mkdir:
      r = ::rmdir(backing(op.a).c_str());
      break;
    case Kind::Unlinked:
      r = ::rename(op.b.c_str(), backing(op.a).c_str());
      break;
    case Kind::Rmdir:
      r = ::mkdir(backing(op.a).c_str(), op.mode);
      if (r == 0 && ::lchown(backing(op.a).c_str(), op.uid, op.gid) != 0) r = -1;
      break;
    case Kind::Renamed:
      r = ::rename(backing(op.b).c_str(), backing(op.a).c_str());
      break;
  }
  // Newest first, each undo meets the tree its operation left; a failure means the
  // backing tree was changed behind the mount's back.
  if (r != 0) std::fprintf(stderr, "isrcheck-powerfs: undo of an operation on %s failed: %s\n", op.a.c_str(), std::strerror(errno));
}

void NamespaceJournal::sync_dirs() {
  for (const std::string& d : dirs_) fsync_dir(d);
  dirs_.clear();
}

void NamespaceJournal::empty_trash() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(trash_, ec)) {
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) std::fprintf(stderr, "isrcheck-powerfs: removing %s: %s\n", entry.path().c_str(), ec.message().c_str());
  }
  fsync_dir(trash_);
}

size_t NamespaceJournal::commit() {
  const size_t n = log_.size();
  sync_dirs();
  bool trashed = false;
  for (const Op& op : log_) trashed = trashed || op.kind == Kind::Unlinked;
  if (trashed) empty_trash();
  log_.clear();
  return n;
}

size_t NamespaceJournal::power() {
  const size_t n = log_.size();
  for (auto it = log_.rbegin(); it != log_.rend(); ++it) undo(*it);
  log_.clear();
  sync_dirs();
  return n;
}

}  // namespace isr::powerfs
