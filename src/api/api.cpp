#include "api/api.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "core/json_depth.h"
#include "core/text.h"
#include "domain/kinds.h"
#include "pages/record_view.h"
#include "store/cache.h"

namespace peto::web {

namespace {

constexpr std::int64_t kHourMs = 3600 * 1000;
constexpr std::size_t kMaxKeyLength = 255;

// Thrown inside the POST transaction to roll it back and answer `response`.
struct Refused {
  Response response;
};

using text::lower;

// The token of "Authorization: Bearer <token>"; "" when there is none.
std::string bearer_secret(const Request& r) {
  const std::string* h = r.header("Authorization");
  if (h == nullptr || h->size() < 7 || lower(h->substr(0, 7)) != "bearer ") return {};
  std::string token = h->substr(7);
  token.erase(0, token.find_first_not_of(' '));
  token.erase(token.find_last_not_of(' ') + 1);
  return token;
}

bool is_json_type(const std::string* content_type) {
  if (content_type == nullptr) return false;
  std::string media = lower(content_type->substr(0, content_type->find(';')));
  media.erase(0, media.find_first_not_of(" \t"));
  media.erase(media.find_last_not_of(" \t") + 1);
  return media == "application/json";
}

bool valid_key(const std::string& key) {
  return !key.empty() && key.size() <= kMaxKeyLength &&
         std::all_of(key.begin(), key.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

bool is_success(int status) { return status >= 200 && status < 300; }

// Bodies nesting deeper are refused before parsing (core/json_depth.h).
constexpr int kMaxJsonDepth = 32;

// Claims `key` for this request inside the open transaction `tx`. Returns the
// stored answer when the key was already used (or a 422 when it was used for
// another request); nullopt when this request owns the key now.
std::optional<Response> claim_key(store::Conn& tx, std::int64_t owner, const std::string& key,
                                  const std::string& request_hash, std::int64_t now) {
  // A live row blocks the claim; an expired one is taken over. On PostgreSQL a
  // concurrent claim of the same key waits here until the first transaction
  // ends, then sees its row (or, if it rolled back, takes the key).
  if (domain::ApiTokens::claim_idempotency_key(tx, owner, key, request_hash, now))
    return std::nullopt;
  auto kept = domain::ApiTokens::idempotency_answer(tx, owner, key);
  if (!kept || kept->request_hash != request_hash) {
    return Response::problem(422, "Idempotency key reused",
                             "This Idempotency-Key was already used with a different request. "
                             "Use a new key for a new request.");
  }
  Response replay;
  replay.status = kept->status;
  auto stored = nlohmann::json::parse(kept->response, nullptr, false);
  if (stored.is_object()) {
    const nlohmann::json headers = stored.value("headers", nlohmann::json::object());
    for (const auto& [name, value] : headers.items())
      if (value.is_string()) replay.set_header(name, value.get<std::string>());
    replay.body = stored.value("body", "");
  }
  replay.set_header("Idempotent-Replayed", "true");
  return replay;
}

void keep_answer(store::Conn& tx, std::int64_t owner, const std::string& key,
                 const Response& answer) {
  nlohmann::json headers = nlohmann::json::object();
  for (const char* name : {"Content-Type", "Location"})
    if (const std::string* v = answer.header(name)) headers[name] = *v;
  nlohmann::json stored = {{"headers", headers}, {"body", answer.body}};
  domain::ApiTokens::keep_idempotency_answer(tx, owner, key, answer.status, stored.dump());
}

}  // namespace

Api::Api(Router& router, Site& site)
    : router_(router), site_(site), tokens_(site.db(), site.clock()) {}

Response Api::problem(const Request& r, int status, const std::string& title,
                      const std::string& detail) const {
  return router_.error(r, status, title, detail);
}

std::optional<int> api_limit(std::string_view value) {
  if (value.empty() || value.size() > 3 || value.find_first_not_of("0123456789") != value.npos)
    return std::nullopt;
  const int n = std::stoi(std::string(value));
  return n >= 1 && n <= kMaxLimit ? std::optional(n) : std::nullopt;
}

std::variant<int, Response> Api::limit(const Request& r, int fallback) const {
  auto given = r.query_param("limit");
  if (!given) return fallback;
  if (auto n = api_limit(*given)) return *n;
  return problem(r, 400, "Bad query parameter",
                 "'limit' must be a whole number from 1 to " + std::to_string(kMaxLimit) + ".");
}

Response Api::invalid(const Request& r, const domain::FieldErrors& errors) const {
  nlohmann::json texts = site_.error_texts(nullptr, r, errors);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [field, code] : errors.by_field) {
    std::string short_code = code.starts_with("error_") ? code.substr(6) : code;
    list.push_back({{"field", field}, {"code", short_code}, {"message", texts[field]}});
  }
  nlohmann::json body = {{"type", "about:blank"},
                         {"title", "Invalid input"},
                         {"status", 422},
                         {"detail", "Some fields are not valid; see errors."},
                         {"errors", std::move(list)}};
  Response out = Response::json(422, body);
  out.set_header("Content-Type", "application/problem+json");
  return out;
}

void Api::add(ApiRoute route) {
  auto shared = std::make_shared<const ApiRoute>(std::move(route));
  nlohmann::json operation = shared->operation;
  if (!shared->area.empty())
    operation["x-scope"] = domain::needed_scope(shared->area, shared->write);
  router_.add_documented(
      shared->method, shared->pattern,
      [self = shared_from_this(), shared](Request& r) {
        Response out = self->run(*shared, r);
        out.set_header("Cache-Control", "no-store");
        return out;
      },
      std::move(operation), kApiMaxBody);
}

Response Api::run(const ApiRoute& route, Request& r) const {
  std::string secret = bearer_secret(r);
  auto bearer = secret.empty() ? std::nullopt : tokens_.authenticate(secret);
  if (!bearer) {
    Response out = problem(r, 401, "Unauthorized", "");
    out.set_header("WWW-Authenticate", "Bearer");
    return out;
  }

  const std::int64_t now = site_.clock().now_ms();
  const std::int64_t window = now / kHourMs;
  store::Cache cache(site_.db(), site_.clock());
  std::int64_t used =
      cache.incr("ratelimit:api:" + std::to_string(bearer->token.id) + ":" + std::to_string(window),
                 1, std::chrono::milliseconds(kHourMs));
  if (used > kApiRequestsPerHour) {
    std::int64_t wait_s = ((window + 1) * kHourMs - now + 999) / 1000;
    Response out =
        problem(r, 429, "Too many requests",
                "This token has made " + std::to_string(kApiRequestsPerHour) +
                    " requests this hour; try again in " + std::to_string(wait_s) + " seconds.");
    out.set_header("Retry-After", std::to_string(wait_s));
    return out;
  }

  if (!route.area.empty() && !domain::scope_allows(bearer->token.scopes, route.area, route.write)) {
    std::string scope = domain::needed_scope(route.area, route.write);
    return problem(
        r, 403, "Forbidden",
        "This token lacks the scope " + scope + " (or " + (route.write ? "write" : "read") + ").");
  }

  std::optional<std::int64_t> id;
  if (!route.id_kind.empty()) {
    id = parse_id(r.param("id"));
    bool owned = id && domain::owns(site_.db(), route.id_kind, *id, bearer->account.id);
    if (!owned) {
      const domain::Kind* kind = domain::find_kind(route.id_kind);
      return problem(r, 404, "Not found",
                     "There is no " + (kind ? kind->singular : std::string("such record")) + " " +
                         r.param("id") + ".");
    }
  }

  for (const auto& [name, _] : r.query)
    if (std::find(route.query.begin(), route.query.end(), name) == route.query.end())
      return problem(r, 400, "Unknown query parameter",
                     "This route does not take the query parameter '" + name + "'.");

  ApiCall call{r, *bearer, nlohmann::json::object(), nullptr, id.value_or(0)};
  if (r.method == "POST" || r.method == "PATCH") {
    if (r.body.find_first_not_of(" \t\r\n") != std::string::npos) {
      if (!is_json_type(r.header("Content-Type")))
        return problem(r, 415, "Unsupported media type", "Send the body as application/json.");
      if (json_nesting_depth(r.body, kMaxJsonDepth) > kMaxJsonDepth)
        return problem(r, 400, "Nested too deeply",
                       "The request body nests arrays and objects more than " +
                           std::to_string(kMaxJsonDepth) + " levels deep.");
      call.body = nlohmann::json::parse(r.body, nullptr, false);
      if (call.body.is_discarded())
        return problem(r, 400, "Malformed JSON", "The request body is not valid JSON.");
      if (!call.body.is_object())
        return problem(r, 400, "Not an object", "The request body must be one JSON object.");
    }
  }
  try {
    return dispatch(route, call, now);
  } catch (const store::Error& e) {
    // Two requests racing on one unique name (a company, a tag): the loser
    // is told to look again rather than given a 500.
    if (e.kind() != store::Error::Kind::constraint) throw;
    return problem(r, 409, "Conflict",
                   "Another request changed the same records at the same moment; "
                   "read them again and retry.");
  }
}

Response Api::dispatch(const ApiRoute& route, ApiCall& call, std::int64_t now) const {
  Request& r = call.request;
  if (route.admit)
    if (auto refused = route.admit(call)) return std::move(*refused);
  if (r.method != "POST" || route.own_transactions) return route.handler(call);

  std::string key;
  if (const std::string* k = r.header("Idempotency-Key")) {
    key = *k;
    if (!valid_key(key))
      return problem(r, 400, "Bad Idempotency-Key",
                     "An Idempotency-Key is 1 to 255 visible ASCII characters.");
  }
  const std::int64_t owner = call.owner();
  const std::string request_hash = domain::token_hash(r.method + " " + r.target + "\n" + r.body);
  try {
    return site_.db().write([&](store::Conn& tx) {
      if (!key.empty()) {
        if (auto earlier = claim_key(tx, owner, key, request_hash, now)) {
          if (!is_success(earlier->status)) throw Refused{*earlier};
          return *earlier;
        }
      }
      call.tx = &tx;
      Response answer = route.handler(call);
      if (!is_success(answer.status)) throw Refused{std::move(answer)};
      if (!key.empty()) keep_answer(tx, owner, key, answer);
      return answer;
    });
  } catch (Refused& refused) {
    return std::move(refused.response);
  }
}

}  // namespace peto::web
