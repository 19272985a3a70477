// The dashboard, the boards, and the application page with its forms.
#include <algorithm>
#include <tuple>

#include "connections/connections.h"
#include "core/timezone.h"
#include "domain/board.h"
#include "domain/dashboard.h"
#include "domain/report.h"
#include "http/http.h"
#include "pages/record_pages.h"
#include "pages/record_pages_internal.h"

namespace peto::web {

namespace {

using domain::Kind;
using domain::Record;

// Each reminder with `due_at_text`: its day, its local time or "No date".
nlohmann::json with_times(RecordPages& p, const Visitor& v, std::vector<Record> items) {
  nlohmann::json out = nlohmann::json::array();
  for (Record& r : items) {
    r["due_at_text"] = p.view.when(v, domain::kind("reminders"), r);
    const std::string id = std::to_string(r["id"].get<std::int64_t>());
    r["snooze_action"] = "/reminders/" + id + "/snooze";
    r["select_id"] = "snooze-" + id;
    r["return_to"] = "/";
    out.push_back(std::move(r));
  }
  return out;
}

// A status picker: the select and its options, for a card or the page.
nlohmann::json status_options(RecordPages& p, const Visitor& v, const std::string& current) {
  return p.view.choice_options(v, "status", domain::statuses(), current);
}

// An end reason's select, "none" first.
nlohmann::json end_reason_options(RecordPages& p, const Visitor& v, const std::string& current) {
  std::vector<std::string> reasons = {""};
  for (const auto& reason : domain::end_reasons()) reasons.push_back(reason);
  return p.view.choice_options(v, "end_reason", reasons, current);
}

// What a person with nothing yet does first: add a listing, capture a
// posting, be told of what falls due; the last marked done once it is.
nlohmann::json first_steps(RecordPages& p, const Visitor& v) {
  const auto connections =
      connections::Connections(p.site.db(), p.site.clock(), p.site.settings()).list(v.account.id);
  const bool notified = std::any_of(connections.begin(), connections.end(),
                                    [](const auto& c) { return c.kind == "notifier"; });
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& [key, href, done] :
       {std::tuple{"first_listing", "/listings/new", false},
        std::tuple{"first_capture", "/captures", false},
        std::tuple{"first_notifier", "/profile/connections", notified}})
    steps.push_back({{"href", href},
                     {"label", p.view.text(v, std::string(key))},
                     {"hint", p.view.text(v, std::string(key) + "_hint")},
                     {"done", done}});
  return steps;
}

// "Record an application": the company (found by name or made), the
// listing and the application sent on a day, in one form. `values` as
// typed; the day is today until the person says otherwise.
Response record_form(RecordPages& p, Request& r, const Visitor& v, nlohmann::json values,
                     const nlohmann::json& errors, int status) {
  if (!values.contains("applied_on"))
    values["applied_on"] = local_date(p.site.clock().now_ms(), v.time_zone);
  nlohmann::json inputs =
      listing_inputs(p, v, values, errors, {"role", "company_id", "url", "location"});
  const std::string error = errors.value("applied_on", std::string());
  inputs.push_back({{"name", "applied_on"},
                    {"id", "f-applied_on"},
                    {"label", p.view.text(v, "field_applied_on")},
                    {"value", values.value("applied_on", std::string())},
                    {"error", error},
                    {"has_error", !error.empty()},
                    {"describedby", error.empty() ? "" : "f-applied_on-error"},
                    {"required", true},
                    {"is_select", false},
                    {"is_textarea", false},
                    {"input_type", "date"}});
  for (auto& in : p.view.inputs(v, domain::kind("applications"), values, errors, {"channel"}))
    inputs.push_back(std::move(in));
  nlohmann::json data = {{"title", p.view.text(v, "record_application")},
                         {"action", "/applications/record"},
                         {"inputs", std::move(inputs)},
                         {"submit", p.view.text(v, "record_application_save")},
                         {"cancel_href", "/applications"},
                         {"return_to", ""},
                         {"has_errors", !errors.empty()}};
  if (errors.empty()) say_what_was_read(p, v, values, data);
  return p.site.render(r, v, status, "record_form", std::move(data));
}

// The application of the listing just made, sent on the form's day (noon
// there: no zone change moves it to another day), with its channel.
AfterListing applied_on_the_day(RecordPages& p, const Visitor& v, const Form& form) {
  return [&p, &v, &form](store::Conn& conn, const Record* listing,
                         domain::FieldErrors& errors) -> domain::Written {
    const std::string on = form.get("applied_on");
    std::optional<std::int64_t> applied_at;
    if (!on.empty() && on != local_date(p.site.clock().now_ms(), v.time_zone)) {
      applied_at = on.size() == 10 ? parse_local(on + " 12:00", v.time_zone) : std::nullopt;
      if (!applied_at) errors.add("applied_on", "error_date");
    }
    if (listing == nullptr || !errors.empty()) return errors;
    domain::Written w =
        p.apps.apply_in(conn, v.account.id, id_of(*listing), "applied", "", applied_at);
    if (auto* e = std::get_if<domain::FieldErrors>(&w)) {
      for (const auto& [field, message] : e->by_field)
        errors.add(field == "applied_at" ? "applied_on" : field, message);
      return w;
    }
    if (form.get("channel").empty()) return w;
    domain::Input channel;
    channel.partial = true;
    channel.values = {{"channel", form.get("channel")}};
    domain::Written with_channel = p.records.update_in(
        conn, v.account.id, domain::kind("applications"), id_of(std::get<Record>(w)), channel);
    if (auto* e = std::get_if<domain::FieldErrors>(&with_channel))
      for (const auto& [field, message] : e->by_field) errors.add(field, message);
    return with_channel;
  };
}

Response record_application(RecordPages& p, Request& r, const Visitor& v) {
  Form form = Form::parse(r);
  domain::Input listing = p.view.input(v, form, domain::kind("listings"));
  domain::Written w =
      save_listing(p, v, form, listing, std::nullopt, applied_on_the_day(p, v, form));
  return p.answer(
      r, v, w, [](const Record& rec) { return "/applications/" + std::to_string(id_of(rec)); },
      [&](const nlohmann::json& errors) {
        return record_form(p, r, v, form.to_json(), errors, 422);
      });
}

}  // namespace

