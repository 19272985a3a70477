// Shared by the files of the /api/v1 resources (not a public header):
//
//   api_resources.cpp     add_api_routes; every kind of record (create, get,
//                         change, delete), reminders done, interview outcomes,
//                         /me and the OpenAPI document
//   api_lists.cpp         GET /api/v1/<kind>: the list queries and their pages
//   api_applications.cpp  applying to a listing, an application's status,
//                         timeline and tags
//   api_renders.cpp       CVs and letters as PDF and text, Record as sent
//   api_insights.cpp      the insights and the period report
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "api/api.h"
#include "core/clock.h"
#include "domain/applications.h"
#include "domain/records.h"

namespace peto::web::api_detail {

// The API form of a record: moments as RFC 3339 UTC.
nlohmann::json api_record(const domain::Kind& kind, domain::Record r);
// The API form of a timeline event.
nlohmann::json api_event(domain::Record e);

// Reads the fields of a small request body (status, outcome, /me…): each
// field is asked for once with its type; finish() reports the rest as unknown.
class BodyFields {
 public:
  explicit BodyFields(const nlohmann::json& body) : body_(body) {}

  std::optional<std::string> text(const std::string& name, bool required = false,
                                  std::size_t max_bytes = 20000) {
    const nlohmann::json* v = find(name);
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
    const nlohmann::json* v = find(name);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number_integer()) return fail(name, "error_type");
    return v->get<std::int64_t>();
  }
  std::optional<bool> boolean(const std::string& name) {
    const nlohmann::json* v = find(name);
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
  domain::FieldErrors finish() {
    for (const auto& [name, _] : body_.items())
      if (!known_.count(name)) errors_.add(name, "error_unknown_field");
    return errors_;
  }

 private:
  const nlohmann::json* find(const std::string& name) {
    known_.insert(name);
    auto it = body_.find(name);
    return it == body_.end() ? nullptr : &*it;
  }
  std::nullopt_t fail(const std::string& name, const std::string& code) {
    errors_.add(name, code);
    return std::nullopt;
  }
  const nlohmann::json& body_;
  std::set<std::string> known_;
  domain::FieldErrors errors_;
};

struct Resources {
  Resources(std::shared_ptr<Api> a, Site& s)
      : api(std::move(a)), site(s), records(s.db(), s.clock()), apps(records) {}
  std::shared_ptr<Api> api;
  Site& site;
  domain::Records records;
  domain::Applications apps;

  Response missing(const Request& r, const domain::Kind& kind) const {
    return api->problem(r, 404, "Not found",
                        "There is no " + kind.singular + " " + r.param("id") + ".");
  }

  // The answer to a domain write: `ok` with the record, 422, or 404.
  Response written(const Request& r, const domain::Kind& kind, const domain::Written& w,
                   int ok) const {
    if (const auto* rec = std::get_if<domain::Record>(&w)) {
      Response out = Response::json(ok, api_record(kind, *rec));
      if (ok == 201)
        out.set_header("Location", "/api/v1/" + kind.name + "/" +
                                       std::to_string((*rec)["id"].get<std::int64_t>()));
      return out;
    }
    if (const auto* errors = std::get_if<domain::FieldErrors>(&w)) return api->invalid(r, *errors);
    return missing(r, kind);
  }
};

using Shared = std::shared_ptr<Resources>;

// POST /api/v1/<kind>/{id}/<action>: a change to one of the owner's records
// (its status, an outcome, its tags…), documented by `op`; needs <kind>:write.
void add_record_action(Api& api, const domain::Kind& kind, const std::string& action,
                       nlohmann::json op, ApiHandler handler);
// GET /api/v1/<kind> (api_lists.cpp).
void add_list(Api& api, const Shared& res, const domain::Kind& kind);
// POST /api/v1/applications (api_applications.cpp), in place of the generic create.
void add_application_create(Api& api, const Shared& res);
// An application's status, timeline and tags (api_applications.cpp).
void add_application_routes(Api& api, const Shared& res);
// CVs and letters as PDF and text, and "Record as sent" (api_renders.cpp).
void add_render_routes(Api& api, const Shared& res);
// The insights and the period report (api_insights.cpp).
void add_insight_api(Api& api, const Shared& res);

}  // namespace peto::web::api_detail
