#include "steps/syncs.h"

#include "core/log.h"
#include "net/http.h"
#include "sync/syncs.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kRan{"ran", "{n} sync ran", "{n} syncs ran"};
constexpr engine::Figure kFailed{"failed", "{n} sync failed", "{n} syncs failed"};
constexpr engine::Figure kLeft{"left", "{n} sync waits for the next pass",
                               "{n} syncs wait for the next pass"};
}  // namespace

engine::StepResult Syncs::run(engine::PassContext& ctx) {
  static const net::HttpClient http;
  sync::Syncs syncs(ctx.db, ctx.cache, ctx.clock, ctx.config, http);
  engine::StepResult result{kRan, kFailed, kLeft};
  auto budget = ctx.budget(ctx.sync_budget);
  auto due = syncs.due();
  for (std::size_t i = 0; i < due.size(); ++i) {
    if (budget.spent()) {
      log::info("syncs",
                "Sync budget of " + std::to_string(budget.limit().count() / 1000) +
                    "s spent; the rest wait for the next pass",
                {{"left", due.size() - i}});
      result.add(kLeft, static_cast<std::int64_t>(due.size() - i));
      break;
    }
    try {
      switch (syncs.run_turn(due[i])) {
        case sync::Syncs::Turn::claimed_elsewhere:
          break;
        case sync::Syncs::Turn::failed:
          result.add(kFailed);
          result.add(kRan);
          break;
        default:
          result.add(kRan);
      }
    } catch (const std::exception& e) {
      // The database failed under this sync: it is due again after its interval.
      log::error("syncs", "sync failed", {{"connection", due[i].id}, {"error", e.what()}});
      result.add(kFailed);
      result.add(kRan);
    }
  }
  return result;
}

}  // namespace peto::steps
