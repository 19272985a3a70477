#include "sync/feed.h"

#include <algorithm>
#include <cctype>

#include "core/token.h"
#include "domain/cards.h"
#include "formats/ical.h"

namespace peto::sync {

namespace {

using nlohmann::json;

constexpr int kTokenBytes = 32;
constexpr std::int64_t kReminderMs = 15 * 60 * 1000;

bool token_shaped(const std::string& token) {
  return token.size() == 2 * kTokenBytes && std::all_of(token.begin(), token.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

json nullable_text(const store::Row& row, std::string_view column) {
  auto v = row.opt_text(column);
  return v ? json(*v) : json(nullptr);
}

json nullable_int(const store::Row& row, std::string_view column) {
  auto v = row.opt_int(column);
  return v ? json(*v) : json(nullptr);
}

}  // namespace

std::string CalendarFeeds::create(std::int64_t owner) {
  std::string token = random_token(kTokenBytes);
  std::string hash = sha256_hex(token);
  Millis now = clock_.now_ms();
  db_.write([&](store::Conn& conn) {
    conn.query("DELETE FROM calendar_feeds WHERE owner_id = ?", {owner});
    conn.query("INSERT INTO calendar_feeds (owner_id, token_hash, created_at) VALUES (?, ?, ?)",
               {owner, hash, now});
  });
  return token;
}

bool CalendarFeeds::revoke(std::int64_t owner) {
  return db_.write([&](store::Conn& conn) {
    bool had =
        !conn.query("SELECT 1 AS found FROM calendar_feeds WHERE owner_id = ?", {owner}).empty();
    conn.query("DELETE FROM calendar_feeds WHERE owner_id = ?", {owner});
    return had;
  });
}

bool CalendarFeeds::exists(std::int64_t owner) { return created_at(owner).has_value(); }

std::optional<Millis> CalendarFeeds::created_at(std::int64_t owner) {
  auto rows = db_.query("SELECT created_at FROM calendar_feeds WHERE owner_id = ?", {owner});
  if (rows.empty()) return std::nullopt;
  return rows[0].int_at("created_at");
}

std::optional<std::int64_t> CalendarFeeds::owner_of(const std::string& token) {
  if (!token_shaped(token)) return std::nullopt;
  auto rows = db_.query(
      "SELECT f.owner_id FROM calendar_feeds f JOIN users u ON u.id = f.owner_id"
      " WHERE f.token_hash = ? AND u.active = 1",
      {sha256_hex(token)});
  if (rows.empty()) return std::nullopt;
  return rows[0].int_at("owner_id");
}

std::string CalendarFeeds::render(std::int64_t owner) {
  auto lang = db_.query("SELECT language FROM users WHERE id = ?", {owner});
  std::string language = lang.empty() ? "" : lang[0].text("language");
  std::vector<formats::CalItem> items;
  auto interviews = db_.query(
      "SELECT i.id, i.uid, i.created_at, i.starts_at, i.starts_on, i.ends_at, i.place, i.notes,"
      " i.outcome,"
      " (SELECT l.role FROM applications a JOIN listings l ON l.id = a.listing_id"
      "  WHERE a.id = i.application_id) AS application_role,"
      " (SELECT c.name FROM applications a JOIN listings l ON l.id = a.listing_id"
      "  JOIN companies c ON c.id = l.company_id WHERE a.id = i.application_id) AS company_name"
      " FROM interviews i WHERE i.owner_id = ? ORDER BY i.starts_at, i.id",
      {owner});
  for (const store::Row& row : interviews) {
    json record = {{"id", row.int_at("id")},
                   {"uid", row.text("uid")},
                   {"created_at", row.int_at("created_at")},
                   {"starts_at", row.int_at("starts_at")},
                   {"starts_on", nullable_text(row, "starts_on")},
                   {"ends_at", nullable_int(row, "ends_at")},
                   {"place", nullable_text(row, "place")},
                   {"notes", nullable_text(row, "notes")},
                   {"outcome", nullable_text(row, "outcome")},
                   {"application_role", nullable_text(row, "application_role")},
                   {"company_name", nullable_text(row, "company_name")}};
    items.push_back(domain::interview_item(record, domain::record_uid("interviews", record),
                                           domain::interview_title(language, record)));
  }
  auto reminders = db_.query(
      "SELECT id, created_at, title, due_at, due_on FROM reminders"
      " WHERE owner_id = ? AND done_at IS NULL AND due_at IS NOT NULL ORDER BY due_at, id",
      {owner});
  for (const store::Row& row : reminders) {
    json record = {{"id", row.int_at("id")},
                   {"created_at", row.int_at("created_at")},
                   {"title", row.text("title")},
                   {"due_at", row.int_at("due_at")},
                   {"due_on", nullable_text(row, "due_on")},
                   {"done_at", nullptr}};
    // Calendar apps that only subscribe show events, not to-dos.
    formats::CalItem item = domain::reminder_item(record, domain::record_uid("reminders", record));
    item.type = formats::CalItem::Type::event;
    item.start = item.due;
    item.end = *item.due + kReminderMs;
    item.due.reset();
    items.push_back(std::move(item));
  }
  return formats::write_calendar(items, clock_.now_ms());
}

}  // namespace peto::sync