Response dashboard_page(RecordPages& p, Request& r, const Visitor& v) {
  std::int64_t now = p.site.clock().now_ms();
  std::string today = local_date(now, v.time_zone);
  domain::Dashboard d =
      domain::dashboard(p.site.db(), v.account.id, now, today, v.account.quiet_after_days,
                        v.account.closing_notice_days);
  nlohmann::json quiet = nlohmann::json::array();
  for (Record& a : d.gone_quiet) {
    a["status_label"] = p.view.choice_label(v, "status", a["status"].get<std::string>());
    quiet.push_back(std::move(a));
  }
  nlohmann::json interviews = nlohmann::json::array();
  for (Record& i : d.interviews) {
    i["kind_label"] = p.view.choice_label(v, "kind", i["kind"].get<std::string>());
    i["starts_at_text"] = p.view.when(v, domain::kind("interviews"), i);
    interviews.push_back(std::move(i));
  }
  nlohmann::json data = {{"title", p.view.text(v, "title_dashboard")},
                         {"csrf_return", "/"},
                         {"reminders_due", with_times(p, v, std::move(d.reminders_due))},
                         {"reminders_upcoming", with_times(p, v, std::move(d.reminders_upcoming))},
                         {"gone_quiet", quiet},
                         {"closing_soon", d.closing_soon},
                         {"interviews", interviews},
                         {"open_applications", d.open_applications},
                         {"undecided_listings", d.undecided_listings},
                         {"quiet_after_days", v.account.quiet_after_days}};
  data["no_reminders_due"] = data["reminders_due"].empty();
  data["no_reminders_upcoming"] = data["reminders_upcoming"].empty();
  data["no_gone_quiet"] = quiet.empty();
  data["no_closing_soon"] = data["closing_soon"].empty();
  data["no_interviews"] = interviews.empty();
  auto conn = p.site.db().acquire();
  domain::ThisWeek week = store::with_read(
      *conn, [&](store::Conn& c) { return domain::this_week(c, v.account.id, now, v.time_zone); });
  data["this_week"] = {{"sent", week.sent},
                       {"replies", week.happened.replies},
                       {"interviews", week.happened.interviews}};
  if (d.listings == 0 && d.open_applications == 0) {
    data["first_run"] = true;
    data["first_steps"] = first_steps(p, v);
  }
  return p.site.render(r, v, 200, "dashboard", std::move(data));
}

