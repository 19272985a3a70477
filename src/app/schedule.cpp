// `peto schedule`: one pass of the scheduler, or a loop of them.
#include <iostream>

#include "app/app.h"
#include "app/signals.h"
#include "core/log.h"
#include "engine/pass.h"
#include "steps/all.h"

namespace peto::app {

namespace {

std::string minute_prefix(Millis ms) {
  std::string minute = format_time_s(ms).substr(0, 16);  // "YYYY-MM-DDTHH:MM"
  minute[10] = ' ';  // (replace() here trips g++ 12's -Wrestrict at -O3)
  return minute;
}

engine::Scheduler make_scheduler(App& app, const ScheduleOptions& o) {
  engine::Scheduler::Options opts;
  opts.every = std::chrono::seconds(o.every_s);
  opts.sync_budget = std::chrono::seconds(o.sync_budget_s);
  opts.heartbeat_path = app.config.scheduler_heartbeat();
  opts.after_lease = steps::after_lease();
  return engine::Scheduler(*app.db, *app.clock, app.config, opts, steps::all());
}

// Runs one pass and prints what it did; false when the pass failed.
bool run_and_report(engine::Scheduler& scheduler, const ScheduleOptions& o) {
  engine::PassReport report;
  try {
    report = scheduler.run_pass();
  } catch (const std::exception& e) {
    log::error("scheduler", "a scheduler pass ended badly", {{"error", e.what()}});
    if (o.json)
      std::cout << nlohmann::json{{"outcome", "failed"}, {"error", e.what()}}.dump() << "\n";
    return false;
  }
  if (o.json) {
    std::cout << report.to_json().dump() << std::endl;
  } else if (report.outcome == engine::PassReport::Outcome::skipped) {
    std::cout << "Another scheduler is mid-pass; leaving this one to it." << std::endl;
    for (const auto& line : report.summary_lines())
      std::cout << minute_prefix(report.started_at) << " " << line << std::endl;
  } else {
    auto lines = report.summary_lines();
    for (const auto& line : lines)
      std::cout << minute_prefix(report.started_at) << " " << line << "\n";
    if (lines.empty() && !o.loop && report.outcome == engine::PassReport::Outcome::ran)
      std::cout << "Nothing due."
                << "\n";
    std::cout.flush();
  }
  return report.outcome == engine::PassReport::Outcome::ran ||
         report.outcome == engine::PassReport::Outcome::skipped;
}

}  // namespace

void scheduler_loop(App& app, const ScheduleOptions& o, StopSignals& signals) {
  auto scheduler = make_scheduler(app, o);
  log::info("scheduler", "scheduler started", {{"every_s", o.every_s}});
  while (!signals.stopping()) {
    run_and_report(scheduler, o);
    if (signals.wait_for(std::chrono::seconds(std::max(o.every_s, 10)))) break;
  }
  log::info("scheduler", "scheduler stopped");
}

int cmd_schedule(App& app, const ScheduleOptions& o) {
  StopSignals signals;
  if (int rc = app.open_db(); rc != 0) return rc;
  if (!o.loop) {
    auto scheduler = make_scheduler(app, o);
    return run_and_report(scheduler, o) ? 0 : 1;
  }
  scheduler_loop(app, o, signals);
  return 0;
}

}  // namespace peto::app
