#include "domain/auto_reminders.h"

#include <optional>

#include "core/i18n.h"
#include "core/timezone.h"

namespace peto::domain {

namespace {

constexpr std::int64_t kDayMs = 24LL * 60 * 60 * 1000;

// What the person chose, and what their reminders are written in.
struct Person {
  ReminderSwitches switches;
  std::string zone = "UTC";
  std::string language = "en";
};

Person person(store::Conn& conn, std::int64_t owner) {
  Person p;
  auto rows = conn.query(
      "SELECT time_zone, language, follow_up_days, remind_interviews, remind_answer_by,"
      " remind_closing FROM users WHERE id = ?",
      {owner});
  if (rows.empty()) return p;
  const auto& r = rows[0];
  p.zone = r.text("time_zone");
  if (!r.text("language").empty()) p.language = r.text("language");
  p.switches.follow_up_days = static_cast<int>(r.int_at("follow_up_days"));
  p.switches.interviews = r.int_at("remind_interviews") != 0;
  p.switches.answer_by = r.int_at("remind_answer_by") != 0;
  p.switches.closing = r.int_at("remind_closing") != 0;
  return p;
}

// The reminder a record calls for now: due at a moment or on a day.
struct Wanted {
  std::string title;
  std::optional<std::int64_t> due_at;  // a timed reminder
  std::string due_on;                  // an all-day one
  std::optional<std::int64_t> application_id;
};

// Which reminder a kind of record makes; the statement that reads what it
// needs (its date as a day or a moment, whether it still wants a reminder,
// its application, role and company); and its date alone, for
// reminder_date.
struct Source {
  const char* kind;
  const char* made_for;
  std::string read;
  const char* date;
};

const std::string kNames =
    " a.id AS application_id, l.role, c.name AS company FROM applications a"
    " JOIN listings l ON l.id = a.listing_id JOIN companies c ON c.id = l.company_id";

const std::vector<Source>& sources() {
  static const std::vector<Source> all = {
      {"applications", "follow_up",
       "SELECT NULL AS day, a.applied_at AS at_ms,"
       " CASE WHEN a.status IN ('applied', 'acknowledged') THEN 1 ELSE 0 END AS live," +
           kNames + " WHERE a.id = ? AND a.owner_id = ?",
       "CAST(applied_at AS TEXT)"},
      {"interviews", "interview",
       "SELECT i.starts_on AS day, i.starts_at AS at_ms, CASE WHEN i.outcome = 'scheduled' AND " +
           application_open("a") + " THEN 1 ELSE 0 END AS live," + kNames +
           " JOIN interviews i ON i.application_id = a.id WHERE i.id = ? AND i.owner_id = ?",
       "COALESCE(starts_on, CAST(starts_at AS TEXT))"},
      {"offers", "answer_by",
       "SELECT o.answer_by AS day, NULL AS at_ms, CASE WHEN " + application_open("a") +
           " THEN 1 ELSE 0 END AS live," + kNames +
           " JOIN offers o ON o.application_id = a.id WHERE o.id = ? AND o.owner_id = ?",
       "answer_by"},
      {"listings", "closing",
       "SELECT l.closes_on AS day, NULL AS at_ms, CASE WHEN l.closed_at IS NULL"
       " AND l.state <> 'discarded' AND NOT " +
           listing_applied("l") +
           " THEN 1 ELSE 0 END AS live, NULL AS application_id, l.role, c.name AS company"
           " FROM listings l JOIN companies c ON c.id = l.company_id"
           " WHERE l.id = ? AND l.owner_id = ?",
       "closes_on"},
  };
  return all;
}

const Source* source_of(const std::string& kind) {
  for (const Source& s : sources())
    if (kind == s.kind) return &s;
  return nullptr;
}

bool switched_on(const Source& s, const ReminderSwitches& on) {
  const std::string made_for = s.made_for;
  if (made_for == "follow_up") return on.follow_up_days > 0;
  if (made_for == "interview") return on.interviews;
  if (made_for == "answer_by") return on.answer_by;
  return on.closing;
}

// The reminder `row` calls for, or nullopt: switched off, no date, or its
// reason gone. Whether its time has passed is for the caller to weigh.
std::optional<Wanted> wanted(const Source& s, const store::Row& row, const Person& p) {
  if (!switched_on(s, p.switches) || row.int_at("live") == 0) return std::nullopt;
  Wanted w;
  if (!row.is_null("application_id")) w.application_id = row.int_at("application_id");
  const std::string made_for = s.made_for;
  if (made_for == "follow_up") {
    if (row.is_null("at_ms")) return std::nullopt;
    w.due_on = add_days(local_date(row.int_at("at_ms"), p.zone), p.switches.follow_up_days);
  } else if (!row.is_null("day")) {
    w.due_on = add_days(row.text("day"), -1);
  } else if (!row.is_null("at_ms")) {
    w.due_at = row.int_at("at_ms") - kDayMs;
  } else {
    return std::nullopt;
  }
  w.title =
      Catalogue::shared().fill(p.language, "auto_reminder_" + made_for,
                               {{"role", row.text("role")}, {"company", row.text("company")}});
  return w;
}

bool past(const Wanted& w, const Person& p, std::int64_t now) {
  if (w.due_at) return *w.due_at <= now;
  return w.due_on < local_date(now, p.zone);
}

// The moment an all-day reminder is due: the start of its day where the
// person lives (as records.cpp derives it from a form).
std::int64_t day_start(const std::string& day, const std::string& zone) {
  return parse_local(day + " 00:00", zone).value_or(0);
}

void make(store::Conn& conn, std::int64_t owner, const Source& s, std::int64_t id, const Wanted& w,
          const Person& p, std::int64_t now) {
  const std::int64_t due_at = w.due_at ? *w.due_at : day_start(w.due_on, p.zone);
  conn.query(
      "INSERT INTO reminders (owner_id, title, due_at, due_on, application_id, made_for,"
      " made_from, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {owner, w.title, due_at, w.due_on.empty() ? store::Value() : store::Value(w.due_on),
       store::Value(w.application_id), std::string(s.made_for), id, now, now});
}

// Moves `reminder` to the wanted time; to do again when it moved.
void move(store::Conn& conn, const store::Row& reminder, const Wanted& w, const Person& p,
          std::int64_t now) {
  const std::int64_t due_at = w.due_at ? *w.due_at : day_start(w.due_on, p.zone);
  const std::string due_on = reminder.is_null("due_on") ? "" : reminder.text("due_on");
  const bool same =
      !reminder.is_null("due_at") && reminder.int_at("due_at") == due_at && due_on == w.due_on;
  if (same) return;
  conn.query(
      "UPDATE reminders SET due_at = ?, due_on = ?, done_at = NULL, notified_at = NULL,"
      " updated_at = ? WHERE id = ?",
      {due_at, w.due_on.empty() ? store::Value() : store::Value(w.due_on), now,
       reminder.int_at("id")});
}

void keep(store::Conn& conn, std::int64_t owner, const Source& s, std::int64_t id,
          DateChange change, const Person& p, std::int64_t now) {
  auto rows = conn.query(s.read, {id, owner});
  auto existing = conn.query(
      "SELECT id, due_at, due_on, done_at FROM reminders WHERE made_for = ? AND made_from = ?"
      " AND owner_id = ?",
      {std::string(s.made_for), id, owner});
  std::optional<Wanted> w;
  if (!rows.empty()) w = wanted(s, rows[0], p);
  if (existing.empty()) {
    if (w && change == DateChange::given && !past(*w, p, now)) make(conn, owner, s, id, *w, p, now);
  } else if (!w) {
    if (existing[0].is_null("done_at"))
      conn.query("UPDATE reminders SET done_at = ?, updated_at = ? WHERE id = ?",
                 {now, now, existing[0].int_at("id")});
  } else if (change != DateChange::none) {
    // Only a change of the date moves it: a snooze outlives an edit of the
    // interview's place.
    move(conn, existing[0], *w, p, now);
  }
}

}  // namespace

