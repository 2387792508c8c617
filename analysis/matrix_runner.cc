// The matrix's parallel runner (run_matrix, see matrix.h): validates every cell and row
// before any work, checks each distinct configuration once on `jobs` threads from one
// queue (copies-lost rows first, the longest tasks), reads and writes the cache, reports
// progress and hands duplicates the result of their first.
#include "analysis/matrix.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analysis/matrix_cache.h"
#include "analysis/matrix_cell.h"
#include "analysis/matrix_copies_lost.h"

namespace isr::analysis {

MatrixResult run_matrix(const std::vector<MatrixCell>& cells, const MatrixOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string salt = options.salt.empty() ? matrix_model_salt() : options.salt;

  MatrixResult result;
  result.availability = options.availability;
  result.copies_lost = options.copies_lost;
  result.max_states = options.max_states;
  result.cells.resize(cells.size());
  std::vector<spec::Config> configs;
  configs.reserve(cells.size());
  // Cells with the same configuration (for instance from a sweep listing a value twice)
  // are computed once; so are rows.
  std::map<std::string, size_t> first_with_key;
  std::map<std::string, size_t> first_row_with_key;
  // One queue for both kinds of work, rows first: a row's searches are the longest
  // single tasks of a sweep (k = 2 at RF 3 is millions of states), and starting them
  // early keeps the jobs busy to the end.
  struct Task {
    bool row;
    size_t index;
  };
  std::vector<Task> work;
  std::set<std::string> row_ids;
  for (size_t i = 0; i < cells.size(); ++i) {
    configs.push_back(matrix_cell_config(options.base, options.overrides, cells[i]));
    CellResult& r = result.cells[i];
    r.cell = cells[i];
    r.config = spec::to_json(configs.back());
    r.key = matrix_cell_key(r.config, options, salt);
    if (!options.copies_lost || !row_ids.insert(cells[i].row_id()).second) continue;
    RowResult row;
    row.row = cells[i];
    row.row.failures = 0;
    row.row.lossy = false;
    // Validated here, before any work, like the cells.
    row.config = spec::to_json(copies_lost_config(options.base, options.overrides, row.row, 1));
    row.key = copies_lost_key(row.config, options, salt);
    result.rows.push_back(std::move(row));
    if (first_row_with_key.emplace(result.rows.back().key, result.rows.size() - 1).second) {
      work.push_back(Task{true, result.rows.size() - 1});
    }
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (first_with_key.emplace(result.cells[i].key, i).second) work.push_back(Task{false, i});
  }

  std::mutex mutex;
  MatrixProgress progress;
  progress.total = static_cast<int>(cells.size());
  progress.rows_total = static_cast<int>(result.rows.size());
  std::atomic<size_t> next{0};
  auto report = [&](const CellResult& r, int copies) {
    std::lock_guard<std::mutex> lock(mutex);
    progress.done += copies;
    if (r.red()) progress.red += copies;
    if (r.durability == Durability::Incomplete || r.availability == "incomplete") {
      progress.incomplete += copies;
    }
    if (r.from_cache) progress.cache_hits += copies;
    progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress) options.progress(progress);
  };
  auto report_row = [&](int copies) {
    std::lock_guard<std::mutex> lock(mutex);
    progress.rows_done += copies;
    progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress) options.progress(progress);
  };
  std::map<size_t, int> copies_of;
  for (size_t i = 0; i < cells.size(); ++i) ++copies_of[first_with_key[result.cells[i].key]];
  std::map<size_t, int> row_copies_of;
  for (const RowResult& row : result.rows) ++row_copies_of[first_row_with_key[row.key]];

  std::atomic<bool> interrupted{false};
  std::atomic<int> computed{0};
  std::atomic<int> hits{0};
  std::atomic<int> rows_computed{0};
  std::atomic<int> row_hits{0};
  auto stop_requested = [&] { return options.interrupt != nullptr && options.interrupt->load(); };
  // A task's result: from the cache when it has it, else computed by compute(stopped)
  // and cached, unless a search was stopped (an unfinished result is never cached).
  auto cached_or_computed = [&](auto& r, std::atomic<int>& from_cache, std::atomic<int>& computed_here,
                                auto compute) {
    if (!options.cache_dir.empty() && read_cached(options.cache_dir, r)) {
      r.from_cache = true;
      ++from_cache;
      return;
    }
    bool stopped = false;
    compute(stopped);
    ++computed_here;
    if (stopped) {
      interrupted = true;
    } else if (!options.cache_dir.empty()) {
      write_cached(options.cache_dir, r);
    }
  };
  auto run_row = [&](size_t i) {
    RowResult& r = result.rows[i];
    if (stop_requested()) {
      interrupted = true;
      r.verdict = CopiesLost::Incomplete;
      return;
    }
    cached_or_computed(r, row_hits, rows_computed, [&](bool& stopped) { search_copies_lost(options, r, stopped); });
    report_row(row_copies_of[i]);
  };
  auto run_cell = [&](size_t i) {
    CellResult& r = result.cells[i];
    if (stop_requested()) {
      interrupted = true;
      r.durability = Durability::Incomplete;
      return;
    }
    cached_or_computed(r, hits, computed,
                       [&](bool& stopped) { check_matrix_cell(configs[i], r.cell, options, r, stopped); });
    report(r, copies_of[i]);
  };
  auto worker = [&] {
    while (true) {
      const size_t w = next.fetch_add(1);
      if (w >= work.size()) return;
      if (work[w].row) {
        run_row(work[w].index);
      } else {
        run_cell(work[w].index);
      }
    }
  };
  const int jobs = std::clamp<int>(options.jobs, 1, static_cast<int>(std::max<size_t>(work.size(), 1)));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();

  // Copies take the computed result of the first cell with their configuration.
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t first = first_with_key[result.cells[i].key];
    if (first != i) {
      const MatrixCell cell = result.cells[i].cell;
      result.cells[i] = result.cells[first];
      result.cells[i].cell = cell;
    }
    const CellResult& r = result.cells[i];
    if (r.red()) ++result.red;
    if (r.gone()) ++result.gone;
    if (r.durability == Durability::Incomplete || r.availability == "incomplete") ++result.incomplete;
  }
  for (size_t i = 0; i < result.rows.size(); ++i) {
    const size_t first = first_row_with_key[result.rows[i].key];
    if (first != i) {
      const MatrixCell row = result.rows[i].row;
      result.rows[i] = result.rows[first];
      result.rows[i].row = row;
    }
    if (result.rows[i].verdict == CopiesLost::Incomplete) ++result.rows_incomplete;
  }
  result.computed = computed.load();
  result.cache_hits = hits.load();
  result.rows_computed = rows_computed.load();
  result.rows_from_cache = row_hits.load();
  result.interrupted = interrupted.load();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace isr::analysis
