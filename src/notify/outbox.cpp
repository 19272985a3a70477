#include "notify/outbox.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "core/log.h"
#include "core/utf8.h"
#include "plugin/attempt.h"
#include "plugin/connection_state.h"

namespace peto::notify {

namespace {

using nlohmann::json;

constexpr std::size_t kRowsPerInsert = 200;
constexpr Millis kShownKeepMs = 24LL * 3600 * 1000;

// Runs one multi-row INSERT … ON CONFLICT DO NOTHING per kRowsPerInsert rows;
// returns the rows inserted.
std::int64_t insert_rows(store::Conn& conn, const std::string& head, const std::string& tail,
                         std::size_t width, const store::Params& values) {
  std::int64_t inserted = 0;
  std::size_t rows = values.size() / width;
  for (std::size_t start = 0; start < rows; start += kRowsPerInsert) {
    std::size_t n = std::min(kRowsPerInsert, rows - start);
    std::string sql = head;
    std::string one = store::placeholders(width);
    for (std::size_t i = 0; i < n; ++i) sql += (i ? ", " : "") + one;
    sql += tail;
    store::Params chunk(values.begin() + static_cast<std::ptrdiff_t>(start * width),
                        values.begin() + static_cast<std::ptrdiff_t>((start + n) * width));
    inserted += conn.query(sql, chunk).affected;
  }
  return inserted;
}

}  // namespace

Millis retry_delay_ms(int attempts) { return plugin::retry_wait(kDeliveryBackoff, attempts); }

Outbox::Outbox(const Clock& clock, const Config& config) : clock_(clock), config_(config) {}

std::map<std::int64_t, Recipient> Outbox::recipients(store::Conn& conn,
                                                     const std::vector<std::int64_t>& owners) {
  std::map<std::int64_t, Recipient> out;
  if (owners.empty()) return out;
  store::Params ids(owners.begin(), owners.end());
  for (const auto& r :
       conn.query("SELECT id, email, language, time_zone FROM users WHERE active = 1"
                  " AND id IN " +
                      store::placeholders(ids.size()),
                  ids))
    out[r.int_at("id")] =
        Recipient{r.int_at("id"), r.text("email"), r.text("language"), r.text("time_zone"), true};
  return out;
}

std::map<std::int64_t, std::vector<Target>> Outbox::targets(
    store::Conn& conn, const std::vector<std::int64_t>& owners) {
  std::map<std::int64_t, std::vector<Target>> out;
  if (owners.empty()) return out;
  store::Params ids(owners.begin(), owners.end());
  for (const auto& r : conn.query("SELECT owner_id, id, plugin, config FROM connections"
                                  " WHERE kind = 'notifier' AND enabled = 1 AND owner_id IN " +
                                      store::placeholders(ids.size()) + " ORDER BY id",
                                  ids)) {
    json config = json::parse(r.text("config"), nullptr, false);
    out[r.int_at("owner_id")].push_back(
        Target{r.int_at("id"), r.text("plugin"), config.is_object() ? config : json::object()});
  }
  return out;
}

int Outbox::announce(store::Conn& conn, const Recipient& to, const Notification& n,
                     const std::vector<Target>& targets) const {
  return announce_all(conn, {Announcement{&to, n, &targets}});
}

int Outbox::announce_all(store::Conn& conn, const std::vector<Announcement>& all) const {
  return announce_all_at(conn, all, clock_.now_ms());
}

int Outbox::announce_all_at(store::Conn& conn, const std::vector<Announcement>& all, Millis now) {
  store::Params notices, deliveries;
  for (const Announcement& a : all) {
    const Notification& n = a.notification;
    std::string key = bounded_key(n.key);
    if (!about_what_you_did(n.event) && !key.empty()) {
      for (store::Value v :
           {store::Value(a.to->id), store::Value(n.event), store::Value(utf8_cut(n.title, 300)),
            store::Value(utf8_cut(n.body, 2000)), store::Value(utf8_cut(n.url, 500)),
            store::Value(key), store::Value(now)})
        notices.push_back(std::move(v));
    }
    std::string body;
    for (const Target& t : *a.targets) {
      const Notifier* notifier = find_notifier(t.plugin);
      if (notifier == nullptr || !wants(t.config, n.event, *notifier)) continue;
      if (body.empty()) {
        Notification stored = n;
        stored.key = key;
        body = payload(stored);
      }
      for (store::Value v :
           {store::Value(a.to->id), store::Value(t.connection_id), store::Value(n.event),
            store::Value(key), store::Value(body), store::Value(now), store::Value(now)})
        deliveries.push_back(std::move(v));
    }
  }
  if (!notices.empty())
    insert_rows(conn,
                "INSERT INTO inbox_notices (owner_id, event, title, body, url, key, created_at)"
                " VALUES ",
                " ON CONFLICT (owner_id, key) DO NOTHING", 7, notices);
  if (deliveries.empty()) return 0;
  return static_cast<int>(insert_rows(
      conn,
      "INSERT INTO deliveries (owner_id, connection_id, event, key, body, next_attempt_at,"
      " created_at) VALUES ",
      " ON CONFLICT (connection_id, key) DO NOTHING", 7, deliveries));
}

int announce_event(store::Conn& conn, Millis at, std::int64_t owner, std::string_view event,
                   const std::function<Notification(const Recipient&)>& build) {
  auto targets = Outbox::targets(conn, {owner});
  auto& mine = targets[owner];
  bool wanted = !about_what_you_did(event);  // the inbox takes the rest
  for (const Target& t : mine) {
    const Notifier* n = find_notifier(t.plugin);
    wanted = wanted || (n != nullptr && wants(t.config, event, *n));
  }
  if (!wanted) return 0;
  auto recipients = Outbox::recipients(conn, {owner});
  auto to = recipients.find(owner);
  if (to == recipients.end()) return 0;  // an inactive account is told nothing
  return Outbox::announce_all_at(conn,
                                 {Outbox::Announcement{&to->second, build(to->second), &mine}}, at);
}

namespace {

constexpr engine::Figure kSent{"sent", "{n} notice delivered", "{n} notices delivered"};
constexpr engine::Figure kFailed{"failed", "{n} delivery failed (will retry)",
                                 "{n} deliveries failed (will retry)"};
constexpr engine::Figure kGivenUp{"given_up", "{n} delivery given up", "{n} deliveries given up"};
constexpr engine::Figure kRetired{"retired", "{n} connection switched off as unusable",
                                  "{n} connections switched off as unusable"};
constexpr engine::Figure kErrors{"errors"};

engine::StepResult delivery_result() { return {kSent, kFailed, kGivenUp, kRetired, kErrors}; }

struct Claimed {
  std::int64_t id;
  Millis lease;  // the next_attempt_at the claim wrote; the outcome is written only on it
};

// Sends one claimed delivery and writes its outcome. Never throws for a
// failure of the other side.
void deliver_one(store::Db& db, const plugin::ConnectionState& connections,
                 const net::HttpClient& http, const Config& config, const Clock& clock,
                 const Claimed& claim, engine::StepResult& result_of_step) {
  auto conn = db.acquire();
  auto rows = conn->query(
      "SELECT d.owner_id, d.connection_id, d.body, d.attempts, c.plugin, u.email, u.language,"
      " u.time_zone FROM deliveries d JOIN users u ON u.id = d.owner_id"
      " LEFT JOIN connections c ON c.id = d.connection_id WHERE d.id = ?",
      {claim.id});
  if (rows.empty()) return;
  const auto& row = rows[0];
  int attempts = static_cast<int>(row.int_at("attempts")) + 1;
  std::optional<std::int64_t> connection_id = row.opt_int("connection_id");
  plugin::Outcome outcome;
  if (!connection_id) {
    outcome = {plugin::Outcome::Kind::final, "The connection is gone or switched off.",
               std::nullopt, false};
  } else if (const Notifier* notifier = find_notifier(row.text("plugin")); notifier == nullptr) {
    outcome = {plugin::Outcome::Kind::final, "error_notifier_unknown", std::nullopt, false};
  } else if (auto full = connections.full_config(*conn, *connection_id); !full) {
    outcome = {plugin::Outcome::Kind::final, "error_secrets_unreadable", std::nullopt, false};
  } else if (auto n = from_payload(row.text("body")); !n) {
    outcome = {plugin::Outcome::Kind::final, "The stored notice could not be read.", std::nullopt,
               false};
  } else {
    Recipient to{row.int_at("owner_id"), row.text("email"), row.text("language"),
                 row.text("time_zone"), true};
    SendContext ctx{http, config, clock, std::to_string(claim.id)};
    // Events announced outside the scheduler keep their links as paths.
    if (n->url.rfind('/', 0) == 0) n->url = absolute_url(config.public_url, n->url);
    try {
      outcome = notifier->send(*n, *full, to, ctx);
    } catch (const std::exception& e) {
      outcome = {plugin::Outcome::Kind::retry, e.what(), std::nullopt, false};
    }
  }

  Millis now = clock.now_ms();
  std::optional<Millis> next = plugin::next_attempt(outcome, attempts, kDeliveryBackoff);
  if (next) *next += now;
  const std::string status = outcome.kind == plugin::Outcome::Kind::done ? "sent"
                             : next                                      ? "failed"
                                                                         : "given_up";
  store::with_write(*conn, [&](store::Conn& c) {
    auto written = c.query(
        "UPDATE deliveries SET status = ?, attempts = ?, last_attempt_at = ?, last_status = ?,"
        " last_error = ?, next_attempt_at = ?, sent_at = ?,"
        " body = CASE WHEN ? = 'sent' THEN '' ELSE body END"
        " WHERE id = ? AND next_attempt_at = ?",
        {status, attempts, now, outcome.http_status, outcome.message.substr(0, 500), next,
         status == "sent" ? std::optional<Millis>(now) : std::nullopt, status, claim.id,
         claim.lease});
    if (written.affected == 0 || !connection_id) return;  // another process took it over
    if (plugin::settle(connections, c, *connection_id, outcome)) result_of_step.add(kRetired);
  });
  if (outcome.kind != plugin::Outcome::Kind::done)
    log::info("notify", "delivery not sent",
              {{"delivery", claim.id},
               {"attempt", attempts},
               {"outcome", outcome_name(outcome)},
               {"error", outcome.message}});
  result_of_step.add(status == "sent" ? kSent : status == "failed" ? kFailed : kGivenUp);
}

}  // namespace

engine::StepResult Outbox::deliver_due(store::Db& db, const net::HttpClient& http,
                                       const engine::Budget& budget) const {
  engine::StepResult counts = delivery_result();
  plugin::ConnectionState connections(clock_, config_);
  for (;;) {
    if (budget.spent()) break;
    Millis now = clock_.now_ms();
    auto due = db.query(
        "SELECT d.id, d.next_attempt_at FROM deliveries d JOIN users u ON u.id = d.owner_id"
        " LEFT JOIN connections c ON c.id = d.connection_id"
        " WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= ? AND u.active = 1"
        " AND (c.id IS NULL OR c.enabled = 1)"
        " ORDER BY d.next_attempt_at, d.id LIMIT ?",
        {now, kDeliveryBatch});
    if (due.empty()) break;
    // kSendThreads senders share the batch: a slow receiver holds one of
    // them, not the whole step. Each row is claimed by the sender that takes
    // it; rows not started once the budget is spent are never claimed and
    // keep their place for the next pass.
    std::atomic<std::size_t> next{0};
    std::mutex merge;
    auto sender = [&] {
      engine::StepResult mine = delivery_result();
      for (std::size_t i; (i = next++) < due.size() && !budget.spent();) {
        const auto& row = due[i];
        Claimed claim{row.int_at("id"), clock_.now_ms() + kSendingLeaseMs};
        if (claim.lease == row.int_at("next_attempt_at"))
          ++claim.lease;  // the claim must change the value
        try {
          if (db.query("UPDATE deliveries SET next_attempt_at = ? WHERE id = ?"
                       " AND next_attempt_at = ? AND status IN ('pending', 'failed')",
                       {claim.lease, claim.id, row.int_at("next_attempt_at")})
                  .affected == 0)
            continue;
          deliver_one(db, connections, http, config_, clock_, claim, mine);
        } catch (const std::exception& e) {
          // The database failed under this row: its lease brings it back.
          log::error("notify", "delivery failed", {{"delivery", claim.id}, {"error", e.what()}});
          mine.add(kErrors);
        }
      }
      std::lock_guard lock(merge);
      counts.merge(mine);
    };
    std::vector<std::thread> helpers;
    for (std::size_t t = 1; t < std::min<std::size_t>(kSendThreads, due.size()); ++t)
      helpers.emplace_back(sender);
    sender();
    for (auto& h : helpers) h.join();
    if (due.size() < static_cast<std::size_t>(kDeliveryBatch)) break;
  }
  return counts;
}

std::int64_t Outbox::forget_old(store::Conn& conn) const {
  Millis now = clock_.now_ms();
  std::int64_t n = conn.query(
                           "DELETE FROM deliveries WHERE status IN ('sent', 'given_up')"
                           " AND created_at < ?",
                           {now - kDeliveryKeepMs})
                       .affected;
  n += conn.query("DELETE FROM inbox_notices WHERE created_at < ?", {now - kInboxKeepMs}).affected;
  n += conn.query("DELETE FROM inbox_notices WHERE shown_at < ?", {now - kShownKeepMs}).affected;
  return n;
}

std::vector<Outbox::GivenUp> Outbox::given_up(store::Conn& conn, std::int64_t owner,
                                              std::int64_t connection, int limit) {
  std::vector<GivenUp> out;
  for (const auto& row :
       conn.query("SELECT id, body, last_error, last_attempt_at FROM deliveries"
                  " WHERE owner_id = ? AND connection_id = ? AND status = 'given_up'"
                  " ORDER BY last_attempt_at DESC, id DESC LIMIT ?",
                  {owner, connection, limit})) {
    auto n = from_payload(row.text("body"));
    out.push_back({row.int_at("id"), n ? n->title : std::string(), row.text("last_error"),
                   row.is_null("last_attempt_at") ? 0 : row.int_at("last_attempt_at")});
  }
  return out;
}

std::int64_t Outbox::send_again(store::Conn& conn, std::int64_t owner,
                                std::int64_t connection) const {
  return conn
      .query(
          "UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?,"
          " last_error = '' WHERE owner_id = ? AND connection_id = ? AND status = 'given_up'",
          {clock_.now_ms(), owner, connection})
      .affected;
}

std::int64_t Outbox::unread(store::Conn& conn, std::int64_t owner) {
  return conn
      .query("SELECT COUNT(*) AS n FROM inbox_notices WHERE owner_id = ? AND shown_at IS NULL",
             {owner})[0]
      .int_at("n");
}

std::vector<InboxNotice> Outbox::inbox(store::Conn& conn, std::int64_t owner, int limit) const {
  std::vector<InboxNotice> out;
  for (const auto& r : conn.query("SELECT id, event, title, body, url, key, created_at, shown_at"
                                  " FROM inbox_notices WHERE owner_id = ?"
                                  " ORDER BY created_at DESC, id DESC LIMIT ?",
                                  {owner, limit}))
    out.push_back({r.int_at("id"), r.text("event"), r.text("title"), r.text("body"), r.text("url"),
                   r.text("key"), r.int_at("created_at"), !r.is_null("shown_at")});
  return out;
}

std::int64_t Outbox::mark_shown(store::Conn& conn, std::int64_t owner,
                                std::optional<std::int64_t> upto) const {
  std::string sql = "UPDATE inbox_notices SET shown_at = ? WHERE owner_id = ? AND shown_at IS NULL";
  store::Params params{clock_.now_ms(), owner};
  if (upto) {
    sql += " AND id <= ?";
    params.emplace_back(*upto);
  }
  return conn.query(sql, params).affected;
}

}  // namespace peto::notify
