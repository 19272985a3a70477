// Step: one piece of a scheduler pass, and the context it runs in.
//
// A step is a small class with one entry point, run(ctx), returning what it
// did as a StepResult: a count per declared Figure, which also says how the pass
// summary words it. It claims its own rows (a conditional UPDATE on the
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

// One figure a step reports: its key (in --json, in /metrics and to tests)
// and, when the pass summary shows it, its words for one and for many, where
// "{n}" stands for the count: {"sent", "{n} notice delivered", "{n} notices
// delivered"}. A figure without words is counted but never summarised.
struct Figure {
  std::string_view key;
  std::string_view one = {};
  std::string_view many = {};
};

// What a step did: a count per figure, in the order the step declares them.
//
//   static constexpr engine::Figure kSent{"sent", "{n} copy sent", "{n} copies sent"};
//   engine::StepResult result{kSent, kFailed};
//   result.add(kSent);
//
// The one summary writer of every step is summary(): a line per non-zero
// figure that has words, in declaration order.
class StepResult {
 public:
  StepResult() = default;
  StepResult(std::initializer_list<Figure> declared);

  // Adds n to `f` (declared or not; an undeclared one goes last).
  void add(const Figure& f, std::int64_t n = 1);
  // Adds every count of `other` (the per-thread results of one step).
  void merge(const StepResult& other);
  std::int64_t operator[](std::string_view key) const;
  std::int64_t operator[](const Figure& f) const { return (*this)[f.key]; }

  // key -> count, zeros included, for --json and /metrics.
  Counts counts() const;
  std::vector<std::string> summary() const;
  bool all_zero() const;

 private:
  std::vector<std::pair<Figure, std::int64_t>> figures_;
};

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
  virtual StepResult run(PassContext& ctx) = 0;
};

}  // namespace peto::engine
