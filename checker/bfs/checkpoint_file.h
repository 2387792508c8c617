// The checkpoint file of the exhaustive search (`check --checkpoint DIR`): a binary
// stream with a header (magic, format version, the caller's identity of the run) and a
// trailing XXH3-64 checksum of everything before it. What goes in the body is
// checker/bfs/checkpoint.h's business; this file only makes writing it atomic and reading
// it safe:
//   - written to DIR/checkpoint.bin.tmp, flushed to disk (fsync), then renamed over
//     DIR/checkpoint.bin and the directory fsynced: a crash or a full disk while writing
//     leaves the previous checkpoint whole and usable;
//   - read only after the checksum of the whole file has been verified, so a truncated
//     or corrupted file is refused before any count in it sizes an allocation.
// The format is the binary's own (native byte order, sizeof(State)): a checkpoint is
// resumed by the same build only, which the identity (with the git revision) enforces.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "checker/store/fingerprint.h"  // XXH3 (inlined)

namespace isr::checker {

// A checkpoint that cannot be written, read or resumed here: the message says which file
// and why (the CLI reports it as bad input, exit 2).
struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr char kCheckpointMagic[8] = {'I', 'S', 'R', 'C', 'K', 'P', 'T', '\n'};
inline constexpr uint32_t kCheckpointFormat = 1;
inline constexpr const char* kCheckpointFile = "checkpoint.bin";

// `name`: another file in DIR (the distributed engine's manifest and per-rank files,
// checker/bfs/distributed_checkpoint.h); the default is the single-process checkpoint.
inline std::string checkpoint_path(const std::string& dir, const std::string& name = kCheckpointFile) {
  return dir + "/" + name;
}

class CheckpointWriter {
 public:
  explicit CheckpointWriter(const std::string& dir, const std::string& name = kCheckpointFile)
      : dir_(dir), path_(checkpoint_path(dir, name)), tmp_(path_ + ".tmp") {
    XXH3_64bits_reset(&state_);
    file_ = std::fopen(tmp_.c_str(), "wb");
    if (file_ == nullptr) fail("cannot create");
    buffer_.reserve(kBuffer);
    put(kCheckpointMagic, sizeof kCheckpointMagic);
    value(kCheckpointFormat);
  }
  ~CheckpointWriter() {
    if (file_ != nullptr) {
      std::fclose(file_);
      std::remove(tmp_.c_str());  // never committed: the previous checkpoint stays
    }
  }
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  void put(const void* data, size_t n) {
    XXH3_64bits_update(&state_, data, n);
    const auto* p = static_cast<const uint8_t*>(data);
    if (buffer_.size() + n > kBuffer) flush_buffer();
    if (n >= kBuffer) {
      write_out(p, n);
      return;
    }
    buffer_.insert(buffer_.end(), p, p + n);
  }
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(&v, sizeof v);
  }
  void string(const std::string& s) {
    value(static_cast<uint64_t>(s.size()));
    put(s.data(), s.size());
  }

  // Appends the checksum, makes the file durable and puts it in place. Returns its size.
  uint64_t commit() {
    const uint64_t hash = XXH3_64bits_digest(&state_);
    flush_buffer();
    write_out(&hash, sizeof hash);
    if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) fail("cannot write");
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0) {
      std::remove(tmp_.c_str());
      fail("cannot write");
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      std::remove(tmp_.c_str());
      fail("cannot rename into place");
    }
    // The rename is durable once the directory is.
    const int d = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
    if (d >= 0) {
      ::fsync(d);
      ::close(d);
    }
    return written_;
  }

 private:
  static constexpr size_t kBuffer = size_t{1} << 20;

  [[noreturn]] void fail(const char* what) const {
    throw CheckpointError(std::string(what) + " " + tmp_ + ": " + std::strerror(errno));
  }
  void write_out(const void* p, size_t n) {
    if (n != 0 && std::fwrite(p, 1, n, file_) != n) fail("cannot write");
    written_ += n;
  }
  void flush_buffer() {
    write_out(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

  std::string dir_, path_, tmp_;
  std::FILE* file_ = nullptr;
  // A member, not XXH3_createState(): nothing to free when the constructor throws.
  XXH3_state_t state_;
  std::vector<uint8_t> buffer_;
  uint64_t written_ = 0;
};

class CheckpointReader {
 public:
  // Opens DIR/checkpoint.bin (or DIR/name) and verifies its magic, format and checksum.
  explicit CheckpointReader(const std::string& dir, const std::string& name = kCheckpointFile)
      : path_(checkpoint_path(dir, name)) {
    file_ = std::fopen(path_.c_str(), "rb");
    if (file_ == nullptr) {
      throw CheckpointError("no checkpoint to resume: cannot open " + path_ + ": " + std::strerror(errno));
    }
    verify_checksum();
    char magic[sizeof kCheckpointMagic];
    get(magic, sizeof magic);
    if (std::memcmp(magic, kCheckpointMagic, sizeof magic) != 0) corrupt("not an isrcheck checkpoint");
    if (value<uint32_t>() != kCheckpointFormat) corrupt("a checkpoint format this binary does not read");
  }
  ~CheckpointReader() { std::fclose(file_); }
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  void get(void* data, size_t n) {
    if (n > left_) corrupt("truncated");
    if (n != 0 && std::fread(data, 1, n, file_) != n) corrupt("cannot read");
    left_ -= n;
  }
  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    get(&v, sizeof v);
    return v;
  }
  std::string string() {
    const uint64_t n = count(1);
    std::string s(n, '\0');
    get(s.data(), n);
    return s;
  }
  // A count of items of `item_bytes` each that the rest of the file can hold.
  uint64_t count(uint64_t item_bytes) {
    const uint64_t n = value<uint64_t>();
    if (item_bytes != 0 && n > left_ / item_bytes) corrupt("a count larger than the file");
    return n;
  }
  // Everything was read: nothing may be left before the checksum.
  void finish() {
    if (left_ != 0) corrupt("unread bytes at the end");
  }
  [[noreturn]] void corrupt(const std::string& why) const {
    throw CheckpointError("checkpoint " + path_ + " is unusable (" + why + ")");
  }

 private:
  void verify_checksum() {
    if (std::fseek(file_, 0, SEEK_END) != 0) corrupt("cannot seek");
    const long size = std::ftell(file_);
    if (size < static_cast<long>(sizeof kCheckpointMagic + sizeof(uint32_t) + sizeof(uint64_t))) corrupt("truncated");
    std::rewind(file_);
    left_ = static_cast<uint64_t>(size) - sizeof(uint64_t);
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    std::vector<uint8_t> buffer(size_t{1} << 20);
    for (uint64_t left = left_; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
      if (std::fread(buffer.data(), 1, n, file_) != n) {
        XXH3_freeState(state);
        corrupt("cannot read");
      }
      XXH3_64bits_update(state, buffer.data(), n);
      left -= n;
    }
    const uint64_t computed = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    uint64_t stored = 0;
    if (std::fread(&stored, 1, sizeof stored, file_) != sizeof stored) corrupt("cannot read");
    if (stored != computed) corrupt("checksum mismatch: truncated or corrupted");
    std::rewind(file_);
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t left_ = 0;  // bytes before the checksum not yet read
};

// The identity a checkpoint was written with (CheckpointOptions::identity), for the
// caller to compare with its own before resuming. CheckpointError when there is none
// or it is unusable.
inline std::string checkpoint_identity(const std::string& dir, const std::string& name = kCheckpointFile) {
  CheckpointReader in(dir, name);
  return in.string();
}

}  // namespace isr::checker