// A board column shows its newest cards and counts them all; *Show all*
// opens the column as a table.
constexpr int kCardsShown = 20;

Response listings_board(RecordPages& p, Request& r, const Visitor& v) {
  const Kind& k = domain::kind("listings");
  nlohmann::json columns = nlohmann::json::array();
  for (const char* tab : {"undecided", "shortlisted", "applied"}) {
    domain::ListQuery q;
    q.tab = tab;
    q.limit = kCardsShown;
    domain::Page page = p.records.list(v.account.id, k, q);
    std::int64_t count = 0;
    for (const auto& [state, n] : p.records.count_by(v.account.id, k, "state", tab)) count += n;
    nlohmann::json cards = nlohmann::json::array();
    for (const Record& rec : page.items) {
      const std::string href = "/listings/" + std::to_string(id_of(rec));
      const std::string state = rec["state"].get<std::string>();
      nlohmann::json card = {{"id", id_of(rec)},
                             {"href", href},
                             {"title", p.view.title_of(v, k, rec)},
                             {"company", rec["company_name"]},
                             {"location", rec["location"]},
                             {"closes_on", rec["closes_on"]}};
      // Undecided and shortlisted cards decide in place: shortlist, discard.
      if (std::string(tab) != "applied") {
        card["move"] = {{"action", href + "/state"}, {"field", "state"}, {"value", state}};
        card["decide"] = {{"action", href + "/state"},
                          {"can_shortlist", state != "shortlisted"},
                          {"discard_label", p.site.say(v, "board_discard_named",
                                                       {{"title", p.view.title_of(v, k, rec)}})},
                          {"shortlist_label", p.site.say(v, "board_shortlist_named",
                                                         {{"title", p.view.title_of(v, k, rec)}})}};
      }
      cards.push_back(std::move(card));
    }
    const bool empty = cards.empty();
    columns.push_back(
        {{"key", tab},
         // A card dropped on the undecided or shortlisted column takes that state.
         {"drop", std::string(tab) == "undecided"     ? "new"
                  : std::string(tab) == "shortlisted" ? "shortlisted"
                                                      : ""},
         {"heading", p.view.text(v, std::string("tab_") + tab)},
         {"count", count},
         {"cards", std::move(cards)},
         {"empty", empty},
         {"more_href", page.next_cursor ? "/listings?view=table&tab=" + std::string(tab) : ""}});
  }
  nlohmann::json data = {
      {"title", p.view.text(v, "title_listings")},
      {"columns", std::move(columns)},
      {"table_href", "/listings?view=table"},
      {"new_href", "/listings/new"},
      {"new_label", p.view.text(v, "add_listing")},
      {"kind", "listings"},
      {"wide", true},
      {"return_to", "/listings"},
      {"links",
       {{{"label", p.view.text(v, "tab_discarded")},
         {"href", "/listings?view=table&tab=discarded"}},
        {{"label", p.view.text(v, "tab_closed")}, {"href", "/listings?view=table&tab=closed"}}}}};
  return p.site.render(r, v, 200, "board", std::move(data));
}

namespace {

// Whole days from one moment to another where the person lives: "yesterday"
// is 1 at any hour.
std::int64_t whole_days(const Visitor& v, std::int64_t from_ms, std::int64_t to_ms) {
  const auto from = parse_date_utc_ms(local_date(from_ms, v.time_zone));
  const auto to = parse_date_utc_ms(local_date(to_ms, v.time_zone));
  return from && to ? (*to - *from) / (24 * 3600 * 1000) : 0;
}

// "In this stage since today", "1 day in this stage", "12 days in this stage".
std::string days_in_stage(RecordPages& p, const Visitor& v, std::int64_t since, std::int64_t now) {
  const std::int64_t days = whole_days(v, since, now);
  if (days <= 0) return p.view.text(v, "board_stage_today");
  if (days == 1) return p.view.text(v, "board_stage_one");
  return p.site.say(v, "board_stage_other", {{"count", std::to_string(days)}});
}

// "Next: Call Bea, 2027-01-16 09:00", "Interview (Video): 2027-01-20 14:00".
std::string next_text(RecordPages& p, const Visitor& v, const domain::NextThing& next,
                      std::int64_t now) {
  const std::string when = !next.day.empty() ? next.day : p.site.format_time(v, next.at);
  if (next.kind == "interviews")
    return p.site.say(v, "board_next_interview",
                      {{"kind", p.view.choice_label(v, "kind", next.title)}, {"when", when}});
  return p.site.say(v, next.at < now ? "board_next_reminder_overdue" : "board_next_reminder",
                    {{"title", next.title}, {"when", when}});
}

}  // namespace

