#include "pages/calendar_pages.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/timezone.h"
#include "domain/agenda.h"
#include "domain/kinds.h"
#include "domain/records.h"
#include "http/form.h"
#include "pages/record_view.h"

namespace peto::web {

namespace {

using nlohmann::json;

constexpr int kAgendaDays = 28;
// A month's cell names its first few items and links to its week for the
// rest; the agenda lists the first overdue reminders and links to all.
constexpr std::size_t kShownInACell = 3;
constexpr std::size_t kOverdueShown = 10;

bool is_day(const std::string& s) { return s.size() == 10 && parse_date_utc_ms(s).has_value(); }

std::string day_format(const std::string& day, const char* fmt) {
  return format_local(*parse_date_utc_ms(day), "UTC", fmt);
}

// "7 Dec 2026"; with the weekday, "Mon 7 Dec".
std::string short_date(const std::string& day, bool weekday) {
  std::string number = std::to_string(std::stoi(day.substr(8, 2)));
  return weekday ? day_format(day, "%a ") + number + day_format(day, " %b")
                 : number + day_format(day, " %b %Y");
}

int weekday_of(const std::string& day) { return std::stoi(day_format(day, "%u")); }  // Mon 1

std::string monday_of(const std::string& day) { return add_days(day, 1 - weekday_of(day)); }

// The first day of the month `months` on from the month of `day`.
std::string month_from(const std::string& day, int months) {
  int index = std::stoi(day.substr(0, 4)) * 12 + std::stoi(day.substr(5, 2)) - 1 + months;
  char out[32];
  std::snprintf(out, sizeof out, "%04d-%02d-01", index / 12, index % 12 + 1);
  return out;
}

// The days a view shows, [from, to), and where its arrows lead.
struct Span {
  std::string from, to, earlier, later;
};

Span span_of(const std::string& view, const std::string& date) {
  if (view == "week") {
    std::string monday = monday_of(date);
    return {monday, add_days(monday, 7), add_days(monday, -7), add_days(monday, 7)};
  }
  if (view == "month") {
    std::string first = month_from(date, 0), next = month_from(date, 1);
    return {monday_of(first), add_days(monday_of(add_days(next, -1)), 7), month_from(date, -1),
            next};
  }
  return {date, add_days(date, kAgendaDays), add_days(date, -kAgendaDays),
          add_days(date, kAgendaDays)};
}

class CalendarView {
 public:
  CalendarView(Site& site, const Visitor& v, std::string view, std::string date)
      : site_(site), v_(v), view_(std::move(view)), date_(std::move(date)) {
    today_ = local_date(site.clock().now_ms(), v.time_zone);
    if (!is_day(date_)) date_ = today_;
    span_ = span_of(view_, date_);
  }

  json data() {
    domain::AgendaQuery q;
    q.zone = v_.time_zone;
    q.from = span_.from;
    q.to = span_.to;
    q.now = site_.clock().now_ms();
    q.with_overdue = view_ == "agenda" && span_.from <= today_;
    std::size_t overdue = 0;
    for (const domain::AgendaItem& i : domain::agenda(site_.db(), v_.account.id, q)) {
      if (i.overdue && view_ == "agenda") {
        if (++overdue <= kOverdueShown) overdue_.push_back(item(i));
      } else {
        by_day_[i.day].push_back(i);
      }
    }
    json out = {
        {"title", text("title_calendar")},
        {"views", views()},
        {"heading", heading()},
        {"earlier_href", href(view_, span_.earlier)},
        {"later_href", href(view_, span_.later)},
        {"today_href", href(view_, today_)},
        {"return_to", href(view_, date_)},
        {"overdue", overdue_},
        {"overdue_more",
         overdue > kOverdueShown ? counted("calendar_overdue_more", overdue - kOverdueShown) : ""},
        {"has_overdue", !overdue_.empty()},
        {"is_month", view_ == "month"}};
    if (view_ == "month")
      out["weeks"] = weeks();
    else
      out["days"] = days();
    out["empty"] = overdue_.empty() && by_day_.empty();
    return out;
  }

 private:
  std::string text(const std::string& key) const {
    return site_.catalogue().text(v_.language, key);
  }

  // The "_one" or "_other" message of `key` with {n}.
  std::string counted(const std::string& key, std::size_t n) const {
    return site_.catalogue().fill(v_.language, key + (n == 1 ? "_one" : "_other"),
                                  {{"n", std::to_string(n)}});
  }

  static std::string href(const std::string& view, const std::string& date) {
    return "/calendar?view=" + view + "&date=" + date;
  }

  json views() const {
    json out = json::array();
    for (const char* name : {"agenda", "week", "month"})
      out.push_back({{"label", text(std::string("calendar_view_") + name)},
                     {"href", href(name, date_)},
                     {"current", view_ == name}});
    return out;
  }

