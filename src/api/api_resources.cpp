// The /api/v1 resources: every kind of record (create, get, change, delete;
// lists are in api_lists.cpp, an application's own routes in
// api_applications.cpp), reminders done, interview outcomes, /me, and the
// OpenAPI document. Each route is declared once, with its OpenAPI operation
// next to its handler.
#include <mutex>
#include <utility>

#include "api/api_resources_internal.h"
#include "api/openapi.h"
#include "domain/trash.h"
#include "pages/record_view.h"

namespace peto::web {

namespace api_detail {
namespace {

using domain::Field;
using domain::FieldErrors;
using domain::FieldType;
using domain::Kind;
using domain::Record;
using nlohmann::json;

json rfc3339(const json& ms) { return ms.is_number() ? json(format_time_s(ms.get<Millis>())) : ms; }

}  // namespace

json api_record(const Kind& kind, Record r) {
  for (const Field& f : kind.fields)
    if (f.type == FieldType::datetime) r[f.name] = rfc3339(r[f.name]);
  r["created_at"] = rfc3339(r["created_at"]);
  r["updated_at"] = rfc3339(r["updated_at"]);
  return r;
}

json api_event(Record e) {
  e["occurred_at"] = rfc3339(e["occurred_at"]);
  e["created_at"] = rfc3339(e["created_at"]);
  return e;
}

void add_record_action(Api& api, const Kind& kind, const std::string& action, json op,
                       ApiHandler handler) {
  api.add({.method = "POST",
           .pattern = "/api/v1/" + kind.name + "/{id}/" + action,
           .area = kind.name,
           .write = true,
           .operation = std::move(op),
           .handler = std::move(handler),
           .id_kind = kind.name});
}

namespace {

void add_get(Api& api, const Shared& res, const Kind& kind) {
  std::string name = schema_name(kind);
  json op = api_operation("get" + name, "Read one " + kind.singular, kind.name);
  api_id_parameter(op);
  api_answer(op, 200, "The " + kind.singular, schema_ref(name));
  api.add({.method = "GET",
           .pattern = "/api/v1/" + kind.name + "/{id}",
           .area = kind.name,
           .write = false,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 auto rec = res->records.get(c.owner(), kind, c.id);
                 if (!rec) return res->missing(c.request, kind);
                 return Response::json(200, api_record(kind, *rec));
               },
           .id_kind = kind.name});
}

void add_create(Api& api, const Shared& res, const Kind& kind) {
  std::string name = schema_name(kind);
  json op = api_operation("create" + name, "Add a " + kind.singular, kind.name);
  api_body(op, schema_ref(name + "Input"));
  api_answer(op, 201, "The new " + kind.singular, schema_ref(name));
  api.add({.method = "POST",
           .pattern = "/api/v1/" + kind.name,
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler = [res, &kind](ApiCall& c) {
             domain::Input input;
             input.values = c.body;
             input.from_form = false;
             input.strict_types = true;
             input.actor = c.actor();
             return res->written(c.request, kind,
                                 res->records.create_in(*c.tx, c.owner(), kind, input), 201);
           }});
}

void add_patch(Api& api, const Shared& res, const Kind& kind) {
  std::string name = schema_name(kind);
  json op = api_operation("update" + name, "Change some fields of a " + kind.singular, kind.name);
  api_id_parameter(op);
  api_body(op, schema_ref(name + "Patch"));
  api_answer(op, 200, "The " + kind.singular + " as it is now", schema_ref(name));
  api.add({.method = "PATCH",
           .pattern = "/api/v1/" + kind.name + "/{id}",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 domain::Input input;
                 input.values = c.body;
                 input.from_form = false;
                 input.strict_types = true;
                 input.actor = c.actor();
                 input.partial = true;
                 return res->written(c.request, kind,
                                     res->records.update(c.owner(), kind, c.id, input), 200);
               },
           .id_kind = kind.name});
}

void add_delete(Api& api, const Shared& res, const Kind& kind) {
  json op = api_operation("delete" + schema_name(kind), "Delete a " + kind.singular, kind.name);
  op["description"] =
      "Moves the " + kind.singular +
      " to the trash, where it stays 30 days (GET /api/v1/trash, POST "
      "/api/v1/trash/{id}/restore). A " +
      kind.singular +
      " that other records cannot stand without (a company's listings, a listing's "
      "application, an application's reminders, interviews, offers and notes) is refused with "
      "409, naming all that would go in `dependents` (its own timeline too), unless "
      "`cascade=true` says that they go to the trash with it.";
  api_id_parameter(op);
  api_query_parameter(op, "cascade", {{"type", "boolean"}},
                      "true: delete it with what depends on it; without it a record with "
                      "dependents is refused with 409");
  api_answer(op, 204, "Moved to the trash");
  op["responses"]["409"] = {
      {"description", "It has dependents and cascade=true was not given"},
      {"content", {{"application/problem+json", {{"schema", schema_ref("Problem")}}}}}};
  api.add({.method = "DELETE",
           .pattern = "/api/v1/" + kind.name + "/{id}",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 auto cascade = c.request.query_param("cascade");
                 if (cascade && *cascade != "true" && *cascade != "false") {
                   FieldErrors errors;
                   errors.add("cascade", "error_choice");
                   return res->api->invalid(c.request, errors);
                 }
                 domain::Trash trash(res->site.db(), res->site.clock());
                 auto gone = trash.dependents(c.owner(), kind, c.id);
                 if (!gone) return res->missing(c.request, kind);
                 if (gone->has_records() && cascade != "true") {
                   Response out = res->api->problem(
                       c.request, 409, "Has dependents",
                       "This " + kind.singular + " has " +
                           gone_words(res->site.catalogue(), "en", *gone) +
                           ". Send DELETE again with ?cascade=true to move them to the trash "
                           "with it.");
                   json body = json::parse(out.body);
                   body["dependents"] = gone->counts;
                   out.body = body.dump();
                   return out;
                 }
                 if (!res->records.remove(c.owner(), kind, c.id))
                   return res->missing(c.request, kind);
                 Response out;
                 out.status = 204;
                 return out;
               },
           .query = {"cascade"},
           .id_kind = kind.name});
}

