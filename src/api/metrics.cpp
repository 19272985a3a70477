#include "api/metrics.h"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/log.h"
#include "engine/lease.h"
#include "engine/pass.h"
#include "engine/queue.h"

namespace peto::web {

namespace {

// Label values are step ids and count names from code; escaping keeps the
// format valid whatever they become.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void scheduler_metrics(store::Db& db, const Clock& clock, std::ostringstream& out) {
  store::Cache cache(db, clock);
  auto last = cache.get(engine::kLastPassKey);
  out << "# HELP peto_scheduler_last_pass_timestamp_seconds When the last finished pass started.\n"
         "# TYPE peto_scheduler_last_pass_timestamp_seconds gauge\n";
  if (!last) {
    out << "peto_scheduler_last_pass_timestamp_seconds 0\n";
  } else {
    auto j = nlohmann::json::parse(*last, nullptr, false);
    if (j.is_object()) {
      auto started = parse_time(j.value("started_at", ""));
      out << "peto_scheduler_last_pass_timestamp_seconds " << (started ? *started / 1000.0 : 0)
          << "\n";
      out << "# HELP peto_scheduler_pass_duration_seconds How long the last finished pass took.\n"
             "# TYPE peto_scheduler_pass_duration_seconds gauge\n"
          << "peto_scheduler_pass_duration_seconds " << j.value("duration_ms", 0.0) / 1000.0
          << "\n";
      out << "# HELP peto_scheduler_step_duration_seconds Each step's time in the last pass.\n"
             "# TYPE peto_scheduler_step_duration_seconds gauge\n";
      for (const auto& s : j.value("steps", nlohmann::json::array()))
        out << "peto_scheduler_step_duration_seconds{step=\"" << label(s.value("id", "")) << "\"} "
            << s.value("duration_ms", 0.0) / 1000.0 << "\n";
      out << "# HELP peto_scheduler_step_count What each step did in the last pass.\n"
             "# TYPE peto_scheduler_step_count gauge\n";
      for (const auto& s : j.value("steps", nlohmann::json::array()))
        for (auto it = s["counts"].begin(); it != s["counts"].end(); ++it)
          out << "peto_scheduler_step_count{step=\"" << label(s.value("id", "")) << "\",count=\""
              << label(it.key()) << "\"} " << it.value().get<long long>() << "\n";
    }
  }
  auto lease = engine::PassLease(db, clock).stats();
  out << "# HELP peto_scheduler_passes_total Passes that have taken the lease.\n"
         "# TYPE peto_scheduler_passes_total counter\n"
      << "peto_scheduler_passes_total " << lease.passes << "\n";
  out << "# HELP peto_scheduler_lease_takeovers_total Leases taken after the holder let them run "
         "out.\n"
         "# TYPE peto_scheduler_lease_takeovers_total counter\n"
      << "peto_scheduler_lease_takeovers_total " << lease.takeovers << "\n";
}

void queue_metrics(store::Db& db, const Clock& clock, std::ostringstream& out) {
  auto stats = engine::Queue(db, clock).stats();
  out << "# HELP peto_tasks Tasks in the queue table by queue and state.\n"
         "# TYPE peto_tasks gauge\n";
  for (const auto& c : stats.by_queue)
    out << "peto_tasks{queue=\"" << label(c.group) << "\",state=\"" << label(c.state) << "\"} "
        << c.count << "\n";
  out << "# HELP peto_tasks_oldest_available_age_seconds Age of the oldest task due and waiting.\n"
         "# TYPE peto_tasks_oldest_available_age_seconds gauge\n";
  for (const auto& [queue, run_at] : stats.oldest_available)
    out << "peto_tasks_oldest_available_age_seconds{queue=\"" << label(queue) << "\"} "
        << std::max<std::int64_t>(0, clock.now_ms() - run_at) / 1000.0 << "\n";
  out << "# HELP peto_tasks_finished Finished tasks kept (7 days) by kind and outcome.\n"
         "# TYPE peto_tasks_finished gauge\n";
  for (const auto& c : stats.finished)
    out << "peto_tasks_finished{kind=\"" << label(c.group) << "\",state=\"" << label(c.state)
        << "\"} " << c.count << "\n";
}

}  // namespace

std::string render_metrics(const MetricsDeps& deps) {
  std::ostringstream out;
  bool up = false;
  std::ostringstream body;
  body << std::fixed << std::setprecision(3);
  try {
    if (deps.db) {
      const Clock& clock = deps.clock ? *deps.clock : system_clock();
      scheduler_metrics(*deps.db, clock, body);
      queue_metrics(*deps.db, clock, body);
      up = true;
    }
  } catch (const std::exception& e) {
    log::warn("metrics", "could not read the metrics", {{"error", e.what()}});
  }
  out << "# HELP peto_up Whether peto could read its database.\n# TYPE peto_up gauge\npeto_up "
      << (up ? 1 : 0) << "\n";
  if (up) out << body.str();
  // Counted last, so that a scrape's own statements are in it: a benchmark
  // reads it before and after some requests and subtracts one scrape.
  if (deps.db != nullptr)
    out << "# HELP peto_db_statements_total SQL statements this process has run.\n"
           "# TYPE peto_db_statements_total counter\npeto_db_statements_total "
        << deps.db->statements_run() << "\n";
  return out.str();
}

void add_metrics_route(Router& router, const MetricsDeps& deps) {
  router.add(
      "GET", "/metrics",
      [deps](Request&) {
        Response r = Response::text(200, render_metrics(deps));
        r.set_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        return r;
      },
      "Prometheus metrics");
}

}  // namespace peto::web
