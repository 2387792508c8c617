// Tests of isrcheck-powerfs through a real FUSE mount (README.md here, "Model"): each
// test mounts the daemon over a fresh backing directory under $POWERFS_TEST_WORK (set by
// powerfs_test.sh, which also unmounts whatever a crashed test leaves), does file
// operations through the mount, cuts the power through the control file, and checks what
// the application reads back and what the backing directory (the disk) holds. The last
// test drives the harness's PowerMounts (conformance/power_mounts.h) the same way.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/power_mounts.h"

namespace {

namespace fs = std::filesystem;

bool mounted(const std::string& dir) {
  std::ifstream m("/proc/mounts");
  std::string dev, point, rest;
  while (m >> dev >> point && std::getline(m, rest))
    if (point == dir) return true;
  return false;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class PowerFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* work = std::getenv("POWERFS_TEST_WORK");
    ASSERT_NE(work, nullptr) << "run through powerfs_test.sh (POWERFS_TEST_WORK)";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::path(work) / info->name();
    fs::remove_all(root_);
    backing_ = (root_ / "backing").string();
    mnt_ = (root_ / "mnt").string();
    fs::create_directories(backing_);
    fs::create_directories(mnt_);
    Mount();
  }
  void TearDown() override { Unmount(); }

  void Mount(std::vector<std::string> extra = {}) {
    extra_ = extra;
    std::vector<std::string> argv = {POWERFS_BINARY, backing_, mnt_, "-f", "--commit-interval-ms", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    daemon_ = ::fork();
    ASSERT_GE(daemon_, 0);
    if (daemon_ == 0) {
      std::vector<char*> raw;
      for (std::string& s : argv) raw.push_back(s.data());
      raw.push_back(nullptr);
      ::execv(raw[0], raw.data());
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !mounted(mnt_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    ASSERT_TRUE(mounted(mnt_)) << "the daemon did not mount " << mnt_;
  }

  void Unmount() {
    if (daemon_ <= 0) return;
    if (mounted(mnt_)) {
      const std::string cmd = "fusermount3 -u '" + mnt_ + "' 2>/dev/null || fusermount3 -uz '" + mnt_ + "'";
      EXPECT_EQ(std::system(cmd.c_str()), 0);
    }
    int status = 0;
    for (int i = 0; i < 200; ++i) {
      if (::waitpid(daemon_, &status, WNOHANG) == daemon_) {
        daemon_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (daemon_ > 0) {
      ::kill(daemon_, SIGKILL);
      ::waitpid(daemon_, &status, 0);
      daemon_ = -1;
      ADD_FAILURE() << "the daemon did not end after the unmount";
    }
  }

  std::string M(const std::string& rel) const { return mnt_ + "/" + rel; }
  std::string B(const std::string& rel) const { return backing_ + "/" + rel; }

  // One control command; returns write(2)'s errno (0 on success).
  int Control(const std::string& word) {
    const int fd = ::open(M(".powerfs-control").c_str(), O_WRONLY);
    if (fd < 0) return errno;
    const ssize_t n = ::write(fd, word.data(), word.size());
    const int e = n < 0 ? errno : 0;
    ::close(fd);
    return e;
  }
  void Power() { ASSERT_EQ(Control("power"), 0); }

  // Writes `data` at `off` (creating the file), fsyncs when asked.
  void Put(const std::string& rel, const std::string& data, off_t off, bool sync, int extra_flags = 0) {
    const int fd = ::open(M(rel).c_str(), O_RDWR | O_CREAT | extra_flags, 0644);
    ASSERT_GE(fd, 0) << rel << ": " << std::strerror(errno);
    ASSERT_EQ(::pwrite(fd, data.data(), data.size(), off), static_cast<ssize_t>(data.size()));
    if (sync) {
      ASSERT_EQ(::fsync(fd), 0);
    }
    ::close(fd);
  }
  void Fsync(const std::string& rel) {
    const int fd = ::open(M(rel).c_str(), O_RDONLY);
    ASSERT_GE(fd, 0) << rel;
    ASSERT_EQ(::fsync(fd), 0);
    ::close(fd);
  }
  off_t Size(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
  }

  fs::path root_;
  std::string backing_, mnt_;
  std::vector<std::string> extra_;
  pid_t daemon_ = -1;
};

TEST_F(PowerFsTest, UnsyncedWritesAreLostSyncedKept) {
  Put("f", "AAAA", 0, true);
  EXPECT_EQ(slurp(B("f")), "AAAA") << "the fsync wrote the backing file at once";
  Put("f", "BBBB", 4, false);
  EXPECT_EQ(slurp(M("f")), "AAAABBBB") << "reads see the unsynced write";
  EXPECT_EQ(Size(M("f")), 8);
  EXPECT_EQ(slurp(B("f")), "AAAA") << "the unsynced write is not on the disk";
  Power();
  EXPECT_EQ(slurp(M("f")), "AAAA");
  EXPECT_EQ(Size(M("f")), 4);
}

TEST_F(PowerFsTest, OverwriteOfSyncedDataIsUndone) {
  Put("f", std::string(10000, 'x'), 0, true);
  Put("f", "yyy", 5000, false);
  EXPECT_EQ(slurp(M("f")).substr(4999, 5), "xyyyx");
  Power();
  EXPECT_EQ(slurp(M("f")), std::string(10000, 'x'));
}

TEST_F(PowerFsTest, PowerLossSurvivesARemountAndACleanUnmountSyncs) {
  Put("f", "kept", 0, true);
  Put("f", "-lost", 4, false);
  Power();
  Unmount();
  EXPECT_EQ(slurp(B("f")), "kept");
  Mount();
  EXPECT_EQ(slurp(M("f")), "kept");
  Put("f", "+flushed", 4, false);
  Unmount();  // as umount(8): the page cache is written back
  EXPECT_EQ(slurp(B("f")), "kept+flushed");
  Mount();
  EXPECT_EQ(slurp(M("f")), "kept+flushed");
}

TEST_F(PowerFsTest, AppendAfterSync) {
  Put("log", "a", 0, true, O_APPEND);
  {
    const int fd = ::open(M("log").c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "b", 1), 1);
    ASSERT_EQ(::write(fd, "c", 1), 1);
    ::close(fd);
  }
  EXPECT_EQ(slurp(M("log")), "abc");
  Power();
  EXPECT_EQ(slurp(M("log")), "a");
  const int fd = ::open(M("log").c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "d", 1), 1);
  ASSERT_EQ(::fdatasync(fd), 0);
  ::close(fd);
  Power();
  EXPECT_EQ(slurp(M("log")), "ad");
}

TEST_F(PowerFsTest, UnsyncedTruncateIsUndone) {
  std::string original(10000, 'q');
  for (size_t i = 0; i < original.size(); ++i) original[i] = static_cast<char>('a' + i % 26);
  Put("seg", original, 0, true);
  ASSERT_EQ(::truncate(M("seg").c_str(), 100), 0);
  EXPECT_EQ(Size(M("seg")), 100);
  EXPECT_EQ(slurp(M("seg")), original.substr(0, 100));
  // Extending again reads zeros where the truncate cut, not the old bytes.
  ASSERT_EQ(::truncate(M("seg").c_str(), 5000), 0);
  EXPECT_EQ(slurp(M("seg")), original.substr(0, 100) + std::string(4900, '\0'));
  EXPECT_EQ(Size(B("seg")), 10000) << "the truncate is not on the disk yet";
  Power();
  EXPECT_EQ(slurp(M("seg")), original);
}

TEST_F(PowerFsTest, SyncedTruncateIsKept) {
  Put("seg", std::string(9000, 'z'), 0, true);
  const int fd = ::open(M("seg").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 10), 0);
  ASSERT_EQ(::pwrite(fd, "tail", 4, 10), 4);
  ASSERT_EQ(::fsync(fd), 0);
  ::close(fd);
  EXPECT_EQ(slurp(B("seg")), std::string(10, 'z') + "tail");
  Power();
  EXPECT_EQ(slurp(M("seg")), std::string(10, 'z') + "tail");
}

// ext4 journals a truncate's new size: another file's fsync (a journal commit) makes it
// durable; the data written after it is not.
TEST_F(PowerFsTest, TruncateIsDurableAtTheNextJournalCommit) {
  Put("seg", std::string(9000, 'z'), 0, true);
  ASSERT_EQ(::truncate(M("seg").c_str(), 10), 0);
  Put("seg", "unsynced", 10, false);
  Put("other", "x", 0, true);  // commits the journal
  Power();
  EXPECT_EQ(slurp(M("seg")), std::string(10, 'z'));
}

TEST_F(PowerFsTest, WithoutJournalledTruncatesOnlyTheFilesOwnFsyncKeepsIt) {
  Unmount();
  Mount({"--no-journal-truncates"});
  Put("seg", std::string(9000, 'z'), 0, true);
  ASSERT_EQ(::truncate(M("seg").c_str(), 10), 0);
  Put("other", "x", 0, true);
  Power();
  EXPECT_EQ(slurp(M("seg")), std::string(9000, 'z'));
}

TEST_F(PowerFsTest, UncommittedCreateIsUndoneCommittedCreateKeepsNoUnsyncedData) {
  Put("new", "data", 0, false);
  ASSERT_TRUE(fs::exists(B("new"))) << "the backing tree is the namespace the application sees";
  Power();
  EXPECT_FALSE(fs::exists(M("new")));
  EXPECT_FALSE(fs::exists(B("new")));
  // Created, then a journal commit (another file's fsync): the entry is durable, its
  // unsynced data is not (ext4 with delayed allocation: a zero-length file).
  Put("new", "data", 0, false);
  Put("other", "x", 0, true);
  Power();
  EXPECT_TRUE(fs::exists(M("new")));
  EXPECT_EQ(Size(M("new")), 0);
}

TEST_F(PowerFsTest, CheckpointRenameIsDurableOnlyAfterACommit) {
  // Kafka's checkpoint files: write a .tmp, fsync it, rename it over the old file.
  Put("cp", "old", 0, true);
  ASSERT_EQ(Control("commit"), 0);
  Put("cp.tmp", "new", 0, true);  // its fsync commits the create of cp.tmp
  ASSERT_EQ(::rename(M("cp.tmp").c_str(), M("cp").c_str()), 0);
  EXPECT_EQ(slurp(M("cp")), "new");
  EXPECT_FALSE(fs::exists(M("cp.tmp")));
  Power();
  EXPECT_EQ(slurp(M("cp")), "old") << "the rename was not committed";
  EXPECT_EQ(slurp(M("cp.tmp")), "new");
  // The same, then an fsync of the directory (Utils.flushDir): the rename is durable.
  ASSERT_EQ(::rename(M("cp.tmp").c_str(), M("cp").c_str()), 0);
  const int dir = ::open(mnt_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  ASSERT_EQ(::fsync(dir), 0);
  ::close(dir);
  Power();
  EXPECT_EQ(slurp(M("cp")), "new");
  EXPECT_FALSE(fs::exists(M("cp.tmp")));
  EXPECT_TRUE(fs::is_empty(B(".powerfs-trash"))) << "the commit deleted the replaced file";
}

TEST_F(PowerFsTest, UnlinkIsUndoneUntilCommitted) {
  Put("victim", "durable", 0, true);
  ASSERT_EQ(::unlink(M("victim").c_str()), 0);
  EXPECT_FALSE(fs::exists(M("victim")));
  Power();
  EXPECT_EQ(slurp(M("victim")), "durable");
  ASSERT_EQ(::unlink(M("victim").c_str()), 0);
  ASSERT_EQ(Control("commit"), 0);
  Power();
  EXPECT_FALSE(fs::exists(M("victim")));
}

TEST_F(PowerFsTest, DirectoriesAndRenamesUndoNewestFirst) {
  ASSERT_EQ(::mkdir(M("topic-0").c_str(), 0755), 0);
  Put("topic-0/00.log", "r1", 0, true);  // commits mkdir and create
  ASSERT_EQ(::mkdir(M("topic-1").c_str(), 0755), 0);
  Put("topic-1/00.log", "r2", 0, false);
  ASSERT_EQ(::rename(M("topic-0").c_str(), M("topic-0.deleted").c_str()), 0);
  ASSERT_EQ(::rename(M("topic-1/00.log").c_str(), M("topic-1/01.log").c_str()), 0);
  ASSERT_EQ(::rmdir(M("topic-1").c_str()), -1);
  EXPECT_EQ(errno, ENOTEMPTY);
  Power();
  EXPECT_EQ(slurp(M("topic-0/00.log")), "r1");
  EXPECT_FALSE(fs::exists(M("topic-0.deleted")));
  EXPECT_FALSE(fs::exists(M("topic-1")));
  // An empty directory removed and the removal undone.
  ASSERT_EQ(::mkdir(M("empty").c_str(), 0700), 0);
  ASSERT_EQ(Control("commit"), 0);
  ASSERT_EQ(::rmdir(M("empty").c_str()), 0);
  Power();
  struct stat st;
  ASSERT_EQ(::stat(M("empty").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// Kafka's index files: RandomAccessFile.setLength, then a MAP_SHARED read-write mapping,
// flushed with MappedByteBuffer.force (msync MS_SYNC), which reaches the daemon as writes
// and an FSYNC.
TEST_F(PowerFsTest, SharedMappingsAreDurableAtMsync) {
  const int fd = ::open(M("00.index").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 3 * 4096), 0);
  ASSERT_EQ(::fsync(fd), 0);
  char* map = static_cast<char*>(::mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(map, MAP_FAILED) << std::strerror(errno);
  std::memcpy(map, "entry-1", 7);
  ASSERT_EQ(::msync(map, 3 * 4096, MS_SYNC), 0);
  EXPECT_EQ(slurp(B("00.index")).substr(0, 7), "entry-1") << "msync wrote the backing file";
  std::memcpy(map + 4096, "entry-2", 7);
  // Another reader of the file sees the mapping's write (one page cache).
  char seen[8] = {};
  ASSERT_EQ(::pread(fd, seen, 7, 4096), 7);
  EXPECT_STREQ(seen, "entry-2");
  ASSERT_EQ(::munmap(map, 3 * 4096), 0);  // the dirty page reaches the daemon, unsynced
  ::close(fd);
  EXPECT_EQ(slurp(M("00.index")).substr(4096, 7), "entry-2");
  EXPECT_EQ(slurp(B("00.index")).substr(4096, 7), std::string(7, '\0'));
  Power();
  const std::string after = slurp(M("00.index"));
  ASSERT_EQ(after.size(), 3u * 4096);
  EXPECT_EQ(after.substr(0, 7), "entry-1");
  EXPECT_EQ(after.substr(4096, 7), std::string(7, '\0'));
}

TEST_F(PowerFsTest, ODsyncWritesAreDurableAtOnce) {
  Put("f", "sync", 0, false, O_DSYNC);
  Power();
  EXPECT_EQ(slurp(M("f")), "sync");
}

TEST_F(PowerFsTest, ControlFile) {
  EXPECT_EQ(Control("reboot"), EINVAL);
  EXPECT_EQ(Control("power\n"), 0);
  Put("f", "abc", 0, false);
  const std::string status = slurp(M(".powerfs-control"));
  EXPECT_NE(status.find("dirty_files 1\n"), std::string::npos) << status;
  EXPECT_NE(status.find("powers 1\n"), std::string::npos) << status;
  ASSERT_EQ(Control("sync"), 0);
  Power();
  EXPECT_EQ(slurp(M("f")), "abc") << "sync made everything durable";
  for (const auto& e : fs::directory_iterator(mnt_)) {
    EXPECT_NE(e.path().filename(), ".powerfs-control");
    EXPECT_NE(e.path().filename(), ".powerfs-trash");
  }
  EXPECT_FALSE(fs::exists(M(".powerfs-trash")));
}

// Random writes, truncates, fsyncs and power losses on a few files, each compared after
// every step with a reference model of the file (visible and durable content).
TEST_F(PowerFsTest, RandomOperationsMatchTheReferenceModel) {
  std::mt19937 rng(20261202);
  const std::vector<std::string> names = {"a", "b", "c"};
  std::vector<std::string> visible(names.size()), durable(names.size());
  for (const std::string& n : names) Put(n, "", 0, true);
  // The reference: each file's last truncate not yet durable, and the lowest size it had
  // since it was last durable (backing bytes from there on were truncated away).
  std::vector<std::optional<size_t>> pending_trunc(names.size());
  std::vector<size_t> floor(names.size(), 0);
  for (int step = 0; step < 400; ++step) {
    const size_t f = rng() % names.size();
    const int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      const size_t off = rng() % 20000, len = 1 + rng() % 9000;
      std::string data(len, '\0');
      for (char& ch : data) ch = static_cast<char>('A' + rng() % 26);
      Put(names[f], data, static_cast<off_t>(off), false);
      if (visible[f].size() < off + len) visible[f].resize(off + len, '\0');
      visible[f].replace(off, len, data);
    } else if (op < 7) {
      const size_t to = rng() % 24000;
      ASSERT_EQ(::truncate(M(names[f]).c_str(), static_cast<off_t>(to)), 0);
      visible[f].resize(to, '\0');
      pending_trunc[f] = to;
      floor[f] = std::min(floor[f], to);
    } else if (op < 9) {
      Fsync(names[f]);
      durable[f] = visible[f];
      pending_trunc[f].reset();
      floor[f] = visible[f].size();
      // The fsync's journal commit makes every other file's last truncate durable: its
      // disk content is cut at the floor and extended with zeros to the truncate's size.
      for (size_t g = 0; g < names.size(); ++g) {
        if (!pending_trunc[g]) continue;
        durable[g].resize(std::min(floor[g], durable[g].size()));
        durable[g].resize(*pending_trunc[g], '\0');
        floor[g] = *pending_trunc[g];
        pending_trunc[g].reset();
      }
    } else {
      Power();
      visible = durable;
      for (size_t g = 0; g < names.size(); ++g) {
        pending_trunc[g].reset();
        floor[g] = durable[g].size();
      }
    }
    for (size_t g = 0; g < names.size(); ++g) {
      ASSERT_EQ(slurp(M(names[g])), visible[g]) << "step " << step << " file " << names[g];
    }
  }
}

}  // namespace

// The harness's side (conformance/power_mounts.h): one mount per node, a power loss of
// one node leaves the others' unsynced data alone, and unmount_all leaves no mount.
TEST(PowerMounts, OneMountPerNodeAndAPowerLossOfOneOnly) {
  const char* work = std::getenv("POWERFS_TEST_WORK");
  ASSERT_NE(work, nullptr);
  const fs::path root = fs::path(work) / "power-mounts";
  fs::remove_all(root);
  ::setenv("ISRCHECK_POWERFS", POWERFS_BINARY, 1);
  std::string why;
  const std::string binary = isr::conformance::powerfs_binary(&why);
  ASSERT_EQ(binary, POWERFS_BINARY) << why;
  isr::conformance::PowerMounts mounts;
  mounts.mount(binary, root.string(), {0, 1});
  const auto points = mounts.mountpoints();
  ASSERT_EQ(points.size(), 2u);
  for (const auto& [node, dir] : points) {
    EXPECT_TRUE(mounted(dir)) << dir;
    std::ofstream(dir + "/segment.log") << "unsynced-" << node;
  }
  const std::string lost = mounts.power(0);
  EXPECT_NE(lost.find("dirty_files 1"), std::string::npos) << lost;
  EXPECT_FALSE(fs::exists(points[0].second + "/segment.log")) << "the create was never committed";
  EXPECT_EQ(slurp(points[1].second + "/segment.log"), "unsynced-1");
  EXPECT_THROW(mounts.power(7), std::runtime_error);
  mounts.unmount_all();
  for (const auto& [node, dir] : points) EXPECT_FALSE(mounted(dir)) << dir;
  EXPECT_EQ(slurp((root / "node-1" / "disk" / "segment.log").string()), "unsynced-1") << "the unmount synced";
}
