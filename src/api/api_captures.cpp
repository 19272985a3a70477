// /api/v1/captures: a browser extension or a phone shortcut saves a job page
// for review. {url} is fetched by the capture errand; {url, html} is read
// as given (nothing is fetched). 30 captures an hour per account, web and API
// together.
#include "api/api.h"
#include "api/openapi.h"
#include "capture/errand.h"
#include "capture/kept_pages.h"
#include "core/clock.h"
#include "domain/captures.h"

namespace peto::web {

namespace {

using nlohmann::json;

json api_capture(domain::Capture c) {
  for (const char* name : {"created_at", "updated_at"})
    c[name] = format_time_s(c[name].get<Millis>());
  return c;
}

// GET /api/v1/captures.
void add_list_captures(Api& api, const std::shared_ptr<domain::Records>& records) {
  json op = api_operation("listCaptures", "Your captures, newest first", "captures");
  api_query_parameter(
      op, "status",
      {{"type", "string"}, {"enum", {"fetching", "pending", "accepted", "discarded", "failed"}}},
      "Only captures in this state (all)");
  api_query_parameter(op, "limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxLimit}},
                      "How many (50)");
  api_answer(op, 200, "The captures", page_schema(schema_ref("Capture")));
  api.add(
      {.method = "GET",
       .pattern = "/api/v1/captures",
       .area = "captures",
       .operation = op,
       .handler =
           [records, &api](ApiCall& c) {
             std::string status = c.request.query_param("status").value_or("");
             static const std::vector<std::string> states = {"",         "fetching",  "pending",
                                                             "accepted", "discarded", "failed"};
             if (std::find(states.begin(), states.end(), status) == states.end())
               return api.problem(c.request, 400, "Bad query parameter",
                                  "'status' is not a state a capture can be in.");
             auto limit = api.limit(c.request);
             if (auto* refused = std::get_if<Response>(&limit)) return std::move(*refused);
             json items = json::array();
             for (auto& capture :
                  domain::Captures(*records).list(c.owner(), status, std::get<int>(limit)))
               items.push_back(api_capture(std::move(capture)));
             return Response::json(200, {{"items", std::move(items)}, {"next_cursor", nullptr}});
           },
       .query = {"status", "limit"}});
}

// GET /api/v1/captures/{id}.
void add_get_capture(Api& api, const std::shared_ptr<domain::Records>& records) {
  json op = api_operation("getCapture", "One capture and what was read from it", "captures");
  api_id_parameter(op);
  api_answer(op, 200, "The capture", schema_ref("Capture"));
  api.add({.method = "GET",
           .pattern = "/api/v1/captures/{id}",
           .area = "captures",
           .operation = op,
           .handler =
               [records](ApiCall& c) {
                 return Response::json(
                     200, api_capture(*domain::Captures(*records).get(c.owner(), c.id)));
               },
           .id_kind = "captures"});
}

// POST /api/v1/captures, at most 30 an hour per account.
void add_create_capture(Api& api, Site& site, const std::shared_ptr<domain::Records>& records) {
  Site* s = &site;
  json op = api_operation("createCapture", "Save a job page for review", "captures");
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"url", {{"type", "string"}, {"format", "uri"}, {"maxLength", 2000}}},
                  {"html",
                   {{"type", "string"},
                    {"description", "The page as the browser has it; nothing is fetched then"}}}}},
                {"required", {"url"}},
                {"additionalProperties", false}});
  api_answer(op, 201, "The capture: pending (read from html) or fetching", schema_ref("Capture"));
  api.add({.method = "POST",
           .pattern = "/api/v1/captures",
           .area = "captures",
           .write = true,
           .operation = op,
           .handler =
               [records, s, &api](ApiCall& c) {
                 domain::FieldErrors errors;
                 std::string url, html;
                 for (const auto& [name, value] : c.body.items()) {
                   if (name != "url" && name != "html")
                     errors.add(name, "error_unknown_field");
                   else if (!value.is_string())
                     errors.add(name, "error_type");
                   else
                     (name == "url" ? url : html) = value.get<std::string>();
                 }
                 if (!c.body.contains("url")) errors.add("url", "error_required");
                 if (!errors.empty()) return api.invalid(c.request, errors);
                 capture::KeptPages pages(s->db(), s->clock(), pages_dir(*s));
                 auto made =
                     capture::capture_page_in(*c.tx, *records, c.owner(), url, html, "api", &pages);
                 if (auto* e = std::get_if<domain::FieldErrors>(&made))
                   return api.invalid(c.request, *e);
                 auto& capture = std::get<domain::Capture>(made);
                 Response out = Response::json(201, api_capture(capture));
                 out.set_header("Location", "/api/v1/captures/" +
                                                std::to_string(capture["id"].get<std::int64_t>()));
                 return out;
               },
           // Counted outside the POST's transaction (the cache is another connection).
           .admit = [s, &api](ApiCall& c) -> std::optional<Response> {
             auto wait = domain::capture_rate_limited(s->db(), s->clock(), c.owner());
             if (!wait) return std::nullopt;
             Response out = api.problem(c.request, 429, "Too many captures",
                                        "You have captured 30 pages this hour; try again in " +
                                            std::to_string(*wait) + " seconds.");
             out.set_header("Retry-After", std::to_string(*wait));
             return out;
           }});
}

}  // namespace

void add_capture_api(Api& api, Site& site) {
  auto records = std::make_shared<domain::Records>(site.db(), site.clock());
  add_list_captures(api, records);
  add_get_capture(api, records);
  add_create_capture(api, site, records);
}

}  // namespace peto::web
