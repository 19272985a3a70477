#include "domain/agenda.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/timezone.h"
#include "domain/kinds.h"

namespace peto::domain {

namespace {

// The role and its company, joined from an application `a`.
const char* kRoleAtCompany =
    " l.role AS role, c.name AS company FROM applications a"
    " JOIN listings l ON l.id = a.listing_id JOIN companies c ON c.id = l.company_id";

class Collector {
 public:
  Collector(store::Db& db, std::int64_t owner, const AgendaQuery& q)
      : db_(db), owner_(owner), q_(q) {
    from_ms_ = parse_local(q.from + " 00:00", q.zone).value_or(0);
    to_ms_ = parse_local(q.to + " 00:00", q.zone).value_or(0);
  }

  std::vector<AgendaItem> run() {
    interviews();
    reminders();
    dates();
    std::stable_sort(items_.begin(), items_.end(), [](const AgendaItem& a, const AgendaItem& b) {
      return std::make_tuple(!a.overdue, a.day, a.at.has_value(), a.at.value_or(0), a.id) <
             std::make_tuple(!b.overdue, b.day, b.at.has_value(), b.at.value_or(0), b.id);
    });
    return std::move(items_);
  }

 private:
  void interviews() {
    auto rows = db_.query("SELECT i.id, i.starts_at, i.starts_on, i.outcome," +
                              std::string(kRoleAtCompany) +
                              " JOIN interviews i ON i.application_id = a.id"
                              " WHERE i.owner_id = ? AND i.outcome <> 'cancelled'"
                              " AND i.starts_at >= ? AND i.starts_at < ?",
                          {owner_, from_ms_, to_ms_});
    for (const auto& r : rows) {
      AgendaItem item = made("interview", "interviews", r, r.text("role"), r.text("company"));
      timed(item, r, "starts_at", "starts_on");
      item.done = r.text("outcome") != "scheduled";
      items_.push_back(std::move(item));
    }
  }

  void reminders() {
    std::string when = "(r.due_at >= ? AND r.due_at < ?)";
    store::Params params{owner_, from_ms_, to_ms_};
    if (q_.with_overdue) {
      when = "(" + when + " OR (r.done_at IS NULL AND r.due_at < ? AND r.due_at < ?))";
      params.emplace_back(q_.now);
      params.emplace_back(from_ms_);
    }
    auto rows = db_.query(
        "SELECT r.id, r.title, r.due_at, r.due_on, r.done_at FROM reminders r"
        " WHERE r.owner_id = ? AND " +
            when,
        params);
    for (const auto& r : rows) {
      AgendaItem item = made("reminder", "reminders", r, r.text("title"), "");
      timed(item, r, "due_at", "due_on");
      item.done = !r.is_null("done_at");
      item.overdue = !item.done && r.int_at("due_at") < q_.now;
      items_.push_back(std::move(item));
    }
  }

  // Whole days: an open application's deadline, a listing still to decide
  // on closing, an offer's answer-by date.
  void dates() {
    const std::string open = application_open("a");
    day_rows("deadline", "applications",
             "SELECT a.id, a.deadline AS day," + std::string(kRoleAtCompany) +
                 " WHERE a.owner_id = ? AND " + open + " AND a.deadline >= ? AND a.deadline < ?");
    day_rows("closing", "listings",
             "SELECT l.id, l.closes_on AS day, l.role AS role, c.name AS company FROM listings l"
             " JOIN companies c ON c.id = l.company_id WHERE l.owner_id = ?"
             " AND l.closed_at IS NULL AND l.state <> 'discarded' AND NOT " +
                 listing_applied("l") + " AND l.closes_on >= ? AND l.closes_on < ?");
    day_rows("answer_by", "offers",
             "SELECT o.id, o.answer_by AS day," + std::string(kRoleAtCompany) +
                 " JOIN offers o ON o.application_id = a.id WHERE o.owner_id = ?"
                 " AND a.status = 'offer' AND o.answer_by >= ? AND o.answer_by < ?");
  }

  void day_rows(const char* what, const char* kind, const std::string& sql) {
    for (const auto& r : db_.query(sql, {owner_, q_.from, q_.to})) {
      AgendaItem item = made(what, kind, r, r.text("role"), r.text("company"));
      item.day = r.text("day");
      items_.push_back(std::move(item));
    }
  }

  // An item of the row's record.
  static AgendaItem made(const char* what, const char* kind, const store::Row& r, std::string title,
                         std::string company) {
    AgendaItem item;
    item.what = what;
    item.kind = kind;
    item.id = r.int_at("id");
    item.title = std::move(title);
    item.company = std::move(company);
    return item;
  }

  // The day and, unless the record is all-day, the moment.
  void timed(AgendaItem& item, const store::Row& r, const char* moment, const char* day) {
    if (!r.is_null(day)) {
      item.day = r.text(day);
      return;
    }
    item.at = r.int_at(moment);
    item.day = local_date(*item.at, q_.zone);
  }

  store::Db& db_;
  std::int64_t owner_;
  const AgendaQuery& q_;
  std::int64_t from_ms_ = 0;
  std::int64_t to_ms_ = 0;
  std::vector<AgendaItem> items_;
};

}  // namespace

std::optional<std::int64_t> snooze_until(const std::string& preset, std::int64_t now,
                                         const std::string& zone) {
  constexpr std::int64_t kHour = 3600 * 1000;
  if (preset == "later") return now + 3 * kHour;
  const std::string today = local_date(now, zone);
  if (preset == "tomorrow") return parse_local(add_days(today, 1) + " 09:00", zone);
  if (preset == "next_week") {
    const int weekday = std::stoi(format_local(now, zone, "%u"));  // Monday 1 … Sunday 7
    return parse_local(add_days(today, 8 - weekday) + " 09:00", zone);
  }
  return std::nullopt;
}

std::vector<AgendaItem> agenda(store::Db& db, std::int64_t owner, const AgendaQuery& q) {
  return Collector(db, owner, q).run();
}

}  // namespace peto::domain
