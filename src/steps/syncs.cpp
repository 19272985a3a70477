#include "steps/syncs.h"

#include "core/log.h"
#include "net/http.h"
#include "sync/syncs.h"

namespace peto::steps {

engine::Counts Syncs::run(engine::PassContext& ctx) {
  static const net::HttpClient http;
  sync::Syncs syncs(ctx.db, ctx.cache, ctx.clock, ctx.config, http);
  engine::Counts counts;
  auto budget = ctx.budget(ctx.sync_budget);
  auto due = syncs.due();
  for (std::size_t i = 0; i < due.size(); ++i) {
    if (budget.spent()) {
      log::info("syncs",
                "Sync budget of " + std::to_string(budget.limit().count() / 1000) +
                    "s spent; the rest wait for the next pass",
                {{"left", due.size() - i}});
      counts["left"] += static_cast<std::int64_t>(due.size() - i);
      break;
    }
    try {
      switch (syncs.run_turn(due[i])) {
        case sync::Syncs::Turn::claimed_elsewhere:
          break;
        case sync::Syncs::Turn::failed:
          ++counts["failed"];
          ++counts["ran"];
          break;
        default:
          ++counts["ran"];
      }
    } catch (const std::exception& e) {
      // The database failed under this sync: it is due again after its interval.
      log::error("syncs", "sync failed", {{"connection", due[i].id}, {"error", e.what()}});
      ++counts["failed"];
      ++counts["ran"];
    }
  }
  return counts;
}

std::vector<std::string> Syncs::summary(const engine::Counts& c) const {
  auto at = [&](const char* k) { return engine::count_of(c, k); };
  std::vector<std::string> lines;
  if (at("ran")) {
    std::string line = std::to_string(at("ran")) + (at("ran") == 1 ? " sync ran" : " syncs ran");
    if (at("failed")) line += ", " + std::to_string(at("failed")) + " failed";
    lines.push_back(line);
  }
  if (at("left")) lines.push_back(std::to_string(at("left")) + " syncs wait for the next pass");
  return lines;
}

}  // namespace peto::steps
