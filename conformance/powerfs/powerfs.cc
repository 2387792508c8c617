// The state of one isrcheck-powerfs mount (see powerfs.h).
#include "conformance/powerfs/powerfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace isr::powerfs {

namespace {

int reopen_rw(int fd) {
  // Through /proc: works for a file already unlinked, and whatever the handle's own mode.
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  return ::open(self.c_str(), O_RDWR | O_CLOEXEC);
}

int open_backing(const std::string& path, int flags, mode_t mode, bool* created) {
  // The handle is read-write whatever the application asked (the kernel checks its mode);
  // O_TRUNC is the overlay's, never the backing file's; O_APPEND positions come from the
  // kernel; O_SYNC would sync the backing file, which holds only durable data anyway.
  const int base = O_RDWR | O_CLOEXEC | (flags & O_NOFOLLOW);
  *created = false;
  if ((flags & O_CREAT) != 0) {
    const int fd = ::open(path.c_str(), base | O_CREAT | O_EXCL, mode);
    if (fd >= 0) {
      *created = true;
      return fd;
    }
    if (errno != EEXIST || (flags & O_EXCL) != 0) return -errno;
  }
  int fd = ::open(path.c_str(), base);
  if (fd < 0 && (errno == EACCES || errno == EISDIR)) fd = ::open(path.c_str(), (flags & O_ACCMODE) | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

}  // namespace

PowerFs::PowerFs(Options options) : options_(std::move(options)), journal_(options_.backing) {}

int PowerFs::open() { return journal_.open(); }

bool PowerFs::hidden(const char* path) {
  const size_t n = std::strlen(NamespaceJournal::kTrashName);
  return path[0] == '/' && std::strncmp(path + 1, NamespaceJournal::kTrashName, n) == 0 &&
         (path[1 + n] == '\0' || path[1 + n] == '/');
}

FileOverlay* PowerFs::find(ino_t ino) {
  auto it = overlays_.find(ino);
  return it == overlays_.end() ? nullptr : it->second.get();
}

FileOverlay* PowerFs::overlay_for(ino_t ino, int fd, int* err) {
  if (FileOverlay* o = find(ino)) return o;
  const int own = reopen_rw(fd);
  if (own < 0) {
    *err = -errno;
    return nullptr;
  }
  struct stat st;
  if (::fstat(own, &st) != 0) {
    *err = -errno;
    ::close(own);
    return nullptr;
  }
  return overlays_.emplace(ino, std::make_unique<FileOverlay>(own, static_cast<uint64_t>(st.st_size)))
      .first->second.get();
}

int PowerFs::stat_of(const char* path, const Handle* h, struct stat* st) {
  std::lock_guard<std::mutex> lock(mu_);
  if (h != nullptr && h->control) path = kControlPath;
  if (path != nullptr && std::strcmp(path, kControlPath) == 0) {
    std::memset(st, 0, sizeof *st);
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_uid = ::getuid();
    st->st_gid = ::getgid();
    return 0;
  }
  if (h != nullptr) {
    if (::fstat(h->fd, st) != 0) return -errno;
  } else {
    if (hidden(path)) return -ENOENT;
    if (::lstat(backing(path).c_str(), st) != 0) return -errno;
  }
  if (S_ISREG(st->st_mode)) {
    if (const FileOverlay* o = find(st->st_ino)) {
      st->st_size = static_cast<off_t>(o->size());
      st->st_blocks = static_cast<blkcnt_t>((o->size() + 511) / 512);
    }
  }
  return 0;
}

int PowerFs::open_file(const char* path, int flags, Handle** out) {
  if (std::strcmp(path, kControlPath) == 0) {
    *out = new Handle{-1, 0, true, false};
    return 0;
  }
  return create_file(path, flags & ~(O_CREAT | O_EXCL), 0, out);
}

int PowerFs::create_file(const char* path, int flags, mode_t mode, Handle** out) {
  if (hidden(path) || std::strcmp(path, kControlPath) == 0) return -EACCES;
  std::lock_guard<std::mutex> lock(mu_);
  bool created = false;
  const int fd = open_backing(backing(path), flags, mode, &created);
  if (fd < 0) return fd;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = -errno;
    ::close(fd);
    return e;
  }
  if (created) journal_.created(path);
  if ((flags & O_TRUNC) != 0 && !created && S_ISREG(st.st_mode)) {
    int err = 0;
    FileOverlay* o = overlay_for(st.st_ino, fd, &err);
    if (o == nullptr) {
      ::close(fd);
      return err;
    }
    o->truncate(0);
  }
  ++opens_[st.st_ino];
  *out = new Handle{fd, st.st_ino, false, (flags & (O_SYNC | O_DSYNC)) != 0};
  return 0;
}

void PowerFs::release(Handle* h) {
  if (!h->control) {
    std::lock_guard<std::mutex> lock(mu_);
    if (--opens_[h->ino] <= 0) {
      opens_.erase(h->ino);
      // A file deleted for good (its unlink committed) and closed: nobody can reach it.
      struct stat st;
      if (::fstat(h->fd, &st) == 0 && st.st_nlink == 0) overlays_.erase(h->ino);
    }
    ::close(h->fd);
  }
  delete h;
}

ssize_t PowerFs::read(Handle* h, char* out, size_t len, uint64_t off) {
  if (h->control) {
    const std::string s = status();
    if (off >= s.size()) return 0;
    const size_t n = std::min(len, s.size() - static_cast<size_t>(off));
    std::memcpy(out, s.data() + off, n);
    return static_cast<ssize_t>(n);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (const FileOverlay* o = find(h->ino)) return o->read(out, len, off);
  size_t got = 0;
  while (got < len) {
    const ssize_t r = ::pread(h->fd, out + got, len - got, static_cast<off_t>(off + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

ssize_t PowerFs::write(Handle* h, const char* in, size_t len, uint64_t off) {
  if (h->control) {
    std::istringstream words(std::string(in, len));
    std::string word;
    while (words >> word) {
      if (const int r = command(word); r != 0) return r;
    }
    return static_cast<ssize_t>(len);
  }
  std::lock_guard<std::mutex> lock(mu_);
  int err = 0;
  FileOverlay* o = overlay_for(h->ino, h->fd, &err);
  if (o == nullptr) return err;
  const ssize_t r = o->write(in, len, off);
  if (r > 0 && h->sync_writes) {
    // O_SYNC / O_DSYNC: each write is its own fdatasync.
    if (const int s = o->sync(true); s != 0) return s;
    ++fsyncs_;
    commit_locked();
  }
  return r;
}

int PowerFs::truncate(const char* path, Handle* h, uint64_t size) {
  if ((h != nullptr && h->control) || (path != nullptr && std::strcmp(path, kControlPath) == 0)) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  int err = 0;
  FileOverlay* o = nullptr;
  if (h != nullptr) {
    o = overlay_for(h->ino, h->fd, &err);
  } else {
    if (hidden(path)) return -ENOENT;
    const int fd = ::open(backing(path).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return -errno;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      err = -errno;
    } else if (!S_ISREG(st.st_mode)) {
      err = -EINVAL;
    } else {
      o = overlay_for(st.st_ino, fd, &err);
    }
    ::close(fd);
  }
  if (o == nullptr) return err;
  return o->truncate(size);
}

int PowerFs::fsync(Handle* h, bool datasync) {
  if (h->control) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  ++fsyncs_;
  auto it = overlays_.find(h->ino);
  if (it != overlays_.end()) {
    if (const int r = it->second->sync(datasync); r != 0) return r;
    overlays_.erase(it);
  } else if ((datasync ? ::fdatasync(h->fd) : ::fsync(h->fd)) != 0) {
    return -errno;
  }
  // ext4: the fsync commits the running transaction, and with it every directory entry
  // (and truncate) so far, of any file.
  commit_locked();
  return 0;
}

int PowerFs::fsyncdir(int dir_fd) {
  std::lock_guard<std::mutex> lock(mu_);
  ++fsyncs_;
  if (::fsync(dir_fd) != 0) return -errno;
  commit_locked();
  return 0;
}

int PowerFs::mkdir(const char* path, mode_t mode) {
  if (hidden(path)) return -EACCES;
  std::lock_guard<std::mutex> lock(mu_);
  return journal_.mkdir(path, mode);
}

int PowerFs::unlink(const char* path) {
  if (hidden(path) || std::strcmp(path, kControlPath) == 0) return -EACCES;
  std::lock_guard<std::mutex> lock(mu_);
  return journal_.unlink(path);
}

int PowerFs::rmdir(const char* path) {
  if (hidden(path)) return -EACCES;
  std::lock_guard<std::mutex> lock(mu_);
  return journal_.rmdir(path);
}

int PowerFs::rename(const char* from, const char* to, unsigned int flags) {
  if (hidden(from) || hidden(to) || std::strcmp(from, kControlPath) == 0 || std::strcmp(to, kControlPath) == 0) {
    return -EACCES;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return journal_.rename(from, to, flags);
}

int PowerFs::symlink(const char* target, const char* path) {
  if (hidden(path)) return -EACCES;
  std::lock_guard<std::mutex> lock(mu_);
  if (::symlink(target, backing(path).c_str()) != 0) return -errno;
  journal_.created(path);
  return 0;
}

int PowerFs::link(const char* from, const char* to) {
  if (hidden(from) || hidden(to)) return -EACCES;
  std::lock_guard<std::mutex> lock(mu_);
  if (::link(backing(from).c_str(), backing(to).c_str()) != 0) return -errno;
  journal_.created(to);
  return 0;
}

void PowerFs::commit_locked() {
  ++commits_;
  journal_.commit();
  if (!options_.journal_truncates) return;
  for (auto it = overlays_.begin(); it != overlays_.end();) {
    if (const int r = it->second->commit_truncate(); r != 0) {
      std::fprintf(stderr, "isrcheck-powerfs: committing a truncate of inode %llu: %s\n",
                   static_cast<unsigned long long>(it->first), std::strerror(-r));
    }
    it = it->second->dirty() ? std::next(it) : overlays_.erase(it);
  }
}

void PowerFs::sync_all_locked() {
  for (auto& [ino, o] : overlays_) {
    if (const int r = o->sync(false); r != 0) {
      std::fprintf(stderr, "isrcheck-powerfs: syncing inode %llu: %s\n", static_cast<unsigned long long>(ino),
                   std::strerror(-r));
    }
  }
  overlays_.clear();
  commit_locked();
}

int PowerFs::command(const std::string& word) {
  std::lock_guard<std::mutex> lock(mu_);
  if (word == "power") {
    // Every page cache gone: each file is its backing file again (the node that wrote
    // them is dead, so no one holds them open; README.md), and the uncommitted directory
    // entries are undone.
    ++powers_;
    discarded_files_ += overlays_.size();
    overlays_.clear();
    undone_ops_ += journal_.power();
    std::fprintf(stderr, "isrcheck-powerfs: power loss %llu\n", powers_);
    return 0;
  }
  if (word == "sync") {
    sync_all_locked();
    return 0;
  }
  if (word == "commit") {
    commit_locked();
    return 0;
  }
  std::fprintf(stderr, "isrcheck-powerfs: control: unknown command \"%s\" (allowed: power, sync, commit)\n",
               word.c_str());
  return -EINVAL;
}

std::string PowerFs::status() {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t held = 0, dirty = 0;
  for (const auto& [ino, o] : overlays_) {
    held += o->held_bytes();
    dirty += o->dirty() ? 1 : 0;
  }
  std::ostringstream s;
  s << "dirty_files " << dirty << "\nheld_bytes " << held << "\npending_entries " << journal_.pending()
    << "\nfsyncs " << fsyncs_ << "\ncommits " << commits_ << "\npowers " << powers_ << "\ndiscarded_files "
    << discarded_files_ << "\nundone_entries " << undone_ops_ << "\n";
  return s.str();
}

void PowerFs::timed_commit() {
  std::lock_guard<std::mutex> lock(mu_);
  commit_locked();
}

void PowerFs::sync_all() {
  std::lock_guard<std::mutex> lock(mu_);
  sync_all_locked();
}

}  // namespace isr::powerfs
