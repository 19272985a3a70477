// /metrics: Prometheus text format (version 0.0.4).
//
// What the scheduler recorded about its last finished pass (read from the
// database, so any web node can answer for a scheduler on another machine):
// when it finished, how long it took, each step's counts and duration, and
// how often the pass lease was taken over from a holder that never released
// it; and the task queue: tasks by queue and state, the age of the oldest due
// task per queue, finished tasks by kind and outcome. Never throws; a database that cannot be read
// gives peto_up 0. peto_db_statements_total counts the SQL statements this
// process has run (what the benchmarks divide by the pages they asked for).
#pragma once

#include <string>

#include "core/clock.h"
#include "http/router.h"
#include "store/db.h"

namespace peto::web {

struct MetricsDeps {
  store::Db* db = nullptr;
  const Clock* clock = nullptr;
};

void add_metrics_route(Router& router, const MetricsDeps& deps);
std::string render_metrics(const MetricsDeps& deps);

}  // namespace peto::web
