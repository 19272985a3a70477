// /api/v1/connections: a person's connections (kind "notifier", "store" or
// "sync"),
// and /api/v1/notices, their in-app inbox.
//
// A connection is answered as {id, kind, plugin, label, enabled, config,
// secrets_set, last_ok_at, last_error, created_at, updated_at}: `config` holds
// the non-secret fields and the event_* switches; secret fields are accepted
// on write and never answered, only named in `secrets_set`. Field errors name
// "plugin", "label", "enabled", "config" (the object as a whole) or
// "config.<field>".
#include <functional>
#include <string>
#include <vector>

#include "api/api.h"
#include "api/openapi.h"
#include "connections/connections.h"
#include "connections/tries.h"
#include "core/clock.h"
#include "core/log.h"
#include "media/copies.h"
#include "net/http.h"
#include "notify/notification.h"
#include "notify/outbox.h"

namespace peto::web {

namespace {

using connections::Connection;
using nlohmann::json;
using notify::ConfigErrors;

constexpr int kNoticesPerPage = 50;

connections::Connections connections_of(Site& site) {
  return connections::Connections(site.db(), site.clock(), site.settings());
}

json api_connection(const Connection& c) {
  return {{"id", c.id},
          {"kind", c.kind},
          {"plugin", c.plugin},
          {"label", c.label},
          {"enabled", c.enabled},
          {"config", c.config},
          {"secrets_set", c.secrets_set},
          {"last_ok_at", c.last_ok_at ? json(format_time_s(*c.last_ok_at)) : json(nullptr)},
          {"last_error", c.last_error},
          {"created_at", format_time_s(c.created_at)},
          {"updated_at", format_time_s(c.updated_at)}};
}

json connection_schema() {
  json time = {{"type", "string"}, {"format", "date-time"}};
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "integer"}}},
            {"kind", {{"type", "string"}, {"enum", {"notifier", "store", "sync"}}}},
            {"plugin", {{"type", "string"}}},
            {"label", {{"type", "string"}}},
            {"enabled", {{"type", "boolean"}}},
            {"config",
             {{"type", "object"},
              {"description", "The non-secret fields and the event_<name> switches"}}},
            {"secrets_set",
             {{"type", "array"},
              {"items", {{"type", "string"}}},
              {"description", "The secret fields that hold a value (never their values)"}}},
            {"last_ok_at", {{"type", {"string", "null"}}, {"format", "date-time"}}},
            {"last_error", {{"type", "string"}}},
            {"created_at", time},
            {"updated_at", time}}},
          {"required",
           {"id", "kind", "plugin", "label", "enabled", "config", "secrets_set", "last_ok_at",
            "last_error", "created_at", "updated_at"}},
          {"additionalProperties", false}};
}

// The writable fields; `creating` adds `plugin` (required).
json input_schema(bool creating) {
  json properties = {
      {"label", {{"type", "string"}, {"maxLength", 100}}},
      {"enabled", {{"type", "boolean"}}},
      {"config",
       {{"type", "object"},
        {"description",
         "The plugin's fields by name (secret ones write-only) and, for a "
         "notifier, event_<name> booleans; on PATCH a field left out, or a secret sent "
         "as \"\", keeps its value, except that changing an address (a url field) "
         "drops the stored secrets, which must then be sent again for the new address"}}}};
  json schema = {{"type", "object"}, {"additionalProperties", false}};
  if (creating) {
    properties["plugin"] = {{"type", "string"},
                            {"enum", json::array()},
                            {"description",
                             "The notifier (email, webhook, ntfy, gotify, telegram), the store "
                             "(local, webdav, s3) or the sync (caldav, carddav)"}};
    for (const char* kind : {"notifier", "store", "sync"})
      for (const connections::PluginSpec& n : connections::plugins(kind))
        properties["plugin"]["enum"].push_back(n.name);
    properties["kind"] = {{"type", "string"},
                          {"enum", {"notifier", "store", "sync"}},
                          {"description", "Optional: when given, it must be the plugin's kind"}};
    schema["required"] = {"plugin"};
  }
  schema["properties"] = properties;
  return schema;
}

// The notifier's errors as the API names fields.
domain::FieldErrors api_errors(const ConfigErrors& errors) {
  domain::FieldErrors out;
  for (const auto& [field, message] : errors) {
    if (field.empty())
      out.add("config", message);
    else if (field == "plugin" || field == "label")
      out.add(field, message);
    else
      out.add("config." + field, message);
  }
  return out;
}

