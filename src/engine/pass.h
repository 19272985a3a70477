// Scheduler: runs passes of ordered steps under the fenced pass lease.
//
// One pass: take the lease (or report that another pass holds it and do
// nothing); run each step in order, renewing the lease before each one and
// stopping, with a log line, once it is no longer ours; release the lease;
// then, if every step ran and none failed, write the heartbeat and record the
// pass (for /metrics). A step that throws is logged with its id and the pass
// goes on; such a pass is "failed" and writes no heartbeat.
//
// Every log line of one pass carries its "pass-…" scope id. The Scheduler is
// used from one thread; several Schedulers (processes or nodes) on one
// database are what the lease and the steps' claims are for.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/heartbeat.h"
#include "engine/lease.h"
#include "engine/step.h"

namespace peto::engine {

struct StepReport {
  std::string id;
  Counts counts;                     // every figure of the step's Result
  std::vector<std::string> summary;  // Result::summary()
  double ms = 0;
  bool failed = false;
  std::string error;
};

struct PassReport {
  enum class Outcome { ran, skipped, lost_lease, failed };
  Outcome outcome = Outcome::ran;
  std::string pass_id;
  std::int64_t epoch = 0;
  Millis started_at = 0;
  double ms = 0;
  std::vector<StepReport> steps;
  // The steps run outside the lease, after it was released or not taken
  // (the scheduled backup).
  std::vector<StepReport> after_lease;

  bool all_zero() const;
  // The summary lines of the steps that ran, those outside the lease last.
  std::vector<std::string> summary_lines() const;
  nlohmann::json to_json() const;
};

class Scheduler {
 public:
  struct Options {
    std::chrono::seconds every{300};  // floors at 10 s
    std::chrono::milliseconds sync_budget{120'000};
    std::string heartbeat_path;  // empty: none written
    // Steps that run outside the lease, after it is released (or not taken)
    // and before the heartbeat: the scheduled backup (docs/SPEC.md §3.2). They
    // claim their own work; their reports join the pass's. One that throws is
    // logged and does not fail the pass.
    std::vector<std::shared_ptr<Step>> after_lease;
  };
  // Test hooks: called with the epoch right after the lease is taken and
  // right before it is released; `confirmed` after the lease was taken or
  // renewed, with the time read just before the statement (the lease then
  // holds until that time + lease_ttl()).
  struct Observer {
    std::function<void(std::int64_t epoch)> acquired;
    std::function<void(std::int64_t epoch)> releasing;
    std::function<void(std::int64_t epoch, Millis at)> confirmed;
  };

  Scheduler(store::Db& db, const Clock& clock, const Config& config, Options options,
            std::vector<std::unique_ptr<Step>> steps);

  PassReport run_pass();
  // TTL of the pass lease: max(2 × every, 60 s).
  std::chrono::milliseconds lease_ttl() const;
  const std::vector<std::unique_ptr<Step>>& steps() const { return steps_; }
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  StepReport run_step(Step& step, PassContext& ctx);
  void record(const PassReport& report);

  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
  Options options_;
  std::vector<std::unique_ptr<Step>> steps_;
  store::Cache cache_;
  PassLease lease_;
  Observer observer_;
};

// The cache key under which the last finished pass is recorded (JSON).
inline constexpr const char* kLastPassKey = "scheduler:last-pass";

}  // namespace peto::engine