Response applications_board(RecordPages& p, Request& r, const Visitor& v) {
  const Kind& k = domain::kind("applications");
  const std::int64_t now = p.site.clock().now_ms();
  nlohmann::json columns = nlohmann::json::array();
  const nlohmann::json end_reasons = end_reason_options(p, v, "");
  const auto counts = p.records.count_by(v.account.id, k, "status", "all");
  for (const std::string& status : domain::statuses()) {
    if (!domain::is_open_status(status)) continue;
    domain::ListQuery q;
    q.tab = "all";
    q.equals["status"] = status;
    q.limit = kCardsShown;
    domain::Page page = p.records.list(v.account.id, k, q);
    std::vector<std::int64_t> ids;
    ids.reserve(page.items.size());
    for (const Record& rec : page.items) ids.push_back(id_of(rec));
    auto facts = domain::card_facts(p.site.db(), v.account.id, ids, now);
    nlohmann::json cards = nlohmann::json::array();
    for (const Record& rec : page.items) {
      const std::string id = std::to_string(id_of(rec));
      const std::string href = "/applications/" + id;
      const domain::CardFacts& f = facts[id_of(rec)];
      nlohmann::json tags = nlohmann::json::array();
      for (const auto& [name, colour] : f.tags)
        tags.push_back({{"name", name}, {"colour", colour}});
      nlohmann::json card = {
          {"id", id_of(rec)},
          {"href", href},
          {"title", p.view.title_of(v, k, rec)},
          {"company", rec["company_name"]},
          {"stage", days_in_stage(p, v, f.stage_since, now)},
          {"move", {{"action", href + "/status"}, {"field", "status"}, {"value", status}}},
          {"has_tags", !tags.empty()},
          {"tags", tags},
          {"picker",
           {{"action", href + "/status"},
            {"id", "status-" + id},
            {"end_id", "end-" + id},
            {"current", status}}}};
      if (rec["priority"].is_number())
        card["priority"] = p.site.say(v, "board_priority",
                                      {{"n", std::to_string(rec["priority"].get<std::int64_t>())}});
      if (f.next) {
        card["next"] = next_text(p, v, *f.next, now);
        card["next_overdue"] = f.next->kind == "reminders" && f.next->at < now;
      }
      cards.push_back(std::move(card));
    }
    // A picker's choices are its column's (the cards of a column share their
    // status) and its end reasons the board's: each is in the data once.
    const bool empty = cards.empty();
    columns.push_back(
        {{"key", status},
         {"drop", status},
         {"heading", p.view.choice_label(v, "status", status)},
         {"count", counts.contains(status) ? counts.at(status) : 0},
         {"cards", std::move(cards)},
         {"options", status_options(p, v, status)},
         {"empty", empty},
         {"more_href",
          page.next_cursor ? "/applications?view=table&tab=all&status=" + status : ""}});
  }
  nlohmann::json data = {{"title", p.view.text(v, "title_applications")},
                         {"columns", std::move(columns)},
                         {"end_reasons", end_reasons},
                         {"table_href", "/applications?view=table"},
                         {"new_href", "/applications/record"},
                         {"new_label", p.view.text(v, "record_application")},
                         {"kind", "applications"},
                         {"wide", true},
                         {"picker_help", true},
                         {"return_to", "/applications"},
                         {"links",
                          {{{"label", p.view.text(v, "tab_closed")},
                            {"href", "/applications?view=table&tab=closed"}}}}};
  return p.site.render(r, v, 200, "board", std::move(data));
}