// The body's label, enabled and config, type-checked; `allowed` are the
// top-level names this route takes.
struct Written {
  std::optional<std::string> label;
  std::optional<bool> enabled;
  json config = json::object();
};

Written read_body(const json& body, const std::vector<std::string>& allowed,
                  domain::FieldErrors& errors) {
  Written w;
  for (const auto& [name, value] : body.items()) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      errors.add(name, "error_unknown_field");
    else if (name == "label" && value.is_string())
      w.label = value.get<std::string>();
    else if (name == "enabled" && value.is_boolean())
      w.enabled = value.get<bool>();
    else if (name == "config" && value.is_object())
      w.config = value;
    else if ((name == "plugin" || name == "kind") && value.is_string())
      continue;
    else
      errors.add(name, "error_type");
  }
  return w;
}

Response not_found(Api& api, const Request& r) {
  return api.problem(r, 404, "Not found", "There is no connection " + r.param("id") + ".");
}

void add_connection_reads(Api& api, Site& site) {
  Site* s = &site;
  json op = api_operation("listConnections", "Your connections, newest first", "connections");
  api_answer(op, 200, "The connections", page_schema(connection_schema()));
  api.add({.method = "GET",
           .pattern = "/api/v1/connections",
           .area = "connections",
           .operation = op,
           .handler = [s](ApiCall& c) {
             json items = json::array();
             for (const Connection& one : connections_of(*s).list(c.owner()))
               items.push_back(api_connection(one));
             // Few per person: one page holds them all.
             return Response::json(200, {{"items", std::move(items)}, {"next_cursor", nullptr}});
           }});

  op = api_operation("getConnection", "One connection (its secrets are never answered)",
                     "connections");
  api_id_parameter(op);
  api_answer(op, 200, "The connection", connection_schema());
  api.add({.method = "GET",
           .pattern = "/api/v1/connections/{id}",
           .area = "connections",
           .operation = op,
           .handler =
               [s, &api](ApiCall& c) {
                 auto one = connections_of(*s).get(c.owner(), c.id);
                 if (!one) return not_found(api, c.request);
                 return Response::json(200, api_connection(*one));
               },
           .id_kind = "connections"});
}

// POST /api/v1/connections, inside the POST's write transaction (so its
// Idempotency-Key holds like every other POST's).
Response create_connection(Api& api, Site& site, ApiCall& c) {
  domain::FieldErrors errors;
  Written w = read_body(c.body, {"plugin", "kind", "label", "enabled", "config"}, errors);
  if (!c.body.contains("plugin")) errors.add("plugin", "error_required");
  if (errors.empty() && c.body.contains("kind")) {
    auto plugin = connections::find_plugin(c.body["plugin"].get<std::string>());
    if (plugin && plugin->kind != c.body["kind"].get<std::string>())
      errors.add("kind", "error_kind_mismatch");
  }
  if (!errors.empty()) return api.invalid(c.request, errors);
  auto made =
      connections_of(site).create_in(*c.tx, c.owner(), c.body["plugin"].get<std::string>(),
                                     w.label.value_or(""), w.config, w.enabled.value_or(true));
  if (auto* e = std::get_if<ConfigErrors>(&made)) return api.invalid(c.request, api_errors(*e));
  const Connection& one = std::get<Connection>(made);
  log::info("api", "connection created", {{"user", c.owner()}, {"connection", one.id}});
  Response out = Response::json(201, api_connection(one));
  out.set_header("Location", "/api/v1/connections/" + std::to_string(one.id));
  return out;
}

// POST /api/v1/connections/{id}/test, also from `admit`: the send must not
// hold the write lock for as long as the receiver takes to answer. It runs in
// the request, through the process's gate for tries (connections/tries.h):
// one at a time per person, a few in all, else 429.
Response test_connection(Api& api, Site& site, ApiCall& c) {
  static const net::HttpClient http;
  const std::string lang = site.public_language(c.request);
  auto ticket = connections::TryGate::process().enter(c.owner());
  if (!ticket) {
    Response out = api.problem(c.request, 429, "A test is running",
                               "Another test of yours, or too many tests in all, are running "
                               "now; try again when they are done.");
    out.set_header("Retry-After", "5");
    return out;
  }
  auto result = connections_of(site).test(c.owner(), c.id, http, lang);
  if (!result) return not_found(api, c.request);
  log::info("api", "connection tested",
            {{"user", c.owner()},
             {"connection", c.id},
             {"outcome", std::string(notify::outcome_name(*result))}});
  return Response::json(200, {{"outcome", std::string(notify::outcome_name(*result))},
                              {"message", site.catalogue().text(lang, result->message)}});
}

