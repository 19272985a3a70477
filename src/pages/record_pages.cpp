#include "pages/record_pages.h"

#include <charconv>

#include "core/timezone.h"
#include "domain/calendar.h"
#include "domain/captures.h"
#include "domain/cards.h"
#include "domain/trash.h"
#include "http/http.h"
#include "pages/record_pages_internal.h"

namespace peto::web {

namespace {

using domain::Kind;
using domain::Record;

std::string record_href(const Kind& k, std::int64_t id) {
  return "/" + k.name + "/" + std::to_string(id);
}

// A failed listing save must not leave the company it made behind: the
// company and the listing are written in one transaction, rolled back by
// throwing this when the listing is refused.
struct Refused {
  domain::Written result;
};

}  // namespace

domain::Written save_listing(RecordPages& p, const Visitor& v, const Form& form,
                             domain::Input input, std::optional<std::int64_t> id,
                             const AfterListing& then) {
  try {
    return p.records.db().write([&](store::Conn& conn) -> domain::Written {
      domain::FieldErrors errors;
      std::string company = form.get("company");
      if (!company.empty() || !id) {
        auto made = p.records.company_named(conn, v.account.id, company);
        if (auto* e = std::get_if<domain::FieldErrors>(&made)) {
          errors.add("company", e->by_field.begin()->second);
          input.values["company_id"] = "";
        } else {
          input.values["company_id"] = std::to_string(std::get<std::int64_t>(made));
        }
      }
      domain::Written w =
          id ? p.records.update_in(conn, v.account.id, domain::kind("listings"), *id, input)
             : p.records.create_in(conn, v.account.id, domain::kind("listings"), input);
      if (auto* e = std::get_if<domain::FieldErrors>(&w)) {
        for (auto& [field, message] : e->by_field)
          if (field != "company_id" || errors.empty()) errors.add(field, message);
      }
      if (errors.has("company_id") && !errors.has("company"))
        errors.add("company", errors.by_field["company_id"]);
      if (then) {
        domain::Written next = then(conn, std::get_if<Record>(&w), errors);
        if (errors.empty()) w = std::move(next);
      }
      if (!errors.empty()) throw Refused{errors};
      if (!std::holds_alternative<Record>(w)) throw Refused{w};
      return w;
    });
  } catch (Refused& refused) {
    return refused.result;
  }
}

std::string query_href(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out = path;
  char sep = '?';
  for (const auto& [k, v] : pairs) {
    if (v.empty()) continue;
    out += sep + k + "=" + url_encode(v);
    sep = '&';
  }
  return out;
}

void say_what_was_read(RecordPages& p, const Visitor& v, const nlohmann::json& values,
                       nlohmann::json& data) {
  if (values.value("read", std::string()) != "1") return;
  data["read_notice"] = p.view.text(v, "quick_add_read");
  const std::string unread = values.value("unread", std::string()).substr(0, 200);
  if (!unread.empty())
    data["unread_notice"] = p.site.say(v, "quick_add_unread", {{"words", unread}});
}

nlohmann::json listing_inputs(RecordPages& p, const Visitor& v, const nlohmann::json& values,
                              const nlohmann::json& errors, const std::vector<std::string>& only) {
  nlohmann::json inputs = p.view.inputs(v, domain::kind("listings"), values, errors, only);
  // A listing names its company; peto finds or makes it.
  for (auto& in : inputs)
    if (in["name"] == "company_id") {
      std::string error = errors.value("company", errors.value("company_id", std::string()));
      in = {{"name", "company"},
            {"id", "f-company"},
            {"label", p.view.text(v, "field_company")},
            {"value", values.value("company", std::string())},
            {"error", error},
            {"has_error", !error.empty()},
            {"required", true},
            {"is_select", false},
            {"is_textarea", false},
            {"input_type", "text"},
            {"maxlength", 200},
            {"suggestions", domain::company_names(p.records.db(), v.account.id, 500)}};
      in["has_suggestions"] = !in["suggestions"].empty();
    }
  return inputs;
}

namespace {

Response form_page(RecordPages& p, Request& r, const Visitor& v, const Kind& k,
                   std::optional<std::int64_t> id, const nlohmann::json& values,
                   const nlohmann::json& errors, int status) {
  nlohmann::json inputs = k.name == "listings" ? listing_inputs(p, v, values, errors)
                                               : p.view.inputs(v, k, values, errors);
  std::string action = id ? record_href(k, *id) : "/" + k.name;
  nlohmann::json data = {{"title", p.view.text(v, id ? "edit_" + k.singular : "new_" + k.singular)},
                         {"action", action},
                         {"inputs", std::move(inputs)},
                         {"submit", p.view.text(v, "save_" + k.singular)},
                         {"cancel_href", safe_return(values.value("return_to", std::string()),
                                                     id ? record_href(k, *id) : "/" + k.name)},
                         {"return_to", safe_return(values.value("return_to", std::string()), "")},
                         {"has_errors", !errors.empty()}};
  if (!id && errors.empty()) say_what_was_read(p, v, values, data);
  return p.site.render(r, v, status, "record_form", std::move(data));
}

// The records of `k` that point at record `id` through `field`, for a record page.
nlohmann::json related(RecordPages& p, const Visitor& v, const Kind& k, const std::string& field,
                       std::int64_t id) {
  domain::ListQuery q;
  q.tab = "all";
  q.equals[field] = std::to_string(id);
  q.limit = 50;
  nlohmann::json items = nlohmann::json::array();
  for (const Record& rec : p.records.list(v.account.id, k, q).items)
    items.push_back({{"href", record_href(k, id_of(rec))}, {"title", p.view.title_of(v, k, rec)}});
  return {{"heading", p.view.text(v, "title_" + k.name)},
          {"items", items},
          {"empty", items.empty()},
          {"new_href", "/" + k.name + "/new?" + field + "=" + std::to_string(id)},
          {"new_label", p.view.text(v, "add_" + k.singular)}};
}

// A record's page; for a listing, `apply_error` is a refused "I've applied"
// shown by its date field (status 422 then).
Response show_page(RecordPages& p, Request& r, const Visitor& v, const Kind& k,
                   const std::string& apply_error = "") {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  if (k.name == "applications") return application_page(p, r, v, *id);
  auto rec = p.records.get(v.account.id, k, *id);
  if (!rec) return p.site.not_found(r, v);
  nlohmann::json data = {
      {"title", p.view.title_of(v, k, *rec)},
      {"kind_label", p.view.text(v, "kind_" + k.singular)},
      {"cells", p.view.cells(v, k, *rec, false)},
      {"edit_href", record_href(k, *id) + "/edit"},
      {"delete_action", record_href(k, *id) + "/delete"},
      {"created", p.site.format_time(v, (*rec)["created_at"].get<std::int64_t>())},
      {"updated", p.site.format_time(v, (*rec)["updated_at"].get<std::int64_t>())}};
  nlohmann::json sections = nlohmann::json::array();
  if (k.name == "companies") {
    sections.push_back(related(p, v, domain::kind("listings"), "company_id", *id));
    sections.push_back(related(p, v, domain::kind("contacts"), "company_id", *id));
  } else if (k.name == "listings") {
    sections.push_back(related(p, v, domain::kind("notes"), "listing_id", *id));
    nlohmann::json listing = {{"apply_action", record_href(k, *id) + "/apply"},
                              {"state_action", record_href(k, *id) + "/state"},
                              {"state", (*rec)["state"]},
                              {"today", local_date(p.site.clock().now_ms(), v.time_zone)},
                              {"apply_error", apply_error}};
    if ((*rec)["application_id"].is_number())
      listing["application_href"] =
          "/applications/" + std::to_string((*rec)["application_id"].get<std::int64_t>());
    listing["can_shortlist"] = (*rec)["state"] != "shortlisted";
    listing["can_discard"] = (*rec)["state"] != "discarded";
    listing["can_restore"] = (*rec)["state"] != "new";
    listing["discard_reasons"] = p.view.choice_options(
        v, "discard_reason", domain::kind("listings").field("discard_reason")->choices, "");
    nlohmann::json history = nlohmann::json::array();
    for (const auto& e : domain::listing_history(p.records.db(), v.account.id, *id)) {
      nlohmann::json item = {{"summary", e["summary"]},
                             {"when", p.site.format_time(v, e["occurred_at"].get<std::int64_t>())}};
      if (e["capture_id"].is_number())
        item["href"] = "/captures/" + std::to_string(e["capture_id"].get<std::int64_t>());
      history.push_back(std::move(item));
    }
    listing["history"] = history;
    listing["has_history"] = !history.empty();
    data["listing"] = std::move(listing);
    data["documents"] = document_section(p.site, v, "listing", *id);
  } else if (k.name == "interviews") {
    data["interview"] = {
        {"ics_href", record_href(k, *id) + "/event.ics"},
        {"outcome_action", record_href(k, *id) + "/outcome"},
        {"outcomes", p.view.choice_options(v, "outcome", k.field("outcome")->choices,
                                           (*rec)["outcome"].get<std::string>())},
        {"application_href",
         "/applications/" + std::to_string((*rec)["application_id"].get<std::int64_t>())}};
  } else if (k.name == "cvs") {
    data["cv"] = cv_section(p, v, *id, *rec);
  } else if (k.name == "letters") {
    data["letter"] = letter_section(p, r, v, *id, *rec);
  } else if (k.name == "reminders") {
    bool done = (*rec)["done_at"].is_number();
    data["reminder"] = {{"action", record_href(k, *id) + "/done"},
                        {"done", done ? "0" : "1"},
                        {"label", p.view.text(v, done ? "reminder_undo" : "reminder_done")}};
    if (!done)
      data["reminder"].update({{"snooze_action", record_href(k, *id) + "/snooze"},
                               {"select_id", "snooze"},
                               {"return_to", record_href(k, *id)}});
  }
  data["sections"] = std::move(sections);
  return p.site.render(r, v, apply_error.empty() ? 200 : 422, "record", std::move(data));
}

Response new_page(RecordPages& p, Request& r, const Visitor& v, const Kind& k) {
  nlohmann::json values = Form::from_query(r).to_json();
  // "Add a listing" from a company's page names the company.
  if (k.name == "listings" && !values.contains("company"))
    if (auto company_id = parse_id(values.value("company_id", std::string())))
      if (auto company = p.records.get(v.account.id, domain::kind("companies"), *company_id))
        values["company"] = (*company)["name"];
  return form_page(p, r, v, k, std::nullopt, values, nlohmann::json::object(), 200);
}

Response edit_page(RecordPages& p, Request& r, const Visitor& v, const Kind& k) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  auto rec = p.records.get(v.account.id, k, *id);
  if (!rec) return p.site.not_found(r, v);
  nlohmann::json values = p.view.form_values(v, k, *rec);
  if (k.name == "listings") values["company"] = (*rec)["company_name"];
  return form_page(p, r, v, k, id, values, nlohmann::json::object(), 200);
}

Response save(RecordPages& p, Request& r, const Visitor& v, const Kind& k, bool existing) {
  std::optional<std::int64_t> id;
  if (existing) {
    id = path_id(r);
    if (!id) return p.site.not_found(r, v);
  }
  Form form = Form::parse(r);
  domain::Input input = p.view.input(v, form, k);
  domain::Written w = k.name == "listings" ? save_listing(p, v, form, input, id)
                      : id                 ? p.records.update(v.account.id, k, *id, input)
                                           : p.records.create(v.account.id, k, input);
  return p.answer(
      r, v, w,
      [&](const Record& rec) {
        return safe_return(form.get("return_to"), record_href(k, id_of(rec)));
      },
      [&](const nlohmann::json& errors) {
        return form_page(p, r, v, k, id, form.to_json(), errors, 422);
      });
}

// Delete: a record that others cannot stand without first shows what goes
// with it and asks (confirm=1 answers); then it all goes to the trash, and
// the next page says so with a button that brings it back.
Response remove(RecordPages& p, Request& r, const Visitor& v, const Kind& k) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  auto rec = p.records.get(v.account.id, k, *id);
  if (!rec) return p.site.not_found(r, v);
  Form form = Form::parse(r);
  const std::string back = safe_return(form.get("return_to"), "/" + k.name);
  const std::string kind_label = p.view.text(v, "noun_" + k.name);
  const std::string title = p.view.title_of(v, k, *rec);
  auto gone = domain::Trash(p.records.db(), p.site.clock()).dependents(v.account.id, k, *id);
  if (!gone) return p.site.not_found(r, v);
  if (gone->has_records() && form.get("confirm") != "1") {
    nlohmann::json items = nlohmann::json::array();
    for (const std::string& item : gone_items(p.site.catalogue(), v.language, *gone))
      items.push_back(item);
    return p.site.render(
        r, v, 200, "delete",
        {{"title", p.site.say(v, "delete_confirm_title", {{"kind", kind_label}, {"title", title}})},
         {"gone", items},
         {"action", record_href(k, *id) + "/delete"},
         {"return_to", form.get("return_to")},
         {"cancel_href", record_href(k, *id)}});
  }
  auto entry = p.records.remove(v.account.id, k, *id);
  if (!entry) return p.site.not_found(r, v);
  Flash flash = Flash::of("success",
                          p.site.say(v, "flash_trashed", {{"kind", kind_label}, {"title", title}}));
  flash.undo_action = "/trash/" + std::to_string(*entry) + "/restore";
  flash.undo_label = p.view.text(v, "button_restore_entry");
  flash.link_href = "/trash";
  flash.link_label = p.view.text(v, "flash_open_trash");
  // Back to the page it was deleted from, unless that was its own page.
  const bool own_page = back == record_href(k, *id) || back.starts_with(record_href(k, *id) + "/");
  return p.site.redirect(r, own_page ? "/" + k.name : back, flash);
}

