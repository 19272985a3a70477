#include "steps/copies.h"

#include "core/log.h"
#include "media/copies.h"
#include "net/http.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kSent{"sent", "{n} document copy sent", "{n} document copies sent"};
constexpr engine::Figure kFailed{"failed", "{n} document copy failed",
                                 "{n} document copies failed"};
constexpr engine::Figure kLeft{"left"};
constexpr engine::Figure kErrors{"errors"};
}  // namespace

engine::StepResult Copies::run(engine::PassContext& ctx) {
  static const net::HttpClient http;
  media::Copies copies(ctx.db, ctx.clock, ctx.config, http);
  engine::StepResult result{kSent, kFailed, kLeft, kErrors};
  auto budget = ctx.budget(kBudget);
  auto due = copies.due();
  for (std::size_t i = 0; i < due.size(); ++i) {
    if (budget.spent()) {
      result.add(kLeft, static_cast<std::int64_t>(due.size() - i));
      break;
    }
    std::int64_t id = due[i];
    try {
      auto claim = copies.claim(id);
      if (!claim) continue;  // another sender has it
      auto outcome = copies.attempt(id, *claim);
      if (outcome == media::CopyOutcome::sent)
        result.add(kSent);
      else if (outcome != media::CopyOutcome::busy)
        result.add(kFailed);
    } catch (const std::exception& e) {
      // The database failed under this copy: its claim brings it back in 15 minutes.
      log::error("copies", "copy failed", {{"copy", id}, {"error", e.what()}});
      result.add(kErrors);
    }
  }
  return result;
}

}  // namespace peto::steps