void add_connection_writes(Api& api, Site& site) {
  Site* s = &site;
  json op = api_operation("createConnection", "Connect a notifier or a store", "connections");
  api_body(op, input_schema(true));
  api_answer(op, 201, "The connection", connection_schema());
  auto create = [s, &api](ApiCall& c) { return create_connection(api, *s, c); };
  api.add({.method = "POST",
           .pattern = "/api/v1/connections",
           .area = "connections",
           .write = true,
           .operation = op,
           .handler = create});

  op = api_operation("updateConnection", "Change a connection", "connections");
  api_id_parameter(op);
  api_body(op, input_schema(false));
  api_answer(op, 200, "The connection", connection_schema());
  api.add({.method = "PATCH",
           .pattern = "/api/v1/connections/{id}",
           .area = "connections",
           .write = true,
           .operation = op,
           .handler =
               [s, &api](ApiCall& c) {
                 domain::FieldErrors errors;
                 Written w = read_body(c.body, {"label", "enabled", "config"}, errors);
                 if (!errors.empty()) return api.invalid(c.request, errors);
                 auto changed =
                     connections_of(*s).update(c.owner(), c.id, w.label, w.config, w.enabled);
                 if (!changed) return not_found(api, c.request);
                 if (auto* e = std::get_if<ConfigErrors>(&*changed))
                   return api.invalid(c.request, api_errors(*e));
                 return Response::json(200, api_connection(std::get<Connection>(*changed)));
               },
           .id_kind = "connections"});

  op = api_operation("deleteConnection", "Remove a connection", "connections");
  api_id_parameter(op);
  api_answer(op, 204, "Removed");
  api.add(
      {.method = "DELETE",
       .pattern = "/api/v1/connections/{id}",
       .area = "connections",
       .write = true,
       .operation = op,
       .handler =
           [s, &api](ApiCall& c) {
             if (!connections_of(*s).remove(c.owner(), c.id)) return not_found(api, c.request);
             log::info("api", "connection removed", {{"user", c.owner()}, {"connection", c.id}});
             Response out;
             out.status = 204;
             return out;
           },
       .id_kind = "connections"});

  op = api_operation("testConnection", "Send a test notice now (a store: copy peto-test.txt to it)",
                     "connections");
  api_id_parameter(op);
  op["description"] =
      "The test runs while the request waits (up to the connection's timeout). One test at a "
      "time per person and a few in all: another answers 429 with Retry-After.";
  api_answer(
      op, 200, "What happened",
      {{"type", "object"},
       {"properties",
        {{"outcome", {{"type", "string"}, {"enum", {"sent", "failed", "final", "unusable"}}}},
         {"message", {{"type", "string"}}}}},
       {"required", {"outcome", "message"}},
       {"additionalProperties", false}});
  auto test = [s, &api](ApiCall& c) { return test_connection(api, *s, c); };
  api.add({.method = "POST",
           .pattern = "/api/v1/connections/{id}/test",
           .area = "connections",
           .write = true,
           .operation = op,
           .handler = test,  // not reached: admit answers first
           .id_kind = "connections",
           .admit = [test](ApiCall& c) -> std::optional<Response> { return test(c); }});
}

// What a queueing action on one connection is: POST
// /api/v1/connections/{id}/<action> puts work for a connection of `kind`
// back in line (`queue`, on the call's transaction) and answers how much;
// another connection is 404.
struct Queueing {
  std::string action, kind, operation_id, summary, description, answer;
  std::function<std::int64_t(Site&, ApiCall&)> queue;
};

void add_queueing(Api& api, Site& site, const Queueing& q) {
  Site* s = &site;
  json op = api_operation(q.operation_id, q.summary, "connections");
  api_id_parameter(op);
  op["description"] = q.description;
  api_answer(op, 200, q.answer,
             {{"type", "object"},
              {"properties", {{"queued", {{"type", "integer"}}}}},
              {"required", {"queued"}},
              {"additionalProperties", false}});
  api.add({.method = "POST",
           .pattern = "/api/v1/connections/{id}/" + q.action,
           .area = "connections",
           .write = true,
           .operation = op,
           .handler =
               [s, &api, kind = q.kind, queue = q.queue](ApiCall& c) {
                 auto one = connections_of(*s).get(c.owner(), c.id);
                 if (!one || one->kind != kind) return not_found(api, c.request);
                 // A POST runs in its idempotency transaction: write in it.
                 return Response::json(200, {{"queued", queue(*s, c)}});
               },
           .id_kind = "connections"});
}

