#include "domain/applications.h"

#include <algorithm>

#include "core/utf8.h"
#include "domain/auto_reminders.h"
#include "domain/events.h"

namespace peto::domain {

namespace {

bool one_of(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::string for_update(const store::Conn& conn) {
  return conn.dialect() == store::Dialect::postgres ? " FOR UPDATE" : "";
}

// How far a held interview of this kind moves an application.
std::string status_after_interview(const std::string& kind) {
  if (kind == "phone") return "screening";
  if (kind == "assessment") return "assessment";
  return "interviewing";
}

}  // namespace

void add_event(store::Conn& conn, std::int64_t application_id, std::int64_t now,
               const std::string& kind, const std::string& summary, const std::string& body,
               const std::string& from, const std::string& to, const std::string& end_reason,
               std::optional<std::int64_t> interview_id, const std::string& actor,
               std::optional<std::int64_t> occurred_at) {
  auto text_or_null = [](const std::string& s) { return s.empty() ? store::Value() : s; };
  conn.query(
      "INSERT INTO application_events (application_id, kind, occurred_at, summary, body,"
      " from_status, to_status, end_reason, interview_id, actor, created_at)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {application_id, kind, occurred_at.value_or(now), summary, text_or_null(body),
       text_or_null(from), text_or_null(to), text_or_null(end_reason), store::Value(interview_id),
       actor, now});
  // Activity on the timeline is what "gone quiet" measures; touching the
  // application keeps updated_since sync clients in step as well.
  conn.query("UPDATE applications SET updated_at = ? WHERE id = ?", {now, application_id});
}

void announce_what_you_did(store::Conn& conn, std::int64_t now, std::int64_t application_id,
                           const std::string& event, std::int64_t record_id,
                           const std::string& from, const std::string& to) {
  auto rows = conn.query(
      "SELECT a.owner_id, l.role, c.name FROM applications a JOIN listings l ON l.id = a.listing_id"
      " JOIN companies c ON c.id = l.company_id WHERE a.id = ?",
      {application_id});
  if (rows.empty()) return;
  domain::Event e{event,
                  rows[0].int_at("owner_id"),
                  now,
                  record_id,
                  application_id,
                  rows[0].text("role"),
                  rows[0].text("name"),
                  from,
                  to,
                  now};
  if (event == "interview_scheduled") {
    auto starts = conn.query("SELECT starts_at FROM interviews WHERE id = ?", {record_id});
    if (!starts.empty()) e.starts_at = starts[0].int_at("starts_at");
  }
  publish(conn, e);
}

// How far ahead of peto's clock a "when" may be: the browser's clock may run
// a little fast; anything later has not happened yet.
constexpr std::int64_t kClockSkewMs = 60 * 1000;

Written Applications::apply(std::int64_t owner, std::int64_t listing_id, const std::string& status,
                            const std::string& actor, std::optional<std::int64_t> applied_at) {
  return records_.db().write([&](store::Conn& conn) {
    return apply_in(conn, owner, listing_id, status, actor, applied_at);
  });
}

Written Applications::apply_in(store::Conn& conn, std::int64_t owner, std::int64_t listing_id,
                               const std::string& status, const std::string& actor,
                               std::optional<std::int64_t> applied_at) {
  const std::int64_t now = records_.clock().now_ms();
  FieldErrors errors;
  if (status_rank(status) < 0) errors.add("status", "error_choice");
  if (applied_at && *applied_at > now + kClockSkewMs) errors.add("applied_at", "error_in_future");
  if (!errors.empty()) return errors;
  Input input;
  input.values = {{"listing_id", std::to_string(listing_id)}};
  auto made = records_.create_in(conn, owner, kind("applications"), input);
  if (auto* errors = std::get_if<FieldErrors>(&made)) {
    if (errors->has("listing_id")) return NotFound{};
    return made;
  }
  std::int64_t id = std::get<Record>(made)["id"].get<std::int64_t>();
  const bool sent = status != "draft";
  add_event(conn, id, now, "note", "Application created", "", "", "", "", std::nullopt, actor,
            sent ? applied_at : std::nullopt);
  if (!sent) return made;
  StatusChange change;
  change.to = status;
  change.actor = actor;
  change.applied_at = applied_at;
  return change_status_in(conn, owner, id, change);
}

Written Applications::change_status(std::int64_t owner, std::int64_t id,
                                    const StatusChange& change) {
  return records_.db().write(
      [&](store::Conn& conn) { return change_status_in(conn, owner, id, change); });
}

Written Applications::change_status_in(store::Conn& conn, std::int64_t owner, std::int64_t id,
                                       const StatusChange& change) {
  FieldErrors errors;
  if (status_rank(change.to) < 0) errors.add("status", "error_choice");
  if (!change.end_reason.empty() && !one_of(end_reasons(), change.end_reason))
    errors.add("end_reason", "error_choice");
  else if (!change.end_reason.empty() && change.to != "rejected" && change.to != "withdrawn" &&
           change.to != "ghosted")
    errors.add("end_reason", "error_end_reason_status");
  if (change.note.size() > 20000) errors.too_long("note", 20000);
  if (!errors.empty()) return errors;
  auto rows =
      conn.query("SELECT status, applied_at FROM applications WHERE id = ? AND owner_id = ?" +
                     for_update(conn),
                 {id, owner});
  if (rows.empty()) return NotFound{};
  const std::string from = rows[0].text("status");
  const bool had_applied_at = !rows[0].is_null("applied_at");
  const Kind& apps = kind("applications");
  if (from == change.to && change.end_reason.empty())
    return *records_.get_in(conn, owner, apps, id);

  std::int64_t now = records_.clock().now_ms();
  std::string sql = "UPDATE applications SET status = ?, updated_at = ?";
  store::Params params{change.to, now};
  if (is_sent_status(change.to) && !had_applied_at) {
    sql += ", applied_at = ?";
    params.emplace_back(change.applied_at.value_or(now));
  }
  if (is_open_status(from) && !is_open_status(change.to)) {
    sql += ", closed_at = ?";
    params.emplace_back(now);
  } else if (is_open_status(change.to)) {
    sql += ", closed_at = NULL";
  }
  sql += " WHERE id = ? AND owner_id = ?";
  params.emplace_back(id);
  params.emplace_back(owner);
  conn.query(sql, params);
  // Sent on a day in the past: the change happened then.
  std::optional<std::int64_t> occurred;
  if (change.applied_at && is_sent_status(change.to) && !had_applied_at)
    occurred = change.applied_at;
  add_event(conn, id, now, "status_change", "Status changed", change.note, from, change.to,
            change.end_reason, std::nullopt, change.actor, occurred);
  auto event = conn.query(
      "SELECT MAX(id) AS event_id FROM application_events WHERE application_id = ?", {id});
  announce_what_you_did(conn, now, id, "status_changed", event[0].int_at("event_id"), from,
                        change.to);
  keep_reminders_of_application(conn, owner, id, is_sent_status(change.to) && !had_applied_at, now);
  return *records_.get_in(conn, owner, apps, id);
}

std::variant<std::int64_t, FieldErrors, NotFound> Applications::add(std::int64_t owner,
                                                                    std::int64_t id,
                                                                    const NewEvent& event) {
  return records_.db().write([&](store::Conn& conn) { return add_in(conn, owner, id, event); });
}

std::variant<std::int64_t, FieldErrors, NotFound> Applications::add_in(store::Conn& conn,
                                                                       std::int64_t owner,
                                                                       std::int64_t id,
                                                                       const NewEvent& event) {
  FieldErrors errors;
  if (!one_of(event_kinds(), event.kind) || is_system_event(event.kind))
    errors.add("kind", "error_choice");
  std::size_t chars = utf8_length(event.summary);
  if (event.summary.find_first_not_of(" \t\r\n") == std::string::npos)
    errors.add("summary", "error_required");
  else if (chars > 250)
    errors.too_long("summary", 250);
  if (event.body.size() > 20000) errors.too_long("body", 20000);
  std::int64_t now = records_.clock().now_ms();
  if (event.occurred_at && *event.occurred_at > now + kClockSkewMs)
    errors.add("occurred_at", "error_in_future");
  if (!errors.empty()) return errors;
  auto rows = conn.query("SELECT 1 FROM applications WHERE id = ? AND owner_id = ?", {id, owner});
  if (rows.empty()) return NotFound{};
  add_event(conn, id, now, event.kind, event.summary, event.body, "", "", "", std::nullopt,
            event.actor, event.occurred_at);
  return conn
      .query("SELECT MAX(id) AS event_id FROM application_events WHERE application_id = ?", {id})[0]
      .int_at("event_id");
}

std::optional<std::vector<Record>> Applications::timeline(std::int64_t owner, std::int64_t id) {
  auto conn = records_.db().acquire();
  return timeline_in(*conn, owner, id);
}

std::optional<std::vector<Record>> Applications::timeline_in(store::Conn& conn, std::int64_t owner,
                                                             std::int64_t id) {
  if (conn.query("SELECT 1 FROM applications WHERE id = ? AND owner_id = ?", {id, owner}).empty())
    return std::nullopt;
  auto rows = conn.query(
      "SELECT id, kind, occurred_at, summary, body, from_status, to_status, end_reason,"
      " interview_id, actor, created_at FROM application_events WHERE application_id = ?"
      " ORDER BY occurred_at DESC, id DESC",
      {id});
  std::vector<Record> out;
  for (const auto& r : rows) {
    auto opt = [&](std::string_view c) -> nlohmann::json {
      if (r.is_null(c)) return nullptr;
      return r.text(c);
    };
    Record e = {
        {"id", r.int_at("id")},
        {"application_id", id},
        {"kind", r.text("kind")},
        {"occurred_at", r.int_at("occurred_at")},
        {"summary", r.text("summary")},
        {"body", opt("body")},
        {"from_status", opt("from_status")},
        {"to_status", opt("to_status")},
        {"end_reason", opt("end_reason")},
        {"interview_id", r.is_null("interview_id") ? nlohmann::json(nullptr)
                                                   : nlohmann::json(r.int_at("interview_id"))},
        {"actor", r.text("actor")},
        {"created_at", r.int_at("created_at")}};
    out.push_back(std::move(e));
  }
  return out;
}

Written Applications::set_outcome(std::int64_t owner, std::int64_t interview_id,
                                  const std::string& outcome) {
  return records_.db().write(
      [&](store::Conn& conn) { return set_outcome_in(conn, owner, interview_id, outcome); });
}

Written Applications::set_outcome_in(store::Conn& conn, std::int64_t owner,
                                     std::int64_t interview_id, const std::string& outcome) {
  const Kind& interviews = kind("interviews");
  if (!one_of(interviews.field("outcome")->choices, outcome)) {
    FieldErrors e;
    e.add("outcome", "error_choice");
    return e;
  }
  auto before = records_.get_in(conn, owner, interviews, interview_id);
  if (!before) return NotFound{};
  std::int64_t now = records_.clock().now_ms();
  conn.query("UPDATE interviews SET outcome = ?, updated_at = ? WHERE id = ? AND owner_id = ?",
             {outcome, now, interview_id, owner});
  std::int64_t app = (*before)["application_id"].get<std::int64_t>();
  if ((*before)["outcome"] != outcome) {
    if (outcome == "cancelled")
      add_event(conn, app, now, "interview_cancelled", "Interview cancelled", "", "", "", "",
                interview_id);
    else if (outcome == "no_show")
      add_event(conn, app, now, "interview_no_show", "Interview missed", "", "", "", "",
                interview_id);
    else if (outcome == "done") {
      std::string target = status_after_interview((*before)["kind"].get<std::string>());
      auto status = conn.query("SELECT status FROM applications WHERE id = ?", {app});
      std::string current = status.empty() ? "" : status[0].text("status");
      if (is_open_status(current) && status_rank(current) < status_rank(target)) {
        StatusChange change;
        change.to = target;
        change.note = "An interview was held";
        auto moved = change_status_in(conn, owner, app, change);
        if (!std::holds_alternative<Record>(moved)) return moved;
      }
    }
  }
  keep_reminder(conn, owner, interviews, interview_id, DateChange::none, now);
  return *records_.get_in(conn, owner, interviews, interview_id);
}

Written Applications::set_done(std::int64_t owner, std::int64_t reminder_id, bool done) {
  return records_.db().write(
      [&](store::Conn& conn) { return set_done_in(conn, owner, reminder_id, done); });
}

Written Applications::set_done_in(store::Conn& conn, std::int64_t owner, std::int64_t reminder_id,
                                  bool done, std::optional<std::int64_t> at) {
  std::int64_t now = records_.clock().now_ms();
  auto r =
      conn.query(done ? "UPDATE reminders SET done_at = COALESCE(done_at, ?), updated_at = ?"
                        " WHERE id = ? AND owner_id = ?"
                      : "UPDATE reminders SET done_at = NULL, notified_at = NULL, updated_at = ?"
                        " WHERE id = ? AND owner_id = ?",
                 done ? store::Params{at.value_or(now), now, reminder_id, owner}
                      : store::Params{now, reminder_id, owner});
  if (r.affected == 0) return NotFound{};
  return *records_.get_in(conn, owner, kind("reminders"), reminder_id);
}

std::vector<Record> Applications::tags_of(std::int64_t owner, std::int64_t id) {
  auto conn = records_.db().acquire();
  return tags_of_in(*conn, owner, id);
}

std::vector<Record> Applications::tags_of_in(store::Conn& conn, std::int64_t owner,
                                             std::int64_t id) {
  auto rows = conn.query(
      "SELECT g.id, g.name, g.colour FROM application_tags at JOIN tags g ON g.id = at.tag_id"
      " JOIN applications a ON a.id = at.application_id"
      " WHERE at.application_id = ? AND a.owner_id = ? ORDER BY g.name",
      {id, owner});
  std::vector<Record> out;
  for (const auto& r : rows)
    out.push_back({{"id", r.int_at("id")}, {"name", r.text("name")}, {"colour", r.text("colour")}});
  return out;
}

std::variant<bool, FieldErrors, NotFound> Applications::set_tags(
    std::int64_t owner, std::int64_t id, const std::vector<std::int64_t>& tag_ids) {
  return records_.db().write(
      [&](store::Conn& conn) { return set_tags_in(conn, owner, id, tag_ids); });
}

std::variant<bool, FieldErrors, NotFound> Applications::set_tags_in(
    store::Conn& conn, std::int64_t owner, std::int64_t id,
    const std::vector<std::int64_t>& tag_ids) {
  if (conn.query("SELECT 1 FROM applications WHERE id = ? AND owner_id = ?", {id, owner}).empty())
    return NotFound{};
  for (std::int64_t tag : tag_ids)
    if (conn.query("SELECT 1 FROM tags WHERE id = ? AND owner_id = ?", {tag, owner}).empty()) {
      FieldErrors e;
      e.add("tags", "error_ref");
      return e;
    }
  conn.query("DELETE FROM application_tags WHERE application_id = ?", {id});
  for (std::int64_t tag : tag_ids)
    conn.query(
        "INSERT INTO application_tags (application_id, tag_id) VALUES (?, ?)"
        " ON CONFLICT DO NOTHING",
        {id, tag});
  conn.query("UPDATE applications SET updated_at = ? WHERE id = ?",
             {records_.clock().now_ms(), id});
  return true;
}

}  // namespace peto::domain