void add_reminder_done(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("reminders");
  json op =
      api_operation("markReminderDone", "Mark a reminder done (or not done again)", kind.name);
  api_id_parameter(op);
  api_body(op,
           {{"type", "object"},
            {"properties", {{"done", {{"type", "boolean"}, {"description", "true (default)"}}}}},
            {"additionalProperties", false}},
           false);
  api_answer(op, 200, "The reminder as it is now", schema_ref("Reminder"));
  add_record_action(api, kind, "done", op, [res, &kind](ApiCall& c) {
    BodyFields body(c.body);
    bool done = body.boolean("done").value_or(true);
    if (FieldErrors errors = body.finish(); !errors.empty())
      return res->api->invalid(c.request, errors);
    return res->written(c.request, kind, res->apps.set_done_in(*c.tx, c.owner(), c.id, done), 200);
  });
}

void add_interview_outcome(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("interviews");
  json op = api_operation("setInterviewOutcome", "Record how an interview went", kind.name);
  api_id_parameter(op);
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"outcome", {{"type", "string"}, {"enum", kind.field("outcome")->choices}}}}},
                {"required", {"outcome"}},
                {"additionalProperties", false}});
  api_answer(op, 200, "The interview as it is now", schema_ref("Interview"));
  add_record_action(api, kind, "outcome", op, [res, &kind](ApiCall& c) {
    BodyFields body(c.body);
    std::string outcome = body.text("outcome", true, 40).value_or("");
    if (FieldErrors errors = body.finish(); !errors.empty())
      return res->api->invalid(c.request, errors);
    return res->written(c.request, kind, res->apps.set_outcome_in(*c.tx, c.owner(), c.id, outcome),
                        200);
  });
}

// Who the token acts for; the profile's settings only to a token that may
// read the profile (profile:read, profile:write, read or write).
json me_answer(const domain::Account& a, const domain::ApiToken& token) {
  json out = {{"id", a.id},
              {"email", a.email},
              {"is_admin", a.is_admin},
              {"token", {{"id", token.id}, {"name", token.name}, {"scopes", token.scopes}}}};
  if (domain::scope_allows(token.scopes, "profile", false)) {
    out["language"] = a.language;
    out["time_zone"] = a.time_zone;
    out["quiet_after_days"] = a.quiet_after_days;
    out["closing_notice_days"] = a.closing_notice_days;
    out["follow_up_days"] = a.reminders.follow_up_days;
    out["remind_interviews"] = a.reminders.interviews;
    out["remind_answer_by"] = a.reminders.answer_by;
    out["remind_closing"] = a.reminders.closing;
  }
  return out;
}