void keep_reminder(store::Conn& conn, std::int64_t owner, const Kind& kind, std::int64_t id,
                   DateChange change, std::int64_t now) {
  const Source* s = source_of(kind.name);
  if (s == nullptr) return;
  keep(conn, owner, *s, id, change, person(conn, owner), now);
}

void keep_reminders_of_application(store::Conn& conn, std::int64_t owner,
                                   std::int64_t application_id, bool first_sent, std::int64_t now) {
  const Person p = person(conn, owner);
  keep(conn, owner, *source_of("applications"), application_id,
       first_sent ? DateChange::given : DateChange::none, p, now);
  for (const char* table : {"interviews", "offers"})
    for (const auto& row :
         conn.query(std::string("SELECT id FROM ") + table + " WHERE application_id = ?",
                    {application_id}))
      keep(conn, owner, *source_of(table), row.int_at("id"), DateChange::none, p, now);
  auto listing = conn.query("SELECT listing_id FROM applications WHERE id = ?", {application_id});
  if (!listing.empty())
    keep(conn, owner, *source_of("listings"), listing[0].int_at("listing_id"), DateChange::none, p,
         now);
}

std::optional<std::string> reminder_date(store::Conn& conn, const Kind& kind, std::int64_t id) {
  const Source* s = source_of(kind.name);
  if (s == nullptr) return std::nullopt;
  auto rows = conn.query(
      "SELECT " + std::string(s->date) + " AS d FROM " + kind.name + " WHERE id = ?", {id});
  if (rows.empty() || rows[0].is_null("d")) return std::nullopt;
  return rows[0].text("d");
}

DateChange date_change(const std::optional<std::string>& before,
                       const std::optional<std::string>& after) {
  if (!before) return after ? DateChange::given : DateChange::none;
  return before != after ? DateChange::moved : DateChange::none;
}

std::string made_from_kind(const std::string& made_for) {
  for (const Source& s : sources())
    if (made_for == s.made_for) return s.kind;
  return "";
}

std::vector<store::Migration> auto_reminder_migrations() {
  const std::string sql =
      "ALTER TABLE reminders ADD COLUMN made_for TEXT;"
      "ALTER TABLE reminders ADD COLUMN made_from BIGINT;"
      "CREATE UNIQUE INDEX reminders_made ON reminders (made_for, made_from)"
      " WHERE made_for IS NOT NULL;"
      "ALTER TABLE users ADD COLUMN follow_up_days INTEGER NOT NULL DEFAULT 7;"
      "ALTER TABLE users ADD COLUMN remind_interviews INTEGER NOT NULL DEFAULT 1;"
      "ALTER TABLE users ADD COLUMN remind_answer_by INTEGER NOT NULL DEFAULT 1;"
      "ALTER TABLE users ADD COLUMN remind_closing INTEGER NOT NULL DEFAULT 0;";
  return {{19, "automatic reminders", sql, sql}};
}

}  // namespace peto::domain
