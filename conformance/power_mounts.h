// The isrcheck-powerfs mounts under a cluster's nodes (conformance/powerfs/README.md), so
// that `crash kind=power` is executable: each node's data directory (log.dirs, which
// also holds the KRaft metadata log) is a mount of the page-cache-losing file system over
// a backing directory beside the cluster's work directory, made before the driver
// formats and starts the node; the power fault is
// a kill -9 of the node's JVM, then the `power` command on its mount (every write since
// the file's last fsync gone, uncommitted directory entries undone), then whatever the
// scenario does next (a restart starts the node on what the disk kept).
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace isr::conformance {

// The isrcheck-powerfs executable: $ISRCHECK_POWERFS when set, else
// conformance/powerfs/isrcheck-powerfs beside the running executable (the build tree's
// layout). Empty, with `why` saying what is missing, when it or /dev/fuse is not there.
std::string powerfs_binary(std::string* why);

class PowerMounts {
 public:
  PowerMounts() = default;
  ~PowerMounts();
  PowerMounts(const PowerMounts&) = delete;
  PowerMounts& operator=(const PowerMounts&) = delete;

  // Mounts root/node-<id>/data over root/node-<id>/disk for each node (daemon output in
  // root/node-<id>/powerfs.log); the driver is given each mount as the node's data
  // directory (start_cluster's data_dirs: its work_dir must start empty). Throws
  // std::runtime_error naming the node when a mount is not up within 10 s; the mounts
  // made so far stay, for unmount_all.
  void mount(const std::string& binary, const std::string& root, const std::vector<int>& nodes);
  bool empty() const { return mounts_.empty(); }
  // {"<id>": mount point} of every mount, for start_cluster's data_dirs.
  std::vector<std::pair<int, std::string>> mountpoints() const;
  bool has(int node) const;
  // Drops the page cache of `node`'s mount (its JVM must be dead: nothing may hold its
  // files open). Returns what was lost, from the control file's counters. Throws
  // std::runtime_error.
  std::string power(int node);
  // Unmounts every mount (fusermount3 -u, lazily when still busy) and waits for each
  // daemon (SIGKILL after 5 s). Safe to call again.
  void unmount_all();

 private:
  struct Mount {
    int node;
    std::string mountpoint;
    pid_t pid;
  };
  std::vector<Mount> mounts_;
};

}  // namespace isr::conformance
