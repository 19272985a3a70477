// The API's routes for applications beyond a record's fields: applying to a
// listing (POST /api/v1/applications), moving an application to another
// status, its timeline, and its tags.
#include <variant>
#include <vector>

#include "api/api_resources_internal.h"
#include "api/openapi.h"

namespace peto::web::api_detail {

namespace {

using domain::FieldErrors;
using domain::Kind;
using domain::Record;
using nlohmann::json;

// POST /api/v1/applications/{id}/status.
void add_application_status(Api& api, const Shared& res) {
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
  add_record_action(api, kind, "status", op, [res, &kind](ApiCall& c) {
    BodyFields body(c.body);
    domain::StatusChange change;
    change.to = body.text("status", true, 40).value_or("");
    change.note = body.text("note").value_or("");
    change.end_reason = body.text("end_reason", false, 40).value_or("");
    change.applied_at = body.time("applied_at");
    change.actor = c.actor();
    if (FieldErrors errors = body.finish(); !errors.empty())
      return res->api->invalid(c.request, errors);
    return res->written(c.request, kind, res->apps.change_status_in(*c.tx, c.owner(), c.id, change),
                        200);
  });
}

// The timeline: read it, or add an event of one's own to it.
void add_application_timeline(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("applications");
  json op = api_operation("listApplicationTimeline", "The timeline of an application, newest first",
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
  add_record_action(api, kind, "timeline", op, [res, &kind](ApiCall& c) {
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
    if (std::holds_alternative<domain::NotFound>(added)) return res->missing(c.request, kind);
    std::int64_t event_id = std::get<std::int64_t>(added);
    auto events = res->apps.timeline_in(*c.tx, c.owner(), c.id);
    for (auto& e : events.value_or(std::vector<Record>{}))
      if (e["id"] == event_id) return Response::json(201, api_event(std::move(e)));
    return res->missing(c.request, kind);
  });
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
  add_record_action(api, kind, "tags", op, [res, answer, &kind](ApiCall& c) {
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
    if (std::holds_alternative<domain::NotFound>(set)) return res->missing(c.request, kind);
    return answer(c, *c.tx);
  });
}

}  // namespace

// POST /applications: applying to a listing goes through Applications::apply,
// so the application starts with its timeline like one made on the page.
void add_application_create(Api& api, const Shared& res) {
  const Kind& kind = domain::kind("applications");
  json op = api_operation("createApplication", "Apply to one of your listings", kind.name);
  api_body(op, schema_ref("ApplicationInput"));
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
  add_application_status(api, res);
  add_application_timeline(api, res);
  add_application_tags(api, res);
}

}  // namespace peto::web::api_detail
