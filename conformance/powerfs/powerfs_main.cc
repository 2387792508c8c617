// isrcheck-powerfs: a passthrough FUSE file system that models a page cache and loses
// it on command, as a machine losing power does (README.md in this directory):
//
//   isrcheck-powerfs BACKING_DIR MOUNTPOINT [-f] [--commit-interval-ms N]
//                    [--no-journal-truncates] [--pid-file FILE] [--debug]
//   echo power > MOUNTPOINT/.powerfs-control
//
// This file binds PowerFs (powerfs.h) to libfuse's high-level API and sets the FUSE
// options the model needs: no writeback cache (each write(2) reaches the daemon at once,
// so a kill -9 of the writer leaves nothing in the kernel to arrive later), the kernel's
// page cache of file data kept but dropped at each open (no kernel_cache), attributes
// and entries never cached (sizes change at a power loss), no direct_io (Kafka mmaps its
// index files), and fsync(2), fdatasync(2) and msync(2) reaching the daemon as FSYNC.
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <fcntl.h>
#include <fuse.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "conformance/powerfs/powerfs.h"

using isr::powerfs::Handle;
using isr::powerfs::PowerFs;

namespace {

PowerFs* fs = nullptr;

// The journal's commit timer (ext4 commit=N): started in init (after fuse_daemonize's
// fork), stopped in destroy.
std::thread timer;
std::mutex timer_mu;
std::condition_variable timer_cv;
bool timer_stop = false;

Handle* handle(const fuse_file_info* fi) {
  return fi == nullptr ? nullptr : reinterpret_cast<Handle*>(static_cast<uintptr_t>(fi->fh));
}

int op_getattr(const char* path, struct stat* st, fuse_file_info* fi) { return fs->stat_of(path, handle(fi), st); }

int op_readlink(const char* path, char* buf, size_t size) {
  if (PowerFs::hidden(path)) return -ENOENT;
  const ssize_t n = ::readlink(fs->backing(path).c_str(), buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}

int op_mkdir(const char* path, mode_t mode) { return fs->mkdir(path, mode); }
int op_unlink(const char* path) { return fs->unlink(path); }
int op_rmdir(const char* path) { return fs->rmdir(path); }
int op_symlink(const char* target, const char* path) { return fs->symlink(target, path); }
int op_rename(const char* from, const char* to, unsigned int flags) { return fs->rename(from, to, flags); }
int op_link(const char* from, const char* to) { return fs->link(from, to); }

int op_chmod(const char* path, mode_t mode, fuse_file_info* fi) {
  const Handle* h = handle(fi);
  if (h != nullptr && h->control) return 0;
  if (h == nullptr && PowerFs::hidden(path)) return -ENOENT;
  const int r = h != nullptr ? ::fchmod(h->fd, mode) : ::chmod(fs->backing(path).c_str(), mode);
  return r == 0 ? 0 : -errno;
}

int op_chown(const char* path, uid_t uid, gid_t gid, fuse_file_info* fi) {
  const Handle* h = handle(fi);
  if (h != nullptr && h->control) return 0;
  if (h == nullptr && PowerFs::hidden(path)) return -ENOENT;
  const int r = h != nullptr ? ::fchown(h->fd, uid, gid) : ::lchown(fs->backing(path).c_str(), uid, gid);
  return r == 0 ? 0 : -errno;
}

int op_truncate(const char* path, off_t size, fuse_file_info* fi) {
  if (size < 0) return -EINVAL;
  return fs->truncate(path, handle(fi), static_cast<uint64_t>(size));
}

int op_utimens(const char* path, const struct timespec tv[2], fuse_file_info* fi) {
  const Handle* h = handle(fi);
  if (h != nullptr && h->control) return 0;
  if (h == nullptr && PowerFs::hidden(path)) return -ENOENT;
  const int r = h != nullptr ? ::futimens(h->fd, tv) : ::utimensat(AT_FDCWD, fs->backing(path).c_str(), tv, AT_SYMLINK_NOFOLLOW);
  return r == 0 ? 0 : -errno;
}

int op_open(const char* path, fuse_file_info* fi) {
  Handle* h = nullptr;
  if (const int r = fs->open_file(path, fi->flags, &h); r != 0) return r;
  fi->fh = reinterpret_cast<uintptr_t>(h);
  // The control file answers each read and write itself, never from the page cache.
  if (h->control) fi->direct_io = 1;
  return 0;
}

int op_create(const char* path, mode_t mode, fuse_file_info* fi) {
  Handle* h = nullptr;
  if (const int r = fs->create_file(path, fi->flags | O_CREAT, mode, &h); r != 0) return r;
  fi->fh = reinterpret_cast<uintptr_t>(h);
  return 0;
}

int op_read(const char*, char* buf, size_t size, off_t off, fuse_file_info* fi) {
  return static_cast<int>(fs->read(handle(fi), buf, size, static_cast<uint64_t>(off)));
}

int op_write(const char*, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  return static_cast<int>(fs->write(handle(fi), buf, size, static_cast<uint64_t>(off)));
}

int op_statfs(const char*, struct statvfs* st) {
  return ::statvfs(fs->options().backing.c_str(), st) == 0 ? 0 : -errno;
}

int op_flush(const char*, fuse_file_info*) { return 0; }  // close(2) makes nothing durable

int op_release(const char*, fuse_file_info* fi) {
  fs->release(handle(fi));
  return 0;
}

int op_fsync(const char*, int datasync, fuse_file_info* fi) { return fs->fsync(handle(fi), datasync != 0); }

int op_opendir(const char* path, fuse_file_info* fi) {
  if (PowerFs::hidden(path)) return -ENOENT;
  const int fd = ::open(fs->backing(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -errno;
  fi->fh = static_cast<uint64_t>(fd);
  return 0;
}

int op_readdir(const char*, void* buf, fuse_fill_dir_t filler, off_t, fuse_file_info* fi,
               enum fuse_readdir_flags) {
  const int fd = ::dup(static_cast<int>(fi->fh));
  if (fd < 0) return -errno;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return -errno;
  }
  ::rewinddir(d);
  struct stat dir_st;
  const bool is_root = ::fstat(fd, &dir_st) == 0 && [&] {
    struct stat root_st;
    return ::stat(fs->options().backing.c_str(), &root_st) == 0 && root_st.st_ino == dir_st.st_ino &&
           root_st.st_dev == dir_st.st_dev;
  }();
  while (struct dirent* e = ::readdir(d)) {
    if (is_root && std::strcmp(e->d_name, isr::powerfs::NamespaceJournal::kTrashName) == 0) continue;
    struct stat st;
    std::memset(&st, 0, sizeof st);
    st.st_ino = e->d_ino;
    st.st_mode = static_cast<mode_t>(DTTOIF(e->d_type));
    if (filler(buf, e->d_name, &st, 0, static_cast<fuse_fill_dir_flags>(0)) != 0) break;
  }
  ::closedir(d);
  return 0;
}

int op_releasedir(const char*, fuse_file_info* fi) {
  ::close(static_cast<int>(fi->fh));
  return 0;
}

int op_fsyncdir(const char*, int, fuse_file_info* fi) { return fs->fsyncdir(static_cast<int>(fi->fh)); }

int op_access(const char* path, int mask) {
  if (std::strcmp(path, isr::powerfs::kControlPath) == 0) return 0;
  if (PowerFs::hidden(path)) return -ENOENT;
  return ::access(fs->backing(path).c_str(), mask) == 0 ? 0 : -errno;
}

// Preallocation is not modelled: callers fall back to ftruncate / writes (Kafka's
// file.preallocate is off by default, and RandomAccessFile.setLength is ftruncate).
int op_fallocate(const char*, int, off_t, off_t, fuse_file_info*) { return -EOPNOTSUPP; }

void* op_init(fuse_conn_info* conn, fuse_config* cfg) {
  // See the top of the file: why each of these.
  conn->want &= ~static_cast<unsigned>(FUSE_CAP_WRITEBACK_CACHE);
  cfg->direct_io = 0;
  cfg->kernel_cache = 0;
  cfg->auto_cache = 0;
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  cfg->negative_timeout = 0;
  cfg->use_ino = 1;
  // Operations on open files get their handle, never a path: an unlinked file keeps
  // working through its handle without libfuse's .fuse_hidden renames.
  cfg->hard_remove = 1;
  cfg->nullpath_ok = 1;
  const unsigned interval = fs->options().commit_interval_ms;
  if (interval > 0) {
    timer = std::thread([interval] {
      std::unique_lock<std::mutex> lock(timer_mu);
      while (!timer_cv.wait_for(lock, std::chrono::milliseconds(interval), [] { return timer_stop; })) {
        lock.unlock();
        fs->timed_commit();
        lock.lock();
      }
    });
  }
  return nullptr;
}

void op_destroy(void*) {
  {
    std::lock_guard<std::mutex> lock(timer_mu);
    timer_stop = true;
  }
  timer_cv.notify_all();
  if (timer.joinable()) timer.join();
  // An unmount syncs, as umount(8) does: what was held is written and fsynced.
  fs->sync_all();
}

fuse_operations operations() {
  fuse_operations o;
  std::memset(&o, 0, sizeof o);
  o.getattr = op_getattr;
  o.readlink = op_readlink;
  o.mkdir = op_mkdir;
  o.unlink = op_unlink;
  o.rmdir = op_rmdir;
  o.symlink = op_symlink;
  o.rename = op_rename;
  o.link = op_link;
  o.chmod = op_chmod;
  o.chown = op_chown;
  o.truncate = op_truncate;
  o.open = op_open;
  o.read = op_read;
  o.write = op_write;
  o.statfs = op_statfs;
  o.flush = op_flush;
  o.release = op_release;
  o.fsync = op_fsync;
  o.opendir = op_opendir;
  o.readdir = op_readdir;
  o.releasedir = op_releasedir;
  o.fsyncdir = op_fsyncdir;
  o.init = op_init;
  o.destroy = op_destroy;
  o.access = op_access;
  o.create = op_create;
  o.utimens = op_utimens;
  o.fallocate = op_fallocate;
  return o;
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "isrcheck-powerfs: %s\n"
               "usage: isrcheck-powerfs BACKING_DIR MOUNTPOINT [-f] [--commit-interval-ms N]\n"
               "                        [--no-journal-truncates] [--pid-file FILE] [--debug]\n",
               message.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  bool foreground = false, debug = false;
  std::string pid_file;
  isr::powerfs::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) {
      if (i + 1 >= argc) usage_error(std::string(name) + ": needs a value");
      return std::string(argv[++i]);
    };
    if (a == "-f") {
      foreground = true;
    } else if (a == "--debug") {
      debug = foreground = true;
    } else if (a == "--no-journal-truncates") {
      options.journal_truncates = false;
    } else if (a == "--commit-interval-ms") {
      const std::string v = value("--commit-interval-ms");
      char* end = nullptr;
      const unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n > 3600000) {
        usage_error("--commit-interval-ms: \"" + v + "\" is not a number of milliseconds from 0 (never) to 3600000");
      }
      options.commit_interval_ms = static_cast<unsigned>(n);
    } else if (a == "--pid-file") {
      pid_file = value("--pid-file");
    } else if (a == "-h" || a == "--help") {
      usage_error("a page-cache-losing passthrough file system (conformance/powerfs/README.md)");
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option \"" + a + "\" (allowed: -f, --commit-interval-ms, --no-journal-truncates, --pid-file, --debug)");
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) usage_error("needs BACKING_DIR and MOUNTPOINT");
  std::error_code ec;
  if (!std::filesystem::is_directory(positional[0], ec)) usage_error("BACKING_DIR: " + positional[0] + " is not a directory");
  if (!std::filesystem::is_directory(positional[1], ec)) usage_error("MOUNTPOINT: " + positional[1] + " is not a directory");
  options.backing = std::filesystem::canonical(positional[0]).string();
  if (options.backing == "/") usage_error("BACKING_DIR: / cannot be a backing directory");
  const std::string mountpoint = std::filesystem::canonical(positional[1]).string();
  if (mountpoint == options.backing || mountpoint.rfind(options.backing + "/", 0) == 0) {
    usage_error("MOUNTPOINT: " + mountpoint + " is inside BACKING_DIR " + options.backing);
  }

