// The /api/v1 resources: every kind of record (list, create, get, change,
// delete), the application's status and timeline, reminders done, interview
// outcomes, /me, and the OpenAPI document. Each route is declared once, with
// its OpenAPI operation next to its handler.
#include <algorithm>
#include <mutex>
#include <set>
#include <utility>

#include "core/clock.h"
#include "core/timezone.h"
#include "domain/applications.h"
#include "domain/records.h"
#include "web/api.h"
#include "web/openapi.h"
#include "web/record_view.h"

namespace peto::web {

namespace {

using domain::Field;
using domain::FieldErrors;
using domain::FieldType;
using domain::Kind;
using domain::Record;
using nlohmann::json;

constexpr std::size_t kMaxQueryText = 200;

std::string capitalised(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

json rfc3339(const json& ms) { return ms.is_number() ? json(format_time_s(ms.get<Millis>())) : ms; }

// The API form of a record: moments as RFC 3339 UTC.
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

// Reads the fields of a small request body (status, outcome, /me…): each
// field is asked for once with its type; finish() reports the rest as unknown.
class BodyFields {
 public:
  explicit BodyFields(const json& body) : body_(body) {}

  std::optional<std::string> text(const std::string& name, bool required = false,
                                  std::size_t max_bytes = 20000) {
    const json* v = find(name);
    if (v == nullptr || v->is_null()) {
      if (required) errors_.add(name, "error_required");
      return std::nullopt;
    }
    if (!v->is_string()) return fail(name, "error_type");
    std::string s = v->get<std::string>();
    if (s.size() > max_bytes) return fail(name, "error_too_long");
    if (required && s.find_first_not_of(" \t\r\n") == std::string::npos)
      return fail(name, "error_required");
    return s;
  }
  std::optional<std::int64_t> integer(const std::string& name) {
    const json* v = find(name);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number_integer()) return fail(name, "error_type");
    return v->get<std::int64_t>();
  }
  std::optional<bool> boolean(const std::string& name) {
    const json* v = find(name);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_boolean()) return fail(name, "error_type");
    return v->get<bool>();
  }
  std::optional<Millis> time(const std::string& name) {
    auto s = text(name, false, 64);
    if (!s) return std::nullopt;
    auto ms = parse_time(*s);
    if (!ms) return fail(name, "error_rfc3339");
    return ms;
  }
  FieldErrors finish() {
    for (const auto& [name, _] : body_.items())
      if (!known_.count(name)) errors_.add(name, "error_unknown_field");
    return errors_;
  }

 private:
  const json* find(const std::string& name) {
    known_.insert(name);
    auto it = body_.find(name);
    return it == body_.end() ? nullptr : &*it;
  }
  std::nullopt_t fail(const std::string& name, const std::string& code) {
    errors_.add(name, code);
    return std::nullopt;
  }
  const json& body_;
  std::set<std::string> known_;
  FieldErrors errors_;
};

struct Resources {
  Resources(std::shared_ptr<Api> a, Site& s)
      : api(std::move(a)), site(s), records(s.db(), s.clock()), apps(records) {}
  std::shared_ptr<Api> api;
  Site& site;
  domain::Records records;
  domain::Applications apps;

  Response missing(const Request& r, const Kind& kind) const {
    return api->problem(r, 404, "Not found",
                        "There is no " + kind.singular + " " + r.param("id") + ".");
  }