namespace {

// The part `key` ("values" or "errors") of `form` when it re-shows the form
// called `name`, else an empty object.
nlohmann::json form_part(const nlohmann::json& form, const std::string& name,
                         const std::string& key) {
  if (form.is_object() && form.value("name", "") == name)
    return form.value(key, nlohmann::json::object());
  return nlohmann::json::object();
}

// The application's events, newest first, with their times and labels.
// The application's notes join its timeline: one place where a person
// writes and reads what happened.
nlohmann::json timeline_items(RecordPages& p, const Visitor& v, std::int64_t id,
                              const nlohmann::json& notes) {
  std::vector<Record> events = p.apps.timeline(v.account.id, id).value_or(std::vector<Record>{});
  for (const auto& note : notes)
    events.push_back({{"kind", "note_record"},
                      {"occurred_at", note["created_at"]},
                      {"id", nullptr},
                      {"note_href", note["href"]},
                      {"body", note["body"]}});
  // Newest first, as the timeline is read; a note after the events of its moment.
  std::stable_sort(events.begin(), events.end(), [](const Record& a, const Record& b) {
    return a["occurred_at"].get<std::int64_t>() > b["occurred_at"].get<std::int64_t>();
  });
  nlohmann::json timeline = nlohmann::json::array();
  for (Record& e : events) {
    e["when"] = p.site.format_time(v, e["occurred_at"].get<std::int64_t>());
    if (e["kind"] == "note_record") {
      e["kind_label"] = p.view.text(v, "kind_note");
      timeline.push_back(std::move(e));
      continue;
    }
    e["kind_label"] = p.view.text(v, "event_" + e["kind"].get<std::string>());
    if (e["kind"] == "status_change") {
      e["from_label"] = p.view.choice_label(v, "status", e["from_status"].get<std::string>());
      e["to_label"] = p.view.choice_label(v, "status", e["to_status"].get<std::string>());
      e["summary"] = e["from_label"].get<std::string>() + " → " + e["to_label"].get<std::string>();
      if (e["end_reason"].is_string())
        e["reason_label"] =
            p.view.choice_label(v, "end_reason", e["end_reason"].get<std::string>());
    }
    timeline.push_back(std::move(e));
  }
  return timeline;
}

// The records of kind `kind_name` that belong to application `id`, as the
// page lists them.
nlohmann::json related_items(RecordPages& p, const Visitor& v, std::int64_t id,
                             const char* kind_name) {
  const Kind& rk = domain::kind(kind_name);
  domain::ListQuery q;
  q.tab = "all";
  q.equals["application_id"] = std::to_string(id);
  q.limit = 50;
  nlohmann::json items = nlohmann::json::array();
  for (const Record& rec : p.records.list(v.account.id, rk, q).items) {
    nlohmann::json item = {{"href", "/" + rk.name + "/" + std::to_string(id_of(rec))},
                           {"title", p.view.title_of(v, rk, rec)},
                           {"id", id_of(rec)}};
    if (rk.name == "reminders") {
      bool done = rec["done_at"].is_number();
      item["due"] = p.view.when(v, rk, rec);
      item["done"] = done;
      item["done_value"] = done ? "0" : "1";
      item["done_label"] = p.view.text(v, done ? "reminder_undo" : "reminder_done");
    } else if (rk.name == "interviews") {
      item["ics_href"] = "/interviews/" + std::to_string(id_of(rec)) + "/event.ics";
      item["outcome"] = p.view.choice_label(v, "outcome", rec["outcome"].get<std::string>());
    } else if (rk.name == "notes") {
      item["body"] = rec["body"];
      item["created_at"] = rec["created_at"];
    }
    items.push_back(std::move(item));
  }
  return items;
}

// The options of the event form: the kinds a person records (not the
// system's), `chosen` selected.
nlohmann::json person_event_options(RecordPages& p, const Visitor& v, const std::string& chosen) {
  std::vector<std::string> person_events;
  for (const std::string& kind : domain::event_kinds())
    if (!domain::is_system_event(kind)) person_events.push_back(kind);
  nlohmann::json event_kinds = nlohmann::json::array();
  for (const std::string& kind : person_events)
    event_kinds.push_back({{"value", kind},
                           {"label", p.view.text(v, "event_" + kind)},
                           {"selected", kind == chosen}});
  return event_kinds;
}

// Every tag of the account, checked when application `id` has it.
nlohmann::json tag_choices(RecordPages& p, const Visitor& v, std::int64_t id) {
  nlohmann::json choices = nlohmann::json::array();
  auto mine = p.apps.tags_of(v.account.id, id);
  domain::ListQuery q;
  q.tab = "all";
  q.limit = 200;
  for (const Record& tag : p.records.list(v.account.id, domain::kind("tags"), q).items) {
    bool on = std::any_of(mine.begin(), mine.end(),
                          [&](const Record& t) { return t["id"] == tag["id"]; });
    choices.push_back({{"id", id_of(tag)}, {"name", tag["name"]}, {"checked", on}});
  }
  return choices;
}

}  // namespace

