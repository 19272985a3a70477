#include "steps/reminders.h"

#include "domain/due.h"
#include "notify/announcements.h"
#include "notify/outbox.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kAnnounced{"announced", "{n} reminder announced",
                                    "{n} reminders announced"};
}  // namespace

engine::StepResult Reminders::run(engine::PassContext& ctx) {
  using notify::Outbox;
  engine::StepResult result{kAnnounced};
  Outbox outbox(ctx.clock, ctx.config);
  auto budget = ctx.budget(std::chrono::seconds(60));
  auto conn = ctx.db.acquire();
  while (!budget.spent()) {
    Millis now = ctx.clock.now_ms();
    auto due = domain::due::reminders(*conn, now, kPerTransaction);
    if (due.empty()) break;
    std::vector<std::int64_t> ids, owners;
    for (const auto& r : due) {
      ids.push_back(r.id);
      owners.push_back(r.owner_id);
    }
    std::int64_t announced = store::with_write(*conn, [&](store::Conn& c) {
      // The claim: only rows still unannounced (and not done meanwhile) are ours.
      auto claimed = domain::due::claim_reminders(c, ids, now);
      if (claimed.empty()) return std::int64_t{0};
      auto recipients = Outbox::recipients(c, owners);
      auto targets = Outbox::targets(c, owners);
      std::vector<Outbox::Announcement> batch;
      for (const auto& r : due) {
        if (!claimed.count(r.id)) continue;
        auto to = recipients.find(r.owner_id);
        if (to == recipients.end()) continue;  // deactivated since the read: stamped, not told
        std::optional<notify::Named> application;
        if (r.application)
          application =
              notify::Named{r.application->id, r.application->role, r.application->company};
        batch.push_back({&to->second,
                         notify::reminder_due(to->second, r.id, r.title, r.due_at, application,
                                              ctx.config.public_url),
                         &targets[r.owner_id]});
      }
      outbox.announce_all(c, batch);
      return static_cast<std::int64_t>(batch.size());
    });
    result.add(kAnnounced, announced);
    if (due.size() < static_cast<std::size_t>(kPerTransaction)) break;
  }
  return result;
}

}  // namespace peto::steps