  // The answer to a domain write: `ok` with the record, 422, or 404.
  Response written(const Request& r, const Kind& kind, const domain::Written& w, int ok) const {
    if (const auto* rec = std::get_if<Record>(&w)) {
      Response out = Response::json(ok, api_record(kind, *rec));
      if (ok == 201)
        out.set_header("Location", "/api/v1/" + kind.name + "/" +
                                       std::to_string((*rec)["id"].get<std::int64_t>()));
      return out;
    }
    if (const auto* errors = std::get_if<FieldErrors>(&w)) return api->invalid(r, *errors);
    return missing(r, kind);
  }
};

using Shared = std::shared_ptr<Resources>;

std::vector<std::string> list_parameters(const Kind& kind) {
  std::vector<std::string> names = {"cursor", "limit", "updated_since"};
  if (!kind.search.empty()) names.push_back("q");
  if (!kind.tabs.empty()) names.push_back("tab");
  for (const auto& f : kind.filterable) names.push_back(f);
  return names;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The ListQuery of ?cursor=&limit=&updated_since=&q=&tab=&<filter>=, or the
// 400 that says which parameter is wrong.
std::variant<domain::ListQuery, Response> list_query(const Api& api, const Request& r,
                                                     const Kind& kind) {
  domain::ListQuery q;
  q.tab = kind.tabs.empty() ? "" : "all";
  auto bad = [&](const std::string& name, const std::string& why) {
    return api.problem(r, 400, "Bad query parameter", "'" + name + "' " + why);
  };
  for (const auto& [name, value] : r.query) {
    if (name == "limit") {
      if (!all_digits(value) || std::stoll(value) < 1 || std::stoll(value) > 200)
        return bad(name, "must be a whole number from 1 to 200.");
      q.limit = static_cast<int>(std::stoll(value));
    } else if (name == "cursor") {
      if (value.empty()) continue;
      if (!all_digits(value) || std::stoll(value) < 1)
        return bad(name, "is not a cursor this API gave out.");
      q.before_id = std::stoll(value);
    } else if (name == "updated_since") {
      auto ms = parse_time(value);
      if (!ms) return bad(name, "must be an RFC 3339 time such as 2027-01-15T08:00:00Z.");
      q.updated_since = *ms;
    } else if (name == "q") {
      if (value.size() > kMaxQueryText) return bad(name, "is longer than 200 bytes.");
      q.text = value;
    } else if (name == "tab") {
      bool known = std::any_of(kind.tabs.begin(), kind.tabs.end(),
                               [&](const domain::Tab& t) { return t.name == value; });
      if (!known) return bad(name, "is not one of this list's tabs.");
      q.tab = value;
    } else if (const Field* f = kind.field(name)) {
      bool ok = value.size() <= kMaxQueryText;
      if (f->type == FieldType::ref || f->type == FieldType::integer) ok = ok && all_digits(value);
      if (f->type == FieldType::choice)
        ok = ok && std::find(f->choices.begin(), f->choices.end(), value) != f->choices.end();
      if (!ok) return bad(name, "is not a value this field can have.");
      q.equals[name] = value;
    }
  }
  return q;
}

json list_answer(const Kind& kind, domain::Page page) {
  json items = json::array();
  for (auto& rec : page.items) items.push_back(api_record(kind, std::move(rec)));
  json cursor = page.next_cursor ? json(std::to_string(*page.next_cursor)) : json(nullptr);
  return {{"items", std::move(items)}, {"next_cursor", std::move(cursor)}};
}

void add_list(Api& api, const Shared& res, const Kind& kind) {
  json op = api_operation("list" + capitalised(kind.name), "List your " + kind.name, kind.name);
  api_query_parameter(op, "cursor", {{"type", "string"}}, "next_cursor of the previous page");
  api_query_parameter(op, "limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 200}},
                      "Records per page (50)");
  api_query_parameter(op, "updated_since", {{"type", "string"}, {"format", "date-time"}},
                      "Only records changed at or after this moment");
  if (!kind.search.empty())
    api_query_parameter(op, "q", {{"type", "string"}, {"maxLength", 200}},
                        "Text somewhere in a record's main fields");
  if (!kind.tabs.empty()) {
    json names = json::array();
    for (const auto& t : kind.tabs) names.push_back(t.name);
    api_query_parameter(op, "tab", {{"type", "string"}, {"enum", names}},
                        "A tab of the page (all)");
  }
  for (const auto& name : kind.filterable) {
    const Field* f = kind.field(name);
    json schema = {{"type", "string"}};
    if (f->type == FieldType::ref || f->type == FieldType::integer) schema = {{"type", "integer"}};
    if (f->type == FieldType::choice) schema["enum"] = f->choices;
    api_query_parameter(op, name, schema, "Only records whose " + name + " is this");
  }
  api_answer(op, 200, "A page of " + kind.name + ", newest first",
             page_schema(schema_ref(schema_name(kind))));
  api.add({.method = "GET",
           .pattern = "/api/v1/" + kind.name,
           .area = kind.name,
           .write = false,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 auto q = list_query(*res->api, c.request, kind);
                 if (auto* refused = std::get_if<Response>(&q)) return std::move(*refused);
                 auto page = res->records.list(c.owner(), kind, std::get<domain::ListQuery>(q));
                 return Response::json(200, list_answer(kind, std::move(page)));
               },
           .query = list_parameters(kind)});
}

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
  api_id_parameter(op);
  api_answer(op, 204, "Deleted");
  api.add({.method = "DELETE",
           .pattern = "/api/v1/" + kind.name + "/{id}",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 if (!res->records.remove(c.owner(), kind, c.id))
                   return res->missing(c.request, kind);
                 Response out;
                 out.status = 204;
                 return out;
               },
           .id_kind = kind.name});
}