namespace {

// "3 days ago", "today": whole days where the person lives.
std::string days_ago(RecordPages& p, const Visitor& v, std::int64_t then, std::int64_t now) {
  const std::int64_t days = whole_days(v, then, now);
  if (days <= 0) return p.view.text(v, "summary_today");
  if (days == 1) return p.view.text(v, "summary_day_ago");
  return p.site.say(v, "summary_days_ago", {{"count", std::to_string(days)}});
}

// The application at a glance: where, for how much, until when, through whom
// and since when; what is empty is left out.
nlohmann::json summary_facts(RecordPages& p, const Visitor& v, const Record& app) {
  nlohmann::json facts = nlohmann::json::array();
  auto add = [&](const std::string& label_key, const std::string& text,
                 const std::string& href = "") {
    if (!text.empty())
      facts.push_back({{"label", p.view.text(v, label_key)}, {"text", text}, {"href", href}});
  };
  const auto listing =
      p.records.get(v.account.id, domain::kind("listings"), app["listing_id"].get<std::int64_t>());
  if (listing) {
    const Kind& lk = domain::kind("listings");
    auto shown = [&](const char* name) {
      return p.view.shown(v, *lk.field(name), (*listing)[name]);
    };
    std::string place = shown("location");
    if (const std::string remote = shown("remote"); !remote.empty())
      place += (place.empty() ? "" : " · ") + remote;
    add("field_location", place);
    std::string pay = shown("salary_min");
    if (const std::string upto = shown("salary_max"); !upto.empty())
      pay += (pay.empty() ? "" : "–") + upto;
    if (!pay.empty() && (*listing)["currency"].is_string())
      pay += " " + (*listing)["currency"].get<std::string>();
    add("summary_salary", pay);
    add("field_closes_on", shown("closes_on"));
    if ((*listing)["url"].is_string())
      add("summary_link", p.view.text(v, "summary_open_posting"), (*listing)["url"]);
  }
  if (app["contact_name"].is_string() && app["contact_id"].is_number())
    add("field_contact_id", app["contact_name"].get<std::string>(),
        "/contacts/" + std::to_string(app["contact_id"].get<std::int64_t>()));
  const std::int64_t now = p.site.clock().now_ms();
  if (app["applied_at"].is_number()) {
    const std::int64_t at = app["applied_at"].get<std::int64_t>();
    add("field_applied_at", local_date(at, v.time_zone) + " (" + days_ago(p, v, at, now) + ")");
  }
  const Kind& k = domain::kind("applications");
  add("field_channel", p.view.shown(v, *k.field("channel"), app["channel"]));
  add("field_priority", p.view.shown(v, *k.field("priority"), app["priority"]));
  return facts;
}

}  // namespace

