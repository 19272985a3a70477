#include "steps/announce.h"

#include <set>

#include "core/log.h"
#include "core/timezone.h"
#include "notify/announcements.h"
#include "notify/outbox.h"

namespace peto::steps {

namespace {

using notify::Outbox;

// Statuses in which an application waits for the other side, so silence means something.
constexpr const char* kQuietStatuses =
    "('applied', 'acknowledged', 'screening', 'interviewing', 'assessment')";

// The last sign of life of the application row `t`: its latest timeline
// entry, else when it was sent, else when it was made.
std::string last_activity(const std::string& t) {
  return "COALESCE((SELECT MAX(e.occurred_at) FROM application_events e"
         " WHERE e.application_id = " +
         t + ".id), " + t + ".applied_at, " + t + ".created_at)";
}

std::string line(const engine::Counts& c, const char* key, const std::string& what) {
  auto it = c.find(key);
  return it == c.end() || it->second == 0 ? std::string() : std::to_string(it->second) + " " + what;
}

std::vector<std::string> lines(std::initializer_list<std::string> maybe) {
  std::vector<std::string> out;
  for (const auto& l : maybe)
    if (!l.empty()) out.push_back(l);
  return out;
}

notify::Recipient recipient_from(const store::Row& r) {
  return notify::Recipient{r.int_at(0), r.text(1), r.text(2), r.text(3), true};
}

std::string add_days(const std::string& date, int days) {
  auto ms = parse_date_utc_ms(date);
  if (!ms) return date;
  return format_time_s(*ms + static_cast<Millis>(days) * 86'400'000).substr(0, 10);
}

}  // namespace

engine::Counts Reminders::run(engine::PassContext& ctx) {
  engine::Counts counts;
  Outbox outbox(ctx.clock, ctx.config);
  auto budget = ctx.budget(std::chrono::seconds(60));
  auto conn = ctx.db.acquire();
  while (!budget.spent()) {
    Millis now = ctx.clock.now_ms();
    auto due = conn->query(
        "SELECT r.id, r.owner_id, r.title, r.due_at, r.application_id, l.role, c.name"
        " FROM reminders r JOIN users u ON u.id = r.owner_id"
        " LEFT JOIN applications a ON a.id = r.application_id"
        " LEFT JOIN listings l ON l.id = a.listing_id"
        " LEFT JOIN companies c ON c.id = l.company_id"
        " WHERE r.done_at IS NULL AND r.notified_at IS NULL AND r.due_at <= ? AND u.active = 1"
        " ORDER BY r.due_at, r.id LIMIT ?",
        {now, kPerTransaction});
    if (due.empty()) break;
    store::Params ids{now};
    std::vector<std::int64_t> owners;
    for (const auto& r : due) {
      ids.emplace_back(r.int_at(0));
      owners.push_back(r.int_at(1));
    }
    std::int64_t announced = store::with_write(*conn, [&](store::Conn& c) {
      // The claim: only rows still unannounced (and not done meanwhile) are ours.
      auto claimed_rows = c.query(
          "UPDATE reminders SET notified_at = ? WHERE notified_at IS NULL"
          " AND done_at IS NULL AND id IN " +
              store::placeholders(ids.size() - 1) + " RETURNING id",
          ids);
      std::set<std::int64_t> claimed;
      for (const auto& r : claimed_rows) claimed.insert(r.int_at(0));
      if (claimed.empty()) return std::int64_t{0};
      auto recipients = Outbox::recipients(c, owners);
      auto targets = Outbox::targets(c, owners);
      std::vector<Outbox::Announcement> batch;
      for (const auto& r : due) {
        if (!claimed.count(r.int_at(0))) continue;
        auto to = recipients.find(r.int_at(1));
        if (to == recipients.end()) continue;  // deactivated since the read: stamped, not told
        std::optional<notify::Named> application;
        if (!r.is_null(4)) application = notify::Named{r.int_at(4), r.text(5), r.text(6)};
        batch.push_back({&to->second,
                         notify::reminder_due(to->second, r.int_at(0), r.text(2), r.int_at(3),
                                              application, ctx.config.public_url),
                         &targets[r.int_at(1)]});
      }
      outbox.announce_all(c, batch);
      return static_cast<std::int64_t>(batch.size());
    });
    counts["announced"] += announced;
    if (due.size() < static_cast<std::size_t>(kPerTransaction)) break;
  }
  return counts;
}

std::vector<std::string> Reminders::summary(const engine::Counts& c) const {
  return lines({line(c, "announced", "reminders announced")});
}

engine::Counts Quiet::run(engine::PassContext& ctx) {
  engine::Counts counts;
  Outbox outbox(ctx.clock, ctx.config);
  Millis now = ctx.clock.now_ms();
  auto conn = ctx.db.acquire();
  auto owners = conn->query(
      std::string("SELECT u.id, u.email, u.language, u.time_zone, u.quiet_after_days FROM users u"
                  " WHERE u.active = 1 AND u.quiet_after_days > 0 AND EXISTS (SELECT 1 FROM"
                  " applications a WHERE a.owner_id = u.id AND a.status IN ") +
      kQuietStatuses + ") ORDER BY u.id");
  for (const auto& owner : owners) {
    try {
      notify::Recipient to = recipient_from(owner);
      Millis cutoff = now - owner.int_at(4) * 86'400'000;
      auto fresh = conn->query(
          std::string("SELECT q.id, l.role, c.name, q.activity FROM (SELECT a.id, a.listing_id,"
                      " a.quiet_announced_at, ") +
              last_activity("a") + " AS activity FROM applications a WHERE a.owner_id = ?" +
              " AND a.status IN " + kQuietStatuses +
              ") q JOIN listings l ON l.id = q.listing_id JOIN companies c ON c.id = l.company_id"
              " WHERE q.activity <= ? AND (q.quiet_announced_at IS NULL"
              " OR q.quiet_announced_at < q.activity) ORDER BY q.activity, q.id",
          {to.id, cutoff});
      if (fresh.empty()) continue;
      store::Params params{now};
      for (const auto& r : fresh) params.emplace_back(r.int_at(0));
      std::int64_t told = store::with_write(*conn, [&](store::Conn& c) {
        // Claimed only if still unannounced in this silence: a second
        // scheduler's claim finds quiet_announced_at >= the last activity.
        auto claimed_rows =
            c.query(std::string("UPDATE applications SET quiet_announced_at = ? WHERE id IN ") +
                        store::placeholders(params.size() - 1) +
                        " AND (quiet_announced_at IS NULL OR quiet_announced_at < " +
                        last_activity("applications") + ") RETURNING id",
                    params);
        std::set<std::int64_t> claimed;
        for (const auto& r : claimed_rows) claimed.insert(r.int_at(0));
        std::vector<notify::QuietItem> items;
        for (const auto& r : fresh)
          if (claimed.count(r.int_at(0)))
            items.push_back({notify::Named{r.int_at(0), r.text(1), r.text(2)}, r.int_at(3)});
        if (items.empty()) return std::int64_t{0};
        auto targets = Outbox::targets(c, {to.id});
        outbox.announce(c, to, notify::went_quiet(to, items, now, ctx.config.public_url),
                        targets[to.id]);
        return static_cast<std::int64_t>(items.size());
      });
      counts["applications"] += told;
      if (told > 0) ++counts["messages"];
    } catch (const store::Error& e) {
      log::error("scheduler", "gone-quiet announcement failed",
                 {{"owner", owner.int_at(0)}, {"error", e.what()}});
      ++counts["errors"];
    }
  }
  return counts;
}

std::vector<std::string> Quiet::summary(const engine::Counts& c) const {
  return lines({line(c, "applications", "quiet applications announced")});
}

engine::Counts Closing::run(engine::PassContext& ctx) {
  engine::Counts counts;
  Outbox outbox(ctx.clock, ctx.config);
  Millis now = ctx.clock.now_ms();
  // Yesterday in UTC is on or before today everywhere: a cheap first cut.
  std::string earliest = add_days(format_time_s(now).substr(0, 10), -1);
  constexpr const char* kOpen =
      "l.closed_at IS NULL AND l.state <> 'discarded' AND l.closes_on IS NOT NULL"
      " AND (l.closing_announced_for IS NULL OR l.closing_announced_for <> l.closes_on)"
      " AND NOT EXISTS (SELECT 1 FROM applications a WHERE a.listing_id = l.id)";
  auto conn = ctx.db.acquire();
  auto owners = conn->query(
      std::string("SELECT u.id, u.email, u.language, u.time_zone, u.closing_notice_days"
                  " FROM users u WHERE u.active = 1 AND u.closing_notice_days > 0"
                  " AND EXISTS (SELECT 1 FROM listings l WHERE l.owner_id = u.id AND ") +
          kOpen + " AND l.closes_on >= ?) ORDER BY u.id",
      {earliest});
  for (const auto& owner : owners) {
    try {
      notify::Recipient to = recipient_from(owner);
      std::string today = local_date(now, to.time_zone.empty() ? "UTC" : to.time_zone);
      std::string horizon = add_days(today, static_cast<int>(owner.int_at(4)));
      auto soon = conn->query(
          std::string("SELECT l.id, l.role, c.name, l.closes_on FROM listings l"
                      " JOIN companies c ON c.id = l.company_id WHERE l.owner_id = ? AND ") +
              kOpen + " AND l.closes_on >= ? AND l.closes_on <= ? ORDER BY l.closes_on, l.id",
          {to.id, today, horizon});
      if (soon.empty()) continue;
      store::Params params;
      for (const auto& r : soon) params.emplace_back(r.int_at(0));
      std::int64_t told = store::with_write(*conn, [&](store::Conn& c) {
        auto claimed_rows =
            c.query("UPDATE listings SET closing_announced_for = closes_on WHERE id IN " +
                        store::placeholders(params.size()) +
                        " AND (closing_announced_for IS NULL OR closing_announced_for <> closes_on)"
                        " RETURNING id, closes_on",
                    params);
        std::map<std::int64_t, std::string> claimed;
        for (const auto& r : claimed_rows) claimed[r.int_at(0)] = r.text(1);
        std::vector<notify::ClosingItem> items;
        for (const auto& r : soon)
          if (auto it = claimed.find(r.int_at(0)); it != claimed.end())
            items.push_back({notify::Named{r.int_at(0), r.text(1), r.text(2)}, it->second});
        if (items.empty()) return std::int64_t{0};
        auto targets = Outbox::targets(c, {to.id});
        outbox.announce(c, to, notify::posting_closing(to, items, ctx.config.public_url),
                        targets[to.id]);
        return static_cast<std::int64_t>(items.size());
      });
      counts["listings"] += told;
    } catch (const store::Error& e) {
      log::error("scheduler", "closing announcement failed",
                 {{"owner", owner.int_at(0)}, {"error", e.what()}});
      ++counts["errors"];
    }
  }
  return counts;
}

std::vector<std::string> Closing::summary(const engine::Counts& c) const {
  return lines({line(c, "listings", "closing listings announced")});
}

engine::Counts Deliveries::run(engine::PassContext& ctx) {
  Outbox outbox(ctx.clock, ctx.config);
  net::HttpClient http;
  return outbox.deliver_due(ctx.db, http, ctx.budget(kBudget));
}

std::vector<std::string> Deliveries::summary(const engine::Counts& c) const {
  return lines({line(c, "sent", "notices delivered"),
                line(c, "failed", "deliveries failed (will retry)"),
                line(c, "given_up", "deliveries given up"),
                line(c, "retired", "connections switched off as unusable")});
}

}  // namespace peto::steps
