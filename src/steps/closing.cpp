#include "steps/closing.h"

#include "core/log.h"
#include "core/timezone.h"
#include "domain/due.h"
#include "notify/announcements.h"
#include "notify/outbox.h"

namespace peto::steps {

namespace {

constexpr engine::Figure kListings{"listings", "{n} closing listing announced",
                                   "{n} closing listings announced"};
constexpr engine::Figure kErrors{"errors"};

}  // namespace

engine::StepResult Closing::run(engine::PassContext& ctx) {
  using notify::Outbox;
  engine::StepResult result{kListings, kErrors};
  Outbox outbox(ctx.clock, ctx.config);
  Millis now = ctx.clock.now_ms();
  // Yesterday in UTC is on or before today everywhere: a cheap first cut.
  std::string earliest = add_days(format_time_s(now).substr(0, 10), -1);
  auto conn = ctx.db.acquire();
  for (const auto& owner : domain::due::closing_owners(*conn, earliest)) {
    try {
      notify::Recipient to{owner.id, owner.email, owner.language, owner.time_zone, true};
      std::string today = local_date(now, to.time_zone.empty() ? "UTC" : to.time_zone);
      std::string horizon = add_days(today, static_cast<int>(owner.days));
      auto soon = domain::due::closing_listings(*conn, to.id, today, horizon);
      if (soon.empty()) continue;
      std::vector<std::int64_t> ids;
      ids.reserve(soon.size());
      for (const auto& l : soon) ids.push_back(l.listing.id);
      std::int64_t told = store::with_write(*conn, [&](store::Conn& c) {
        auto claimed = domain::due::claim_closing(c, ids);
        std::vector<notify::ClosingItem> items;
        for (const auto& l : soon)
          if (auto it = claimed.find(l.listing.id); it != claimed.end())
            items.push_back(
                {notify::Named{l.listing.id, l.listing.role, l.listing.company}, it->second});
        if (items.empty()) return std::int64_t{0};
        auto targets = Outbox::targets(c, {to.id});
        outbox.announce(c, to, notify::posting_closing(to, items, ctx.config.public_url),
                        targets[to.id]);
        return static_cast<std::int64_t>(items.size());
      });
      result.add(kListings, told);
    } catch (const store::Error& e) {
      log::error("scheduler", "closing announcement failed",
                 {{"owner", owner.id}, {"error", e.what()}});
      result.add(kErrors);
    }
  }
  return result;
}

}  // namespace peto::steps