  std::string heading() const {
    if (view_ == "month") return day_format(date_, "%B %Y");
    std::string last = add_days(span_.to, -1);
    return short_date(span_.from, false) + " – " + short_date(last, false);
  }

  // An item with its record's link; a reminder still to do with its Done
  // and Snooze forms too, but not in a month's cell (too narrow for them).
  json item(const domain::AgendaItem& i) const {
    const std::string what =
        i.kind == "reminders" ? i.title
                              : site_.catalogue().fill(v_.language, "notice_role_at_company",
                                                       {{"role", i.title}, {"company", i.company}});
    std::string record = "/" + i.kind + "/" + std::to_string(i.id);
    json out = {{"href", record},
                {"label", text("calendar_" + i.what)},
                {"what", i.what},
                {"title", what},
                {"time", i.at ? format_local(*i.at, v_.time_zone, "%H:%M") : ""},
                {"done", i.done},
                {"overdue", i.overdue}};
    if (i.kind == "reminders" && !i.done && view_ != "month")
      out["reminder"] = {{"done_action", record + "/done"},
                         {"snooze_action", record + "/snooze"},
                         {"select_id", "snooze-" + std::to_string(i.id)}};
    return out;
  }

  json day_entry(const std::string& day) {
    auto it = by_day_.find(day);
    const std::size_t all = it == by_day_.end() ? 0 : it->second.size();
    const std::size_t shown = view_ == "month" ? std::min(all, kShownInACell) : all;
    json items = json::array();
    for (std::size_t n = 0; n < shown; ++n) items.push_back(item(it->second[n]));
    json out = {{"day", day},
                {"label", short_date(day, true)},
                {"number", std::stoi(day.substr(8, 2))},
                {"today", day == today_},
                {"in_month", day.substr(0, 7) == date_.substr(0, 7)},
                {"none", shown == 0},
                {"items", std::move(items)}};
    if (shown < all)
      out["more"] = {{"label", counted("calendar_more", all - shown)},
                     {"on", out["label"]},
                     {"href", href("week", day) + "#day-" + day}};
    return out;
  }

  // The agenda: the days that have something; a week: all seven.
  json days() {
    json out = json::array();
    for (std::string d = span_.from; d < span_.to; d = add_days(d, 1))
      if (view_ == "week" || by_day_.count(d)) out.push_back(day_entry(d));
    return out;
  }

  json weeks() {
    json out = json::array();
    for (std::string monday = span_.from; monday < span_.to; monday = add_days(monday, 7)) {
      json week = json::array();
      for (int i = 0; i < 7; ++i) week.push_back(day_entry(add_days(monday, i)));
      out.push_back({{"days", std::move(week)}});
    }
    return out;
  }

  Site& site_;
  const Visitor& v_;
  std::string view_, date_, today_;
  Span span_;
  json overdue_ = json::array();
  std::map<std::string, std::vector<domain::AgendaItem>> by_day_;
};

Response calendar_page(Site& site, Request& r, const Visitor& v) {
  std::string view = r.query_param("view").value_or("agenda");
  if (view != "week" && view != "month") view = "agenda";
  CalendarView page(site, v, view, r.query_param("date").value_or(""));
  return site.render(r, v, 200, "calendar", page.data());
}

// A reminder put off: to a preset ("later", "tomorrow", "next_week") or to
// the day and time picked; then back where the person was.
Response snooze(Site& site, Request& r, const Visitor& v) {
  auto id = parse_id(r.param("id"));
  if (!id || !domain::owns(site.db(), "reminders", *id, v.account.id)) return site.not_found(r, v);
  Form form = Form::parse(r);
  std::optional<std::int64_t> until =
      form.get("until") == "pick"
          ? parse_local(form.get("at"), v.time_zone)
          : domain::snooze_until(form.get("until"), site.clock().now_ms(), v.time_zone);
  if (!until)
    return site.render(r, v, 422, "error",
                       {{"status", 422}, {"detail", site.say(v, "error_snooze_until")}});
  domain::Input in;
  in.values = {{"due_at", *until}, {"due_on", nullptr}};
  in.from_form = false;
  in.partial = true;
  auto written = domain::Records(site.db(), site.clock())
                     .update(v.account.id, domain::kind("reminders"), *id, in);
  if (!std::holds_alternative<domain::Record>(written)) return site.not_found(r, v);
  return site.redirect(
      r, safe_return(form.get("return_to"), "/reminders/" + std::to_string(*id)),
      Flash::of("success", site.say(v, "flash_snoozed", {{"when", site.format_time(v, *until)}})));
}

}  // namespace

void add_calendar_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("GET", "/calendar",
             site.signed_in([s](Request& r, const Visitor& v) { return calendar_page(*s, r, v); }),
             "Calendar: agenda, week or month");
  router.add("POST", "/reminders/{id}/snooze",
             site.signed_in([s](Request& r, const Visitor& v) { return snooze(*s, r, v); }),
             "Put a reminder off to later");
}

}  // namespace peto::web
