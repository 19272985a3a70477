#include "steps/deliveries.h"

#include "net/http.h"
#include "notify/outbox.h"

namespace peto::steps {

engine::Counts Deliveries::run(engine::PassContext& ctx) {
  notify::Outbox outbox(ctx.clock, ctx.config);
  net::HttpClient http;
  return outbox.deliver_due(ctx.db, http, ctx.budget(kBudget));
}

std::vector<std::string> Deliveries::summary(const engine::Counts& c) const {
  return engine::summary_lines(c, {{"sent", "notices delivered"},
                                   {"failed", "deliveries failed (will retry)"},
                                   {"given_up", "deliveries given up"},
                                   {"retired", "connections switched off as unusable"}});
}

}  // namespace peto::steps