// POST /applications: applying to a listing goes through Applications::apply,
// so the application starts with its timeline like one made on the page.
void add_application_create(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("applications");
  json op = api_operation("createApplication", "Apply to one of your listings", kind.name);
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"listing_id", {{"type", "integer"}}},
                  {"status", {{"type", "string"}, {"enum", kind.field("status")->choices}}}}},
                {"required", {"listing_id"}},
                {"description",
                 "listing_id, an optional starting status (draft), and any other writable "
                 "field of an application"}});
  api_answer(op, 201, "The new application", schema_ref("Application"));
  api.add({.method = "POST",
           .pattern = "/api/v1/applications",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler = [res, &kind](ApiCall& c) {
             json rest = c.body;
             FieldErrors errors;
             std::int64_t listing = 0;
             auto listing_it = rest.find("listing_id");
             if (listing_it == rest.end() || listing_it->is_null())
               errors.add("listing_id", "error_required");
             else if (!listing_it->is_number_integer())
               errors.add("listing_id", "error_type");
             else
               listing = listing_it->get<std::int64_t>();
             std::string status = "draft";
             if (auto s = rest.find("status"); s != rest.end() && !s->is_null()) {
               if (!s->is_string())
                 errors.add("status", "error_type");
               else
                 status = s->get<std::string>();
             }
             if (!errors.empty()) return res->api->invalid(c.request, errors);
             rest.erase("listing_id");
             rest.erase("status");
             auto made = res->apps.apply_in(*c.tx, c.owner(), listing, status, c.actor());
             if (std::holds_alternative<domain::NotFound>(made)) {
               errors.add("listing_id", "error_ref");
               return res->api->invalid(c.request, errors);
             }
             if (auto* rec = std::get_if<Record>(&made); rec != nullptr && !rest.empty()) {
               domain::Input more;
               more.values = rest;
               more.from_form = false;
               more.strict_types = true;
               more.actor = c.actor();
               more.partial = true;
               made = res->records.update_in(*c.tx, c.owner(), kind,
                                             (*rec)["id"].get<std::int64_t>(), more);
             }
             return res->written(c.request, kind, made, 201);
           }});
}