// "I've applied" (status=applied, on the date applied_on, today by default)
// or "Start a draft" (status=draft, also what a form without status means).
Response listing_apply(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id || !p.records.get(v.account.id, domain::kind("listings"), *id))
    return p.site.not_found(r, v);
  Form form = Form::parse(r);
  // Refused: the listing again, the reason by the date field.
  auto refuse = [&](const std::string& detail) {
    return show_page(p, r, v, domain::kind("listings"), detail);
  };
  const std::string status = form.get("status").empty() ? "draft" : form.get("status");
  if (status != "draft" && status != "applied") return refuse(p.view.text(v, "error_choice"));
  std::optional<std::int64_t> applied_at;
  const std::string on = form.get("applied_on");
  if (status == "applied" && !on.empty() &&
      on != local_date(p.site.clock().now_ms(), v.time_zone)) {
    // A day in the past: noon there, a time no zone change moves to another day.
    applied_at = parse_local(on + " 12:00", v.time_zone);
    if (!applied_at) return refuse(p.view.text(v, "error_date"));
  }
  auto w = p.apps.apply(v.account.id, *id, status, "", applied_at);
  return p.answer(
      r, v, w, [](const Record& rec) { return "/applications/" + std::to_string(id_of(rec)); },
      [&](const nlohmann::json& errors) { return refuse(errors.begin()->get<std::string>()); });
}

