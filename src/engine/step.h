// Step: one piece of a scheduler pass, and the context it runs in.
//
// A step is a small class with one entry point, run(ctx), returning the
// counts of what it did. It claims its own rows (a conditional UPDATE on the
// value it read), so two schedulers running it at once never do an item
// twice; it handles each item's error itself, so one bad item never stops the
// others. An exception escaping run() fails the step: the pass logs it with
// the step's id and goes on to the next step, and writes no heartbeat.
//
// Steps that work through a list check ctx.budget before starting each item:
// once spent, they start nothing more and the rest keep their place for the
// next pass. A step never cuts off an item it has started.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "store/cache.h"
#include "store/db.h"

namespace peto::engine {

// Named counts, e.g. {"checked", 25}, {"damaged", 1}. Absent means zero.
using Counts = std::map<std::string, std::int64_t>;

// The count of `key`, 0 when absent.
inline std::int64_t count_of(const Counts& counts, const std::string& key) {
  auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

// The usual summary: "<n> <words>" for each (key, words) whose count is not
// zero, in the order given.
inline std::vector<std::string> summary_lines(
    const Counts& counts, std::initializer_list<std::pair<const char*, const char*>> lines) {
  std::vector<std::string> out;
  for (const auto& [key, words] : lines)
    if (auto n = count_of(counts, key); n != 0) out.push_back(std::to_string(n) + " " + words);
  return out;
}

// Time for starting new work, measured on the monotonic clock.
class Budget {
 public:
  Budget(const Clock& clock, std::chrono::milliseconds limit)
      : clock_(clock), start_(clock.mono()), limit_(limit) {}
  // A limit of zero never runs out.
  bool spent() const { return limit_.count() > 0 && clock_.mono() - start_ >= limit_; }
  std::chrono::milliseconds limit() const { return limit_; }

 private:
  const Clock& clock_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds limit_;
};

struct PassContext {
  store::Db& db;
  store::Cache& cache;
  const Clock& clock;
  const Config& config;
  std::chrono::milliseconds sync_budget{120'000};
  std::string pass_id;

  Budget budget(std::chrono::milliseconds limit) const { return Budget(clock, limit); }
};

class Step {
 public:
  virtual ~Step() = default;
  // A stable name for logs, metrics and --json ("scrub", "sweep" …).
  virtual std::string_view id() const = 0;
  virtual Counts run(PassContext& ctx) = 0;
  // The lines this step adds to the pass summary for these counts; each line
  // only when its figure is non-zero.
  virtual std::vector<std::string> summary(const Counts&) const { return {}; }
};

}  // namespace peto::engine
