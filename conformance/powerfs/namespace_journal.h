// The directory entries of isrcheck-powerfs: creates, links, mkdirs, unlinks, rmdirs and
// renames are applied to the backing tree at once (so that it is the namespace the
// application sees) and recorded with how to undo them. They become durable together at
// the next journal commit (ext4's jbd2 running transaction: any fsync, fdatasync or
// directory fsync on the file system, or the commit timer); a power loss undoes the
// uncommitted ones, newest first (README.md, "Model").
//
// An unlinked file (or one a rename replaces) is moved into the hidden trash directory
// of the backing tree, not deleted, so that a power loss can put it back with its
// durable content; the commit deletes it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace isr::powerfs {

class NamespaceJournal {
 public:
  // The trash, a directory in the backing root that the mount hides.
  static constexpr const char* kTrashName = ".powerfs-trash";

  // `root`: the backing directory (absolute, no trailing slash).
  explicit NamespaceJournal(std::string root);
  // Creates the trash, emptying what a daemon that died left in it (its unlinks count
  // as done). 0 or -errno.
  int open();

  // Paths are the mount's ("/a/b"). Each operation returns 0 or -errno, as its syscall.
  void created(const std::string& path);  // a file, symlink or hard link the caller made
  int mkdir(const std::string& path, mode_t mode);
  int unlink(const std::string& path);
  int rmdir(const std::string& path);
  int rename(const std::string& from, const std::string& to, unsigned int flags);

  // Journal commit: every operation so far is durable (the directories they changed are
  // fsynced in the backing tree, the trash emptied). Returns how many were committed.
  size_t commit();
  // Power loss: undoes every operation since the last commit, newest first. Returns
  // how many were undone.
  size_t power();
  size_t pending() const { return log_.size(); }

 private:
  enum class Kind { Created, Mkdir, Unlinked, Rmdir, Renamed };
  struct Op {
    Kind kind;
    std::string a;  // the path (Renamed: from)
    std::string b;  // Unlinked: the trash path (backing); Renamed: to
    mode_t mode = 0;
    uid_t uid = 0;
    gid_t gid = 0;
  };
  std::string backing(const std::string& path) const { return root_ + path; }
  void touch_parent(const std::string& backing_path);
  void undo(const Op& op);
  void sync_dirs();
  void empty_trash();

  std::string root_;
  std::string trash_;
  unsigned long long next_trash_ = 0;
  std::vector<Op> log_;
  std::set<std::string> dirs_;  // backing directories whose entries changed since the last commit
};

}  // namespace isr::powerfs