Response listing_state(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  Form form = Form::parse(r);
  domain::Input input;
  input.partial = true;
  input.values = {{"state", form.get("state")}, {"discard_reason", form.get("discard_reason")}};
  auto w = p.records.update(v.account.id, domain::kind("listings"), *id, input);
  return p.answer(
      r, v, w,
      [&](const Record&) {
        return safe_return(form.get("return_to"), "/listings/" + std::to_string(*id));
      },
      [&](const nlohmann::json& errors) {
        return p.site.render(r, v, 422, "error",
                             {{"status", 422}, {"detail", errors.begin()->get<std::string>()}});
      });
}

Response reminder_done(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  Form form = Form::parse(r);
  auto w = p.apps.set_done(v.account.id, *id, form.get("done") != "0");
  return p.answer(
      r, v, w, [&](const Record&) { return safe_return(form.get("return_to"), "/reminders"); },
      [&](const nlohmann::json&) { return p.site.not_found(r, v); });
}

Response interview_outcome(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  Form form = Form::parse(r);
  auto w = p.apps.set_outcome(v.account.id, *id, form.get("outcome"));
  return p.answer(
      r, v, w,
      [&](const Record&) {
        return safe_return(form.get("return_to"), "/interviews/" + std::to_string(*id));
      },
      [&](const nlohmann::json& errors) {
        return p.site.render(r, v, 422, "error",
                             {{"status", 422}, {"detail", errors.begin()->get<std::string>()}});
      });
}