Response application_page(RecordPages& p, Request& r, const Visitor& v, std::int64_t id,
                          const nlohmann::json& form) {
  const Kind& k = domain::kind("applications");
  auto app = p.records.get(v.account.id, k, id);
  if (!app) return p.site.not_found(r, v);
  std::string href = "/applications/" + std::to_string(id);
  std::string status = (*app)["status"].get<std::string>();

  auto related = [&](const char* kind_name) { return related_items(p, v, id, kind_name); };
  nlohmann::json timeline = timeline_items(p, v, id, related("notes"));
  std::string chosen_event = form_part(form, "event", "values").value("kind", "note");
  nlohmann::json event_kinds = person_event_options(p, v, chosen_event);

  // Since when it has its status: its last status change, read from the
  // timeline just loaded (newest first), else when it was made.
  std::int64_t stage_since = (*app)["created_at"].get<std::int64_t>();
  for (const auto& e : timeline)
    if (e["kind"] == "status_change") {
      stage_since = e["occurred_at"].get<std::int64_t>();
      break;
    }
  // A form re-shown with its errors is open; the others wait folded.
  const std::string open_form = form.is_object() ? form.value("name", "") : "";

  nlohmann::json tags = tag_choices(p, v, id);
  nlohmann::json status_values = form_part(form, "status", "values");
  nlohmann::json data = {
      {"title",
       (*app)["listing_role"].is_string() ? (*app)["listing_role"].get<std::string>() : ""},
      {"application", *app},
      {"href", href},
      {"listing_href", "/listings/" + std::to_string((*app)["listing_id"].get<std::int64_t>())},
      {"company_href",
       (*app)["company_id"].is_number()
           ? "/companies/" + std::to_string((*app)["company_id"].get<std::int64_t>())
           : ""},
      {"status_label", p.view.choice_label(v, "status", status)},
      {"status_options", status_options(p, v, status_values.value("status", status))},
      {"end_reasons", end_reason_options(p, v, status_values.value("end_reason", ""))},
      {"status_errors", form_part(form, "status", "errors")},
      {"status_values", status_values},
      {"facts", summary_facts(p, v, *app)},
      {"stage", days_in_stage(p, v, stage_since, p.site.clock().now_ms())},
      {"status_open", open_form == "status"},
      {"event_open", open_form == "event"},
      {"reminder_open", open_form == "reminder"},
      {"note_open", open_form == "note"},
      {"edit_href", href + "/edit"},
      {"delete_action", href + "/delete"},
      {"timeline", timeline},
      {"event_kinds", event_kinds},
      {"event_values", form_part(form, "event", "values")},
      {"event_errors", form_part(form, "event", "errors")},
      {"now_local", format_local(p.site.clock().now_ms(), v.time_zone, "%Y-%m-%dT%H:%M")},
      {"reminders", related("reminders")},
      {"reminder_values", form_part(form, "reminder", "values")},
      {"reminder_errors", form_part(form, "reminder", "errors")},
      {"interviews", related("interviews")},
      {"offers", related("offers")},
      {"documents", document_section(p.site, v, "application", id)},
      {"send", send_form(p, v, id)},
      {"note_values", form_part(form, "note", "values")},
      {"note_errors", form_part(form, "note", "errors")},
      {"tags", tags},
      {"has_tags", !tags.empty()},
      {"new_interview_href",
       "/interviews/new?application_id=" + std::to_string(id) + "&return_to=" + url_encode(href)},
      {"new_offer_href",
       "/offers/new?application_id=" + std::to_string(id) + "&return_to=" + url_encode(href)}};
  int code = form.is_object() ? 422 : 200;
  return p.site.render(r, v, code, "application", std::move(data));
}