  PowerFs state(options);
  if (const int r = state.open(); r != 0) {
    std::fprintf(stderr, "isrcheck-powerfs: %s: cannot prepare the trash: %s\n", options.backing.c_str(), std::strerror(-r));
    return 1;
  }
  fs = &state;

  // auto_unmount: fusermount3 unmounts the file system when this process ends however
  // it ends (a kill -9 of the daemon leaves no dead mount behind).
  std::vector<std::string> fuse_argv = {"isrcheck-powerfs", "-o",
                                        "fsname=isrcheck-powerfs,subtype=isrcheck-powerfs,auto_unmount"};
  if (debug) fuse_argv.push_back("-d");
  std::vector<char*> raw;
  for (std::string& s : fuse_argv) raw.push_back(s.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(raw.size()), raw.data());
  const fuse_operations ops = operations();
  fuse* f = fuse_new(&args, &ops, sizeof ops, nullptr);
  fuse_opt_free_args(&args);  // fuse_new copied what it needs
  if (f == nullptr) return 1;
  if (fuse_mount(f, mountpoint.c_str()) != 0) {
    fuse_destroy(f);
    return 1;
  }
  fuse_session* se = fuse_get_session(f);
  int rc = 1;
  if (fuse_set_signal_handlers(se) == 0) {
    // Not in the foreground: the parent returns once the mount is in place.
    if (fuse_daemonize(foreground ? 1 : 0) == 0) {
      if (!pid_file.empty()) std::ofstream(pid_file) << ::getpid() << "\n";
      // Single-threaded: the requests are served in the order the kernel sends them.
      rc = fuse_loop(f) == 0 ? 0 : 1;
    }
    fuse_remove_signal_handlers(se);
  }
  fuse_unmount(f);
  fuse_destroy(f);
  return rc;
}
