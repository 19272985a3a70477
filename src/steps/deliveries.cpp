#include "steps/deliveries.h"

#include "net/http.h"
#include "notify/outbox.h"

namespace peto::steps {

engine::StepResult Deliveries::run(engine::PassContext& ctx) {
  notify::Outbox outbox(ctx.clock, ctx.config);
  net::HttpClient http;
  return outbox.deliver_due(ctx.db, http, ctx.budget(kBudget));
}

}  // namespace peto::steps