namespace {

std::string application_href(std::int64_t id) { return "/applications/" + std::to_string(id); }

// A signed-in handler for /applications/{id}/…: the 404 page when the path
// has no id, else `fn` with it.
template <typename Fn>
Guarded application_action(Site& site, const std::shared_ptr<RecordPages>& p, Fn fn) {
  return site.signed_in([p, fn](Request& r, const Visitor& v) {
    auto id = path_id(r);
    if (!id) return p->site.not_found(r, v);
    return fn(*p, r, v, *id);
  });
}

// POST /applications/{id}/status.
Response post_status(RecordPages& p, Request& r, const Visitor& v, std::int64_t id) {
  Form form = Form::parse(r);
  domain::StatusChange change;
  change.to = form.get("status");
  change.note = form.get("note");
  change.end_reason = form.get("end_reason");
  auto w = p.apps.change_status(v.account.id, id, change);
  return p.answer(
      r, v, w,
      [&](const Record&) { return safe_return(form.get("return_to"), application_href(id)); },
      [&](const nlohmann::json& errors) {
        return application_page(
            p, r, v, id, {{"name", "status"}, {"values", form.to_json()}, {"errors", errors}});
      });
}

// POST /applications/{id}/events.
Response post_event(RecordPages& p, Request& r, const Visitor& v, std::int64_t id) {
  Form form = Form::parse(r);
  domain::NewEvent event;
  event.kind = form.get("kind");
  event.summary = form.get("summary");
  event.body = form.get("body");
  if (const std::string when = form.get("occurred_at"); !when.empty()) {
    event.occurred_at = parse_local(when, v.time_zone);
    if (!event.occurred_at) {
      domain::FieldErrors bad;
      bad.add("occurred_at", "error_datetime");
      return application_page(p, r, v, id,
                              {{"name", "event"},
                               {"values", form.to_json()},
                               {"errors", p.site.error_texts(&v, r, bad)}});
    }
  }
  auto added = p.apps.add(v.account.id, id, event);
  if (std::holds_alternative<domain::NotFound>(added)) return p.site.not_found(r, v);
  if (auto* e = std::get_if<domain::FieldErrors>(&added))
    return application_page(
        p, r, v, id,
        {{"name", "event"}, {"values", form.to_json()}, {"errors", p.site.error_texts(&v, r, *e)}});
  return p.site.redirect(r, application_href(id),
                         Flash::of("success", p.site.say(v, "flash_saved")));
}

// POST /applications/{id}/reminders and …/notes: a record of `kind_name`
// belonging to the application, its form re-shown as `form_name` on errors.
Response post_attached(RecordPages& p, Request& r, const Visitor& v, std::int64_t id,
                       const std::string& kind_name, const std::string& form_name) {
  if (!p.records.get(v.account.id, domain::kind("applications"), id)) return p.site.not_found(r, v);
  Form form = Form::parse(r);
  const Kind& k = domain::kind(kind_name);
  domain::Input input = p.view.input(v, form, k);
  input.values["application_id"] = std::to_string(id);
  auto w = p.records.create(v.account.id, k, input);
  return p.answer(
      r, v, w, [&](const Record&) { return application_href(id); },
      [&](const nlohmann::json& errors) {
        return application_page(
            p, r, v, id, {{"name", form_name}, {"values", form.to_json()}, {"errors", errors}});
      });
}

// POST /applications/{id}/tags.
Response post_tags(RecordPages& p, Request& r, const Visitor& v, std::int64_t id) {
  Form form = Form::parse(r);
  std::vector<std::int64_t> tags;
  for (const std::string& t : form.all("tag")) tags.push_back(parse_id(t).value_or(-1));
  auto set = p.apps.set_tags(v.account.id, id, tags);
  if (std::holds_alternative<domain::NotFound>(set)) return p.site.not_found(r, v);
  if (auto* e = std::get_if<domain::FieldErrors>(&set))
    return application_page(
        p, r, v, id,
        {{"name", "tags"}, {"values", form.to_json()}, {"errors", p.site.error_texts(&v, r, *e)}});
  return p.site.redirect(r, application_href(id),
                         Flash::of("success", p.site.say(v, "flash_saved")));
}

}  // namespace

void add_application_routes(Router& router, Site& site, const std::shared_ptr<RecordPages>& p) {
  router.add("POST", "/applications/{id}/status", application_action(site, p, post_status));
  router.add("POST", "/applications/{id}/events", application_action(site, p, post_event));
  // Reminders and notes made on the application page belong to it.
  for (const char* name : {"reminders", "notes"}) {
    std::string kind_name = name;
    std::string form_name = kind_name == "reminders" ? "reminder" : "note";
    router.add("POST", "/applications/{id}/" + kind_name,
               application_action(site, p,
                                  [kind_name, form_name](RecordPages& pages, Request& r,
                                                         const Visitor& v, std::int64_t id) {
                                    return post_attached(pages, r, v, id, kind_name, form_name);
                                  }));
  }
  router.add("POST", "/applications/{id}/tags", application_action(site, p, post_tags));
  router.add("GET", "/applications/record", site.signed_in([p](Request& r, const Visitor& v) {
    return record_form(*p, r, v, Form::from_query(r).to_json(), nlohmann::json::object(), 200);
  }),
             "Record an application: company, listing and application in one form");
  router.add("POST", "/applications/record", site.signed_in([p](Request& r, const Visitor& v) {
    return record_application(*p, r, v);
  }),
             "Record an application");
}

Handler home_handler(Site& site) {
  auto p = std::make_shared<RecordPages>(site, site.db());
  // A GET route: only the handler is wanted (there is no body to admit).
  Handler dashboard =
      site.signed_in([p](Request& r, const Visitor& v) { return dashboard_page(*p, r, v); })
          .handler;
  // With a session cookie the dashboard's own check decides (an expired
  // session goes to the sign-in page); without one, nobody is signed in.
  return [&site, dashboard](Request& r) -> Response {
    if (!cookie_value(r, kSessionCookie).empty()) return dashboard(r);
    if (site.accounts().any()) return Site::redirect("/signin");
    Response out = site.render_public(r, 200, "home", {{"has_accounts", false}});
    out.set_header("Cache-Control", "no-cache");
    return out;
  };
}

}  // namespace peto::web