// …/send-again: a notifier's given-up notices; …/copy-existing: a store's
// copies of the documents from before it.
void add_queueings(Api& api, Site& site) {
  add_queueing(
      api, site,
      {.action = "send-again",
       .kind = "notifier",
       .operation_id = "sendAgain",
       .summary = "Send a notifier connection's given-up notices again",
       .description = "Every delivery through this connection that was given up goes back in "
                      "line, due now, with its attempts counted from nought. Other connections "
                      "answer 404.",
       .answer = "How many go out again",
       .queue = [](Site& s, ApiCall& c) {
         return notify::Outbox(s.clock(), s.settings()).send_again(*c.tx, c.owner(), c.id);
       }});
  add_queueing(api, site,
               {.action = "copy-existing",
                .kind = "store",
                .operation_id = "copyExisting",
                .summary = "Copy the documents from before a store was added to it",
                .description = "Every document (each version) with no copy on this store yet "
                               "gets one, due now. A store that is switched off queues nothing; "
                               "other connections answer 404.",
                .answer = "How many documents will be copied",
                .queue = [](Site& s, ApiCall& c) {
                  return media::plan_existing_copies_in(*c.tx, c.owner(), c.id, s.clock().now_ms());
                }});
}

void add_notices(Api& api, Site& site) {
  Site* s = &site;
  json op = api_operation("listNotices", "Your inbox, newest first (reading it marks nothing read)",
                          "notices");
  json notice = {{"type", "object"},
                 {"properties",
                  {{"id", {{"type", "integer"}}},
                   {"event", {{"type", "string"}}},
                   {"title", {{"type", "string"}}},
                   {"body", {{"type", "string"}}},
                   {"url", {{"type", "string"}}},
                   {"created_at", {{"type", "string"}, {"format", "date-time"}}},
                   {"shown", {{"type", "boolean"}}}}},
                 {"required", {"id", "event", "title", "body", "url", "created_at", "shown"}},
                 {"additionalProperties", false}};
  api_answer(op, 200, "The newest 50 notices", page_schema(notice));
  api.add({.method = "GET",
           .pattern = "/api/v1/notices",
           .area = "notices",
           .operation = op,
           .handler = [s](ApiCall& c) {
             notify::Outbox outbox(s->clock(), s->settings());
             std::vector<notify::InboxNotice> notices;
             {
               auto conn = s->db().acquire();
               notices = outbox.inbox(*conn, c.owner(), kNoticesPerPage);
             }
             json items = json::array();
             for (const auto& n : notices)
               items.push_back({{"id", n.id},
                                {"event", n.event},
                                {"title", n.title},
                                {"body", n.body},
                                {"url", n.url},
                                {"created_at", format_time_s(n.created_at)},
                                {"shown", n.shown}});
             return Response::json(200, {{"items", std::move(items)}, {"next_cursor", nullptr}});
           }});

  op = api_operation("markNoticesRead", "Mark your notices read", "notices");
  api_body(op,
           {{"type", "object"},
            {"properties",
             {{"upto",
               {{"type", "integer"},
                {"description",
                 "The newest notice read: those after it stay unread. Leave it out for all."}}}}},
            {"additionalProperties", false}},
           false);
  api_answer(op, 200, "How many were marked",
             {{"type", "object"},
              {"properties", {{"marked", {{"type", "integer"}}}}},
              {"required", {"marked"}},
              {"additionalProperties", false}});
  api.add({.method = "POST",
           .pattern = "/api/v1/notices/read",
           .area = "notices",
           .write = true,
           .operation = op,
           .handler = [s, &api](ApiCall& c) {
             domain::FieldErrors errors;
             std::optional<std::int64_t> upto;
             if (c.body.is_object()) {
               for (const auto& [key, value] : c.body.items()) {
                 if (key != "upto")
                   errors.add(key, "error_unknown_field");
                 else if (!value.is_number_integer())
                   errors.add("upto", "error_type");
                 else
                   upto = value.get<std::int64_t>();
               }
             }
             if (!errors.empty()) return api.invalid(c.request, errors);
             notify::Outbox outbox(s->clock(), s->settings());
             const auto marked = outbox.mark_shown(*c.tx, c.owner(), upto);
             return Response::json(200, {{"marked", marked}});
           }});
}

}  // namespace

void add_connection_api(Api& api, Site& site) {
  add_connection_reads(api, site);
  add_connection_writes(api, site);
  add_queueings(api, site);
  add_notices(api, site);
}

}  // namespace peto::web
