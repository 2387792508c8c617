// Progress lines on stderr, once a second (progress.h).
#include "cli/progress.h"

#include <cstdlib>
#include <iostream>
#include <string_view>
#include <system_error>
#include <utility>

#include "cli/run_support.h"

namespace isr::cli {
namespace {

std::chrono::milliseconds interval_from_environment() {
  const char* text = std::getenv("ISRCHECK_PROGRESS_MS");
  if (text == nullptr) return std::chrono::milliseconds(1000);
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  // A bad value is not worth failing a run for: the default applies.
  if (end == text || *end != '\0' || value < 10 || value > 3'600'000) return std::chrono::milliseconds(1000);
  return std::chrono::milliseconds(value);
}

std::string seconds_since(std::chrono::steady_clock::time_point since) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  return fixed(s, 0) + " s";
}

}  // namespace

ProgressLines::ProgressLines(std::string command, std::string unit, bool enabled)
    : command_(std::move(command)),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()),
      interval_(interval_from_environment()),
      current_since_(start_) {
  if (!enabled) return;
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error&) {
    // No thread for progress lines: the command runs silently, as with --quiet.
  }
}

ProgressLines::~ProgressLines() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressLines::set(std::size_t done, std::size_t total, std::string current) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = done;
  total_ = total;
  if (current != current_) current_since_ = std::chrono::steady_clock::now();
  current_ = std::move(current);
  states_.store(0, std::memory_order_relaxed);
}

std::string ProgressLines::line() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string text = command_ + ": " + std::to_string(done_) + (total_ > 0 ? " of " + std::to_string(total_) : "") +
                     " " + unit_ + " done";
  if (total_ > done_) text += ", " + std::to_string(total_ - done_) + " left";
  if (!current_.empty()) {
    text += "; now " + current_ + " (" + seconds_since(current_since_);
    const uint64_t states = states_.load(std::memory_order_relaxed);
    if (states > 0) text += ", " + std::to_string(states) + " states";
    text += ")";
  }
  return text + "; " + seconds_since(start_) + " elapsed";
}

void ProgressLines::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    const std::string text = line();
    std::cerr << text << "\n" << std::flush;
    lock.lock();
  }
}

}  // namespace isr::cli
