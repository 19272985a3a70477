// The JSON API under /api/v1: what other tools (scripts, a browser extension,
// a phone shortcut) drive peto with.
//
//   web::add_api_routes(router, site);   // after the site's routes
//
// Every route is declared once as an ApiRoute: method, pattern, the scope
// area it needs, whether it writes, its summary and its OpenAPI operation
// (parameters, request and response schemas). add() registers it on the
// Router with the operation attached, and GET /api/v1/openapi.json is built
// from router.routes(), so the document describes exactly what is served.
//
// What every API route does before its handler runs, in this order:
//   1. Authorization: Bearer <token>, else 401 (problem+json, WWW-Authenticate:
//      Bearer; the body says nothing more). The session cookie is ignored.
//   2. 600 requests an hour per token (a fixed window in the shared cache),
//      else 429 with Retry-After (seconds to the end of the window).
//   3. The scope (ApiRoute::area, ::write), else 403 naming the scope missing;
//      then, for a route with {id}, somebody else's (or no) record is 404.
//   4. For POST/PATCH: a body over 256 KiB is 413; a non-empty body whose
//      Content-Type is not application/json is 415; a body that is not one
//      JSON object, or nests deeper than 32 levels, is 400. Unknown query parameters are 400.
//   5. POST runs inside one write transaction (ApiCall::tx). With an
//      Idempotency-Key header (1–255 visible ASCII characters) the key is
//      claimed first in that transaction: the same key and request within 24 h
//      answers the first 2xx response again (Idempotent-Replayed: true)
//      without acting; the same key with a different method, path or body is
//      422. A non-2xx answer rolls the whole transaction back (the key too),
//      so nothing is half-written and the key can be used again.
//
// Answers: JSON; times RFC 3339 UTC without fractions ("2027-01-15T08:00:00Z");
// lists {"items": [...], "next_cursor": "…" | null}; errors
// application/problem+json (RFC 9457) {type, title, status, detail}, and a
// validation error (422) adds "errors": [{"field", "code", "message"}].
// Somebody else's record is 404, exactly like a missing one.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/api_tokens.h"
#include "domain/field_errors.h"
#include "http/router.h"
#include "pages/site.h"
#include "store/db.h"

namespace peto::web {

// The largest API request body; the server refuses a larger one on its
// headers (Route::max_body_bytes), before reading it.
inline constexpr std::size_t kApiMaxBody = 256 * 1024;
inline constexpr std::int64_t kApiRequestsPerHour = 600;

struct ApiCall {
  Request& request;
  const domain::Bearer& bearer;
  nlohmann::json body;        // the parsed body of a POST/PATCH ({} when empty)
  store::Conn* tx = nullptr;  // POST only: the open write transaction
  std::int64_t id = 0;        // {id} of a route with an id_kind: one of the owner's records
  std::int64_t owner() const { return bearer.account.id; }
  std::string actor() const { return "API token " + bearer.token.name; }
};

using ApiHandler = std::function<Response(ApiCall&)>;

struct ApiRoute {
  std::string method = "GET";  // "GET", "POST", "PATCH", "DELETE"
  std::string pattern = "";    // "/api/v1/listings/{id}"
  std::string area = "";       // scope area ("listings"); "" = any valid token (GET /me)
  bool write = false;          // needs <area>:write (else <area>:read)
  // OpenAPI operation object: summary, parameters, requestBody, responses.
  nlohmann::json operation = nullptr;
  ApiHandler handler = nullptr;
  std::vector<std::string> query = {};  // query parameters it accepts (others are 400)
  // For a pattern with {id}: the kind of record it names. Before anything
  // else (after the scope), an id that is not one of the owner's records of
  // that kind answers 404, whatever the body says.
  std::string id_kind = "";
  // Runs after the checks above and before the handler (for a POST, before
  // its transaction): a rate limit of its own may refuse here with an answer.
  std::function<std::optional<Response>(ApiCall&)> admit = nullptr;
  // A POST whose handler writes through transactions of its own (it
  // typesets between them): no transaction is opened around it, so no
  // Idempotency-Key is kept for it either.
  bool own_transactions = false;
};

// The most items one page of a list or search holds.
inline constexpr int kMaxLimit = 200;
// A ?limit= value: a whole number from 1 to kMaxLimit, else nullopt.
std::optional<int> api_limit(std::string_view value);

// Made with std::make_shared (its routes hold it alive).
class Api : public std::enable_shared_from_this<Api> {
 public:
  Api(Router& router, Site& site);
  // Registers one route (see the header comment for what wraps it).
  void add(ApiRoute route);

  Site& site() { return site_; }

  // Answers for handlers.
  Response problem(const Request& r, int status, const std::string& title,
                   const std::string& detail) const;
  Response invalid(const Request& r, const domain::FieldErrors& errors) const;  // 422
  // ?limit= (1 to kMaxLimit), `fallback` when absent, or the 400 that says why.
  std::variant<int, Response> limit(const Request& r, int fallback = 50) const;

 private:
  Response run(const ApiRoute& route, Request& request) const;
  // The handler, inside the idempotency transaction for a POST.
  Response dispatch(const ApiRoute& route, ApiCall& call, std::int64_t now) const;
  Router& router_;
  Site& site_;
  mutable domain::ApiTokens tokens_;
};

// The resources: companies, contacts, listings, applications (+ status,
// timeline), reminders (+ done), interviews (+ outcome), offers, notes, tags,
// me; and GET /api/v1/openapi.json.
void add_api_routes(Router& router, Site& site);
// /api/v1/captures (api_captures.cpp), added by add_api_routes.
void add_capture_api(Api& api, Site& site);
// /api/v1/connections and /api/v1/notices (api_connections.cpp), added by add_api_routes.
void add_connection_api(Api& api, Site& site);
// /api/v1/search (api_search.cpp), added by add_api_routes.
void add_search_api(Api& api, Site& site);

}  // namespace peto::web
