#include "steps/quiet.h"

#include "core/log.h"
#include "domain/due.h"
#include "notify/announcements.h"
#include "notify/outbox.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kApplications{"applications", "{n} quiet application announced",
                                       "{n} quiet applications announced"};
constexpr engine::Figure kMessages{"messages"};
constexpr engine::Figure kErrors{"errors"};
}  // namespace

engine::StepResult Quiet::run(engine::PassContext& ctx) {
  using notify::Outbox;
  engine::StepResult result{kApplications, kMessages, kErrors};
  Outbox outbox(ctx.clock, ctx.config);
  Millis now = ctx.clock.now_ms();
  auto conn = ctx.db.acquire();
  for (const auto& owner : domain::due::quiet_owners(*conn)) {
    try {
      notify::Recipient to{owner.id, owner.email, owner.language, owner.time_zone, true};
      Millis cutoff = now - owner.days * 86'400'000;
      auto fresh = domain::due::quiet_applications(*conn, to.id, cutoff);
      if (fresh.empty()) continue;
      std::vector<std::int64_t> ids;
      ids.reserve(fresh.size());
      for (const auto& q : fresh) ids.push_back(q.application.id);
      std::int64_t told = store::with_write(*conn, [&](store::Conn& c) {
        auto claimed = domain::due::claim_quiet(c, ids, now);
        std::vector<notify::QuietItem> items;
        for (const auto& q : fresh)
          if (claimed.count(q.application.id))
            items.push_back(
                {notify::Named{q.application.id, q.application.role, q.application.company},
                 q.last_activity});
        if (items.empty()) return std::int64_t{0};
        auto targets = Outbox::targets(c, {to.id});
        outbox.announce(c, to, notify::went_quiet(to, items, now, ctx.config.public_url),
                        targets[to.id]);
        return static_cast<std::int64_t>(items.size());
      });
      result.add(kApplications, told);
      if (told > 0) result.add(kMessages);
    } catch (const store::Error& e) {
      log::error("scheduler", "gone-quiet announcement failed",
                 {{"owner", owner.id}, {"error", e.what()}});
      result.add(kErrors);
    }
  }
  return result;
}

}  // namespace peto::steps