void add_application_routes(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("applications");
  json statuses = domain::statuses();
  json reasons = domain::end_reasons();

  json op =
      api_operation("changeApplicationStatus", "Move an application to another status", kind.name);
  api_id_parameter(op);
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"status", {{"type", "string"}, {"enum", statuses}}},
                  {"note", {{"type", "string"}, {"maxLength", 20000}}},
                  {"end_reason", {{"type", "string"}, {"enum", reasons}}},
                  {"applied_at", {{"type", "string"}, {"format", "date-time"}}}}},
                {"required", {"status"}},
                {"additionalProperties", false}});
  api_answer(op, 200, "The application as it is now", schema_ref("Application"));
  api.add({.method = "POST",
           .pattern = "/api/v1/applications/{id}/status",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 BodyFields body(c.body);
                 domain::StatusChange change;
                 change.to = body.text("status", true, 40).value_or("");
                 change.note = body.text("note").value_or("");
                 change.end_reason = body.text("end_reason", false, 40).value_or("");
                 change.applied_at = body.time("applied_at");
                 change.actor = c.actor();
                 if (FieldErrors errors = body.finish(); !errors.empty())
                   return res->api->invalid(c.request, errors);
                 return res->written(c.request, kind,
                                     res->apps.change_status_in(*c.tx, c.owner(), c.id, change),
                                     200);
               },
           .id_kind = kind.name});

  op = api_operation("listApplicationTimeline", "The timeline of an application, newest first",
                     kind.name);
  api_id_parameter(op);
  api_answer(op, 200, "Every event", page_schema(schema_ref("Event")));
  api.add(
      {.method = "GET",
       .pattern = "/api/v1/applications/{id}/timeline",
       .area = kind.name,
       .write = false,
       .operation = op,
       .handler =
           [res, &kind](ApiCall& c) {
             auto events = res->apps.timeline(c.owner(), c.id);
             if (!events) return res->missing(c.request, kind);
             json items = json::array();
             for (auto& e : *events) items.push_back(api_event(std::move(e)));
             return Response::json(200, {{"items", std::move(items)}, {"next_cursor", nullptr}});
           },
       .id_kind = kind.name});

  json kinds = json::array();
  for (const auto& k : domain::event_kinds())
    if (!domain::is_system_event(k)) kinds.push_back(k);
  op = api_operation("addApplicationEvent", "Add a call, an e-mail, a note… to the timeline",
                     kind.name);
  api_id_parameter(op);
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"kind", {{"type", "string"}, {"enum", kinds}}},
                  {"summary", {{"type", "string"}, {"maxLength", 250}}},
                  {"body", {{"type", "string"}, {"maxLength", 20000}}},
                  {"occurred_at", {{"type", "string"}, {"format", "date-time"}}}}},
                {"required", {"kind", "summary"}},
                {"additionalProperties", false}});
  api_answer(op, 201, "The new event", schema_ref("Event"));
  api.add({.method = "POST",
           .pattern = "/api/v1/applications/{id}/timeline",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 BodyFields body(c.body);
                 domain::NewEvent event;
                 event.kind = body.text("kind", true, 40).value_or("");
                 event.summary = body.text("summary", true, 4000).value_or("");
                 event.body = body.text("body").value_or("");
                 event.occurred_at = body.time("occurred_at");
                 event.actor = c.actor();
                 if (FieldErrors errors = body.finish(); !errors.empty())
                   return res->api->invalid(c.request, errors);
                 auto added = res->apps.add_in(*c.tx, c.owner(), c.id, event);
                 if (auto* errors = std::get_if<FieldErrors>(&added))
                   return res->api->invalid(c.request, *errors);
                 if (std::holds_alternative<domain::NotFound>(added))
                   return res->missing(c.request, kind);
                 std::int64_t event_id = std::get<std::int64_t>(added);
                 auto events = res->apps.timeline_in(*c.tx, c.owner(), c.id);
                 for (auto& e : events.value_or(std::vector<Record>{}))
                   if (e["id"] == event_id) return Response::json(201, api_event(std::move(e)));
                 return res->missing(c.request, kind);
               },
           .id_kind = kind.name});
}