void add_me(Api& api, const Shared& res) {
  json op = api_operation("getMe",
                          "Who this token acts for, and its scopes; the profile's settings "
                          "only with profile:read",
                          "me");
  api_answer(op, 200, "The account and the token", schema_ref("Me"));
  api.add({.method = "GET", .pattern = "/api/v1/me", .operation = op, .handler = [](ApiCall& c) {
             return Response::json(200, me_answer(c.bearer.account, c.bearer.token));
           }});

  op = api_operation("updateMe", "Change the profile's settings", "me");
  api_body(op, {{"type", "object"},
                {"properties", profile_settings_schema()},
                {"additionalProperties", false}});
  api_answer(op, 200, "The account as it is now", schema_ref("Me"));
  api.add({.method = "PATCH",
           .pattern = "/api/v1/me",
           .area = "profile",
           .write = true,
           .operation = op,
           .handler = [res](ApiCall& c) {
             domain::Account a = c.bearer.account;
             BodyFields body(c.body);
             auto language = body.text("language", false, 20);
             auto zone = body.text("time_zone", false, 64);
             auto quiet = body.integer("quiet_after_days");
             auto closing = body.integer("closing_notice_days");
             auto follow_up = body.integer("follow_up_days");
             auto interviews = body.boolean("remind_interviews");
             auto answer_by = body.boolean("remind_answer_by");
             auto closing_reminders = body.boolean("remind_closing");
             FieldErrors errors = body.finish();
             if (language && !language->empty() && !res->site.catalogue().has_language(*language))
               errors.add("language", "error_language_invalid");
             if (!errors.empty()) return res->api->invalid(c.request, errors);
             // update_profile checks the ranges; a number too big for an int fails them too.
             auto days = [](std::optional<std::int64_t> v, int current) {
               if (!v) return current;
               return *v < 0 || *v > 100000 ? -1 : static_cast<int>(*v);
             };
             domain::Account wanted = a;
             wanted.language = language.value_or(a.language);
             wanted.time_zone = zone.value_or(a.time_zone);
             wanted.quiet_after_days = days(quiet, a.quiet_after_days);
             wanted.closing_notice_days = days(closing, a.closing_notice_days);
             wanted.reminders.follow_up_days = days(follow_up, a.reminders.follow_up_days);
             wanted.reminders.interviews = interviews.value_or(a.reminders.interviews);
             wanted.reminders.answer_by = answer_by.value_or(a.reminders.answer_by);
             wanted.reminders.closing = closing_reminders.value_or(a.reminders.closing);
             errors = res->site.accounts().update_profile(a.id, wanted);
             if (!errors.empty()) return res->api->invalid(c.request, errors);
             auto now = res->site.accounts().find(a.id);
             return Response::json(200, me_answer(now.value_or(a), c.bearer.token));
           }});
}

}  // namespace
}  // namespace api_detail

void add_api_routes(Router& router, Site& site) {
  using namespace api_detail;
  auto api = std::make_shared<Api>(router, site);
  auto res = std::make_shared<Resources>(api, site);
  for (const Kind& kind : domain::kinds()) {
    add_list(*api, res, kind);
    if (kind.name == "applications")
      add_application_create(*api, res);
    else
      add_create(*api, res, kind);
    add_get(*api, res, kind);
    add_patch(*api, res, kind);
    add_delete(*api, res, kind);
  }
  add_application_routes(*api, res);
  add_render_routes(*api, res);
  add_insight_api(*api, res);
  add_reminder_done(*api, res);
  add_interview_outcome(*api, res);
  add_me(*api, res);
  add_capture_api(*api, site);
  add_connection_api(*api, site);
  add_search_api(*api, site);

  json op = api_operation("getOpenApi", "This document", "meta", false);
  api_answer(op, 200, "The OpenAPI 3.1 document of /api/v1", {{"type", "object"}});
  // Built at the first request, once every route is in the table.
  auto document = std::make_shared<std::pair<std::once_flag, json>>();
  router.add_documented(
      "GET", "/api/v1/openapi.json",
      [&router, document](Request&) {
        std::call_once(document->first,
                       [&] { document->second = openapi_document(router, PETO_VERSION); });
        Response out = Response::json(200, document->second);
        out.set_header("Cache-Control", "public, max-age=300");
        return out;
      },
      op);
}

}  // namespace peto::web
