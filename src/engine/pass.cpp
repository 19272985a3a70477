#include "engine/pass.h"

#include "core/log.h"

namespace peto::engine {

namespace {

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

const char* outcome_name(PassReport::Outcome o) {
  switch (o) {
    case PassReport::Outcome::ran:
      return "ran";
    case PassReport::Outcome::skipped:
      return "skipped";
    case PassReport::Outcome::lost_lease:
      return "lost_lease";
    default:
      return "failed";
  }
}

nlohmann::json step_json(const StepReport& s) {
  nlohmann::json step = {{"id", s.id}, {"duration_ms", s.ms}, {"counts", s.counts}};
  if (s.failed) step["error"] = s.error;
  return step;
}

}  // namespace

bool PassReport::all_zero() const {
  for (const auto* list : {&steps, &after_lease})
    for (const auto& s : *list)
      for (const auto& [k, v] : s.counts)
        if (v != 0) return false;
  return true;
}

std::vector<std::string> PassReport::summary_lines() const {
  std::vector<std::string> lines;
  for (const auto* list : {&steps, &after_lease})
    for (const auto& report : *list)
      lines.insert(lines.end(), report.summary.begin(), report.summary.end());
  return lines;
}

nlohmann::json PassReport::to_json() const {
  nlohmann::json j = {{"pass_id", pass_id}, {"outcome", outcome_name(outcome)},
                      {"epoch", epoch},     {"started_at", format_time(started_at)},
                      {"duration_ms", ms},  {"steps", nlohmann::json::array()}};
  for (const auto& s : steps) j["steps"].push_back(step_json(s));
  if (!after_lease.empty()) {
    j["after_lease"] = nlohmann::json::array();
    for (const auto& s : after_lease) j["after_lease"].push_back(step_json(s));
  }
  return j;
}

Scheduler::Scheduler(store::Db& db, const Clock& clock, const Config& config, Options options,
                     std::vector<std::unique_ptr<Step>> steps)
    : db_(db),
      clock_(clock),
      config_(config),
      options_(std::move(options)),
      steps_(std::move(steps)),
      cache_(db, clock),
      lease_(db, clock) {
  if (options_.every < std::chrono::seconds(10)) options_.every = std::chrono::seconds(10);
}

std::chrono::milliseconds Scheduler::lease_ttl() const {
  return std::max<std::chrono::milliseconds>(2 * options_.every, std::chrono::seconds(60));
}

StepReport Scheduler::run_step(Step& step, PassContext& ctx) {
  StepReport report;
  report.id = std::string(step.id());
  auto start = clock_.mono();
  try {
    StepResult result = step.run(ctx);
    report.counts = result.counts();
    report.summary = result.summary();
  } catch (const std::exception& e) {
    report.failed = true;
    report.error = e.what();
    log::error("scheduler", "step failed; the pass goes on",
               {{"step", report.id}, {"error", report.error}});
  }
  report.ms = ms_between(start, clock_.mono());
  return report;
}

PassReport Scheduler::run_pass() {
  PassReport report;
  report.pass_id = log::new_scope_id("pass");
  log::Scope scope(report.pass_id);
  report.started_at = clock_.now_ms();
  auto start = clock_.mono();
  const auto ttl = lease_ttl();

  auto after_lease = [&] {
    PassContext outside{db_, cache_, clock_, config_, options_.sync_budget, report.pass_id};
    for (const auto& step : options_.after_lease)
      report.after_lease.push_back(run_step(*step, outside));
  };
  const Millis asked_at = clock_.now_ms();
  auto held = lease_.acquire(ttl);
  if (!held) {
    report.outcome = PassReport::Outcome::skipped;
    after_lease();
    return report;
  }
  report.epoch = held->epoch;
  if (observer_.acquired) observer_.acquired(held->epoch);
  if (observer_.confirmed) observer_.confirmed(held->epoch, asked_at);

  PassContext ctx{db_, cache_, clock_, config_, options_.sync_budget, report.pass_id};
  // The lease cannot have run out before a third of its TTL has gone since
  // it was last confirmed, so renewing earlier would only cost a statement.
  auto confirmed = start;
  bool failed = false;
  for (auto& step : steps_) {
    if (clock_.mono() - confirmed >= ttl / 3) {
      auto asked = clock_.mono();
      const Millis renewing_at = clock_.now_ms();
      if (!lease_.renew(*held, ttl)) {
        log::warn("scheduler",
                  "the pass lease was taken over (this pass outlived it); stopping before the "
                  "next step",
                  {{"next_step", std::string(step->id())}, {"epoch", held->epoch}});
        report.outcome = PassReport::Outcome::lost_lease;
        report.ms = ms_between(start, clock_.mono());
        after_lease();
        return report;
      }
      confirmed = asked;
      if (observer_.confirmed) observer_.confirmed(held->epoch, renewing_at);
    }
    report.steps.push_back(run_step(*step, ctx));
    failed = failed || report.steps.back().failed;
  }

  if (observer_.releasing) observer_.releasing(held->epoch);
  if (!lease_.release(*held))
    log::warn("scheduler", "the pass lease was taken over before the pass released it",
              {{"epoch", held->epoch}});
  report.ms = ms_between(start, clock_.mono());
  after_lease();
  if (failed) {
    report.outcome = PassReport::Outcome::failed;
    return report;
  }
  record(report);
  return report;
}

void Scheduler::record(const PassReport& report) {
  try {
    cache_.set(kLastPassKey, report.to_json().dump(), std::chrono::milliseconds(0));
  } catch (const store::Error& e) {
    log::warn("scheduler", "could not record the pass for /metrics", {{"error", e.what()}});
  }
  if (!options_.heartbeat_path.empty()) {
    if (Status s = write_heartbeat(options_.heartbeat_path, clock_.now_ms()); !s)
      log::error("scheduler", "could not write the heartbeat", {{"error", s.message()}});
  }
}

}  // namespace peto::engine