// An application's tags: read them, or replace the whole set.
void add_application_tags(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("applications");
  json tag_list = {
      {"type", "object"},
      {"properties", {{"items", {{"type", "array"}, {"items", schema_ref("TagRef")}}}}},
      {"required", {"items"}}};
  auto answer = [res](ApiCall& c, store::Conn& conn) {
    json items = json::array();
    for (auto& t : res->apps.tags_of_in(conn, c.owner(), c.id)) items.push_back(std::move(t));
    return Response::json(200, {{"items", std::move(items)}});
  };

  json op = api_operation("listApplicationTags", "The tags on an application", kind.name);
  api_id_parameter(op);
  api_answer(op, 200, "Its tags, by name", tag_list);
  api.add({.method = "GET",
           .pattern = "/api/v1/applications/{id}/tags",
           .area = kind.name,
           .operation = op,
           .handler =
               [res, answer](ApiCall& c) {
                 auto conn = res->site.db().acquire();
                 return answer(c, *conn);
               },
           .id_kind = kind.name});

  op = api_operation("setApplicationTags", "Replace the tags on an application", kind.name);
  api_id_parameter(op);
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"tag_ids",
                   {{"type", "array"},
                    {"maxItems", 100},
                    {"items", {{"type", "integer"}, {"minimum", 1}}}}}}},
                {"required", {"tag_ids"}},
                {"additionalProperties", false}});
  api_answer(op, 200, "Its tags now", tag_list);
  api.add({.method = "POST",
           .pattern = "/api/v1/applications/{id}/tags",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, answer, &kind](ApiCall& c) {
                 FieldErrors errors;
                 std::vector<std::int64_t> ids;
                 for (const auto& [name, value] : c.body.items()) {
                   if (name != "tag_ids") {
                     errors.add(name, "error_unknown_field");
                   } else if (!value.is_array() || value.size() > 100) {
                     errors.add(name, "error_type");
                   } else {
                     for (const auto& v : value)
                       if (v.is_number_integer())
                         ids.push_back(v.get<std::int64_t>());
                       else
                         errors.add(name, "error_type");
                   }
                 }
                 if (!c.body.contains("tag_ids")) errors.add("tag_ids", "error_required");
                 if (!errors.empty()) return res->api->invalid(c.request, errors);
                 auto set = res->apps.set_tags_in(*c.tx, c.owner(), c.id, ids);
                 if (auto* refused = std::get_if<FieldErrors>(&set)) {
                   FieldErrors renamed;
                   for (const auto& [_, code] : refused->by_field) renamed.add("tag_ids", code);
                   return res->api->invalid(c.request, renamed);
                 }
                 if (std::holds_alternative<domain::NotFound>(set))
                   return res->missing(c.request, kind);
                 return answer(c, *c.tx);
               },
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
  api.add({.method = "POST",
           .pattern = "/api/v1/reminders/{id}/done",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 BodyFields body(c.body);
                 bool done = body.boolean("done").value_or(true);
                 if (FieldErrors errors = body.finish(); !errors.empty())
                   return res->api->invalid(c.request, errors);
                 return res->written(c.request, kind,
                                     res->apps.set_done_in(*c.tx, c.owner(), c.id, done), 200);
               },
           .id_kind = kind.name});
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
  api.add({.method = "POST",
           .pattern = "/api/v1/interviews/{id}/outcome",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 BodyFields body(c.body);
                 std::string outcome = body.text("outcome", true, 40).value_or("");
                 if (FieldErrors errors = body.finish(); !errors.empty())
                   return res->api->invalid(c.request, errors);
                 return res->written(c.request, kind,
                                     res->apps.set_outcome_in(*c.tx, c.owner(), c.id, outcome),
                                     200);
               },
           .id_kind = kind.name});
}

json me_answer(const domain::Account& a, const domain::ApiToken& token) {
  return {{"id", a.id},
          {"email", a.email},
          {"is_admin", a.is_admin},
          {"language", a.language},
          {"time_zone", a.time_zone},
          {"quiet_after_days", a.quiet_after_days},
          {"closing_notice_days", a.closing_notice_days},
          {"token", {{"id", token.id}, {"name", token.name}, {"scopes", token.scopes}}}};
}

void add_me(Api& api, const Shared& res) {
  json op = api_operation("getMe", "Who this token acts for, and its scopes", "me");
  api_answer(op, 200, "The account and the token", schema_ref("Me"));
  api.add({.method = "GET", .pattern = "/api/v1/me", .operation = op, .handler = [](ApiCall& c) {
             return Response::json(200, me_answer(c.bearer.account, c.bearer.token));
           }});

  op = api_operation("updateMe", "Change the profile's settings", "me");
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"language", {{"type", "string"}, {"description", "\"\" = the browser's"}}},
                  {"time_zone", {{"type", "string"}, {"description", "An IANA zone"}}},
                  {"quiet_after_days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 365}}},
                  {"closing_notice_days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 90}}}}},
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
             FieldErrors errors = body.finish();
             if (language && !language->empty() && !res->site.catalogue().has_language(*language))
               errors.add("language", "error_language_invalid");
             if (!errors.empty()) return res->api->invalid(c.request, errors);
             // update_profile checks the ranges; a number too big for an int fails them too.
             auto days = [](std::optional<std::int64_t> v, int current) {
               if (!v) return current;
               return *v < 0 || *v > 100000 ? -1 : static_cast<int>(*v);
             };
             errors = res->site.accounts().update_profile(
                 a.id, language.value_or(a.language), zone.value_or(a.time_zone),
                 days(quiet, a.quiet_after_days), days(closing, a.closing_notice_days));
             if (!errors.empty()) return res->api->invalid(c.request, errors);
             auto now = res->site.accounts().find(a.id);
             return Response::json(200, me_answer(now.value_or(a), c.bearer.token));
           }});
}

}  // namespace

void add_api_routes(Router& router, Site& site) {
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
  add_application_tags(*api, res);
  add_reminder_done(*api, res);
  add_interview_outcome(*api, res);
  add_me(*api, res);
  add_capture_api(*api, site);
  add_connection_api(*api, site);

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
