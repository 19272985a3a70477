// OpenAPI 3.1 pieces for the API: the schemas of the records (from
// domain/kinds, so a field is declared once), small builders for operation
// objects, and the document itself (from the router's route table).
//
//   nlohmann::json op = api_operation("listListings", "List listings", "listings");
//   api_answer(op, 200, page_schema(kind_ref(k)));
//   router.add_documented("GET", "/api/v1/listings", handler, op);
//   openapi_document(router, "1.2.0");   // every /api/v1 route, as served
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "domain/kinds.h"
#include "http/router.h"

namespace peto::web {

// The profile's settings as /api/v1/me answers and takes them: language,
// time_zone, the days and the automatic reminders' switches.
nlohmann::json profile_settings_schema();

// "Listing" for listings, "Company" for companies.
std::string schema_name(const domain::Kind& kind);
// {"$ref": "#/components/schemas/<name>"}
nlohmann::json schema_ref(const std::string& name);
// {"items": [ref...], "next_cursor": string|null}
nlohmann::json page_schema(const nlohmann::json& item);

// An operation with its id, summary, tag, the bearer security requirement
// (unless `secured` is false) and the problem answers every route can give.
nlohmann::json api_operation(const std::string& id, const std::string& summary,
                             const std::string& tag, bool secured = true);
// Adds the `id` path parameter.
void api_id_parameter(nlohmann::json& op);
// Adds a query parameter.
void api_query_parameter(nlohmann::json& op, const std::string& name, nlohmann::json schema,
                         const std::string& description);
// Adds an application/json request body.
void api_body(nlohmann::json& op, nlohmann::json schema, bool required = true);
// Adds an answer; a null schema means no body (204).
void api_answer(nlohmann::json& op, int status, const std::string& description,
                nlohmann::json schema = nullptr);

// The OpenAPI 3.1 document: every route of `router` under /api/v1/ with its
// operation (an undocumented one still appears, with its summary), and the
// component schemas.
nlohmann::json openapi_document(const Router& router, const std::string& version);

}  // namespace peto::web