Response interview_ics(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  const Kind& k = domain::kind("interviews");
  auto rec = p.records.get(v.account.id, k, *id);
  if (!rec) return p.site.not_found(r, v);
  std::string uid = domain::interview_uid(p.records.db(), v.account.id, *id);
  std::string title = domain::interview_title(v.language, *rec);
  Response out;
  out.status = 200;
  out.body = domain::interview_ics(*rec, uid, title, p.site.clock().now_ms());
  out.set_header("Content-Type", "text/calendar; charset=utf-8");
  out.set_header("Content-Disposition",
                 "attachment; filename=\"interview-" + std::to_string(*id) + ".ics\"");
  return out;
}

}  // namespace

void add_record_routes(Router& router, Site& site) {
  auto p = std::make_shared<RecordPages>(site, site.db());
  auto page = [&site, p](auto fn) {
    return site.signed_in([p, fn](Request& r, const Visitor& v) { return fn(*p, r, v); });
  };
  for (const Kind& kind : domain::kinds()) {
    const Kind* k = &kind;
    std::string base = "/" + k->name;
    router.add("GET", base, page([k](RecordPages& p, Request& r, const Visitor& v) {
                 Form q = Form::from_query(r);
                 if (q.get("view") != "table" && k->name == "listings")
                   return listings_board(p, r, v);
                 if (q.get("view") != "table" && k->name == "applications")
                   return applications_board(p, r, v);
                 return table_page(p, r, v, *k, q);
               }));
    router.add("GET", base + "/new", page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return new_page(p, r, v, *k);
               }));
    router.add("POST", base, page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return save(p, r, v, *k, false);
               }));
    router.add("POST", base + "/bulk", page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return bulk_action(p, r, v, *k);
               }));
    router.add("POST", base + "/views", page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return save_view(p, r, v, *k);
               }));
    router.add("POST", base + "/views/{id}/delete",
               page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return forget_view(p, r, v, *k);
               }));
    router.add("GET", base + "/{id}", page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return show_page(p, r, v, *k);
               }));
    router.add("GET", base + "/{id}/edit", page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return edit_page(p, r, v, *k);
               }));
    router.add("POST", base + "/{id}", page([k](RecordPages& p, Request& r, const Visitor& v) {
                 return save(p, r, v, *k, true);
               }));
    router.add(
        "POST", base + "/{id}/delete",
        page([k](RecordPages& p, Request& r, const Visitor& v) { return remove(p, r, v, *k); }));
  }
  router.add("POST", "/listings/{id}/apply", page(listing_apply));
  router.add("POST", "/listings/{id}/state", page(listing_state));
  router.add("POST", "/reminders/{id}/done", page(reminder_done));
  router.add("POST", "/interviews/{id}/outcome", page(interview_outcome));
  router.add("GET", "/interviews/{id}/event.ics", page(interview_ics));
  router.add("GET", "/cvs/{id}/cv.pdf", page(cv_pdf));
  router.add("GET", "/cvs/{id}/cv.txt", page(cv_text));
  router.add("GET", "/letters/{id}/letter.pdf", page(letter_pdf));
  router.add("GET", "/letters/{id}/letter.txt", page(letter_text));
  router.add("POST", "/applications/{id}/send", page(post_send));
  router.add("GET", "/applications/{id}/send/{task}", page(send_progress));
  router.add("GET", "/documents/{id}/compare", page(compare_page));
  add_application_routes(router, site, p);
}

}  // namespace peto::web
