// Who may do what through /api/v1: 401 without a valid bearer token, 403 for
// a missing scope (swept over the route table), 404 for somebody else's
// record on every route that takes an id, and 429 past 600 requests an hour.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class AccessApiTest : public ApiTest {
 protected:
  bool is_api(const web::Route& r) const { return r.pattern.rfind("/api/v1/", 0) == 0; }
  static bool writes(const web::Route& r) { return r.method != "GET" && r.method != "HEAD"; }

  // The route's pattern with {id} replaced by the id of `ids`' record of
  // the route's kind (/api/v1/<kind>/{id}/…).
  static std::string path_for(const web::Route& r, const std::map<std::string, std::int64_t>& ids) {
    std::string path = r.pattern;
    auto at = path.find("{id}");
    if (at == std::string::npos) return path;
    const std::string& kind = r.segments.at(2);
    path.replace(at, 4, std::to_string(ids.count(kind) ? ids.at(kind) : 0));
    // A second parameter (a Record-as-sent errand): one nobody has.
    if (auto task = path.find("{task}"); task != std::string::npos) path.replace(task, 6, "1");
    return path;
  }

  // A body the route would accept from the record's owner.
  static json body_for(const web::Route& r, const std::map<std::string, std::int64_t>& ids) {
    const std::string& p = r.pattern;
    const std::string kind = r.segments.size() > 2 ? r.segments[2] : "";
    if (p.ends_with("/status")) return {{"status", "applied"}};
    if (p.ends_with("/timeline")) return {{"kind", "note"}, {"summary", "Hello"}};
    if (p.ends_with("/done")) return {{"done", true}};
    if (p.ends_with("/outcome")) return {{"outcome", "done"}};
    if (p.ends_with("/sent")) return {{"cv_id", ids.count("cvs") ? ids.at("cvs") : 0}};
    if (p == "/api/v1/me") return {{"quiet_after_days", 10}};
    if (r.method == "POST" && ids.count(kind)) return create_body(kind, ids, 7);
    if (r.method == "PATCH") {
      if (kind == "companies") return {{"location", "Elsewhere"}};
      if (kind == "contacts" || kind == "tags") return {{"name", "Renamed"}};
      if (kind == "listings") return {{"role", "Renamed"}};
      if (kind == "applications") return {{"priority", 1}};
      if (kind == "reminders") return {{"title", "Renamed"}};
      if (kind == "interviews") return {{"place", "Elsewhere"}};
      if (kind == "offers") return {{"base_pay", 1}};
      if (kind == "notes") return {{"body", "Renamed"}};
      if (kind == "career") return {{"title", "Renamed"}};
      if (kind == "cvs") return {{"headline", "Renamed"}};
      if (kind == "letters") return {{"name", "Renamed"}};
    }
    return json::object();
  }

  // One client per scope (an account may hold only 50 tokens).
  const ApiClient& scoped(const std::string& scope) {
    auto it = by_scope_.find(scope);
    if (it == by_scope_.end()) it = by_scope_.emplace(scope, client(ana_, {scope})).first;
    return it->second;
  }
  std::map<std::string, ApiClient> by_scope_;

  ApiReply send(const ApiClient& c, const web::Route& r,
                const std::map<std::string, std::int64_t>& ids) {
    std::string path = path_for(r, ids);
    if (r.method == "GET") return c.get(path);
    if (r.method == "DELETE") return c.del(path);
    if (r.method == "PATCH") return c.patch(path, body_for(r, ids));
    return c.post(path, body_for(r, ids));
  }
};

TEST_P(AccessApiTest, NoValidBearerTokenIs401) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  auto made = tokens_->create(ana_, "Soon revoked", {"write"});
  ASSERT_TRUE(std::holds_alternative<domain::NewToken>(made));
  auto revoked = std::get<domain::NewToken>(made);
  ASSERT_TRUE(tokens_->revoke(ana_, revoked.token.id));
  auto session = site_->accounts().open_session(ana_);

  const std::string target = std::string(kApi) + "/companies/" + std::to_string(ids["companies"]);
  ApiClient anonymous(port(), "");
  std::vector<std::pair<std::string, HeaderList>> cases = {
      {"no header", {}},
      {"basic scheme", {{"Authorization", "Basic YW5hOnBhc3N3b3Jk"}}},
      {"bare secret", {{"Authorization", ana.bearer()}}},
      {"empty bearer", {{"Authorization", "Bearer "}}},
      {"unknown token", {{"Authorization", "Bearer peto_" + std::string(48, 'a')}}},
      {"revoked token", {{"Authorization", "Bearer " + revoked.secret}}},
      {"session cookie only", {{"Cookie", std::string(web::kSessionCookie) + "=" + session.token}}},
  };
  std::string snap = snapshot();
  for (const auto& [what, headers] : cases) {
    SCOPED_TRACE(what);
    ApiReply read = anonymous.raw("GET", target, "", headers);
    EXPECT_TRUE(is_problem(read, 401));
    EXPECT_EQ(read.header("WWW-Authenticate").rfind("Bearer", 0), 0u)
        << read.header("WWW-Authenticate");
    HeaderList json_headers = headers;
    json_headers.emplace_back("Content-Type", "application/json");
    EXPECT_TRUE(
        is_problem(anonymous.raw("PATCH", target, R"({"location":"X"})", json_headers), 401));
    EXPECT_TRUE(is_problem(anonymous.raw("DELETE", target, "", headers), 401));
    EXPECT_TRUE(is_problem(anonymous.raw("GET", std::string(kApi) + "/me", "", headers), 401));
  }
  // A live token of an account that has been made inactive.
  ApiClient ben = client(ben_, {"write"});
  ASSERT_EQ(ben.get(std::string(kApi) + "/me").status, 200);
  EXPECT_EQ(snapshot(), snap);
  site_->accounts().set_active(ben_, false);
  snap = snapshot();
  EXPECT_TRUE(is_problem(ben.get(std::string(kApi) + "/me"), 401));
  EXPECT_TRUE(is_problem(ben.post(std::string(kApi) + "/tags", {{"name", "x"}}), 401));
  EXPECT_EQ(snapshot(), snap);
  // The document needs no token.
  EXPECT_EQ(anonymous.get(std::string(kApi) + "/openapi.json").status, 200);
}

TEST_P(AccessApiTest, ReadTokenIsRefusedOnEveryWriteRoute) {
  ApiClient writer = client(ana_, {"write"});
  auto ids = seed(writer);
  ASSERT_EQ(ids.size(), seeded_count());
  ApiClient reader = client(ana_, {"read"});
  std::string snap = snapshot();
  int swept = 0;
  for (const web::Route& route : router_.routes()) {
    if (!is_api(route) || !writes(route)) continue;
    SCOPED_TRACE(route.method + " " + route.pattern);
    ++swept;
    ApiReply r = send(reader, route, ids);
    EXPECT_TRUE(is_problem(r, 403));
    ASSERT_FALSE(route.operation.is_null());
    if (route.pattern != "/api/v1/me") {
      ASSERT_TRUE(route.operation.contains("x-scope"));
      EXPECT_TRUE(route.operation["x-scope"].get<std::string>().ends_with(":write"))
          << route.operation["x-scope"];
    }
  }
  EXPECT_GE(swept, 9 * 3 + 5);  // create, patch, delete of each kind and the actions
  EXPECT_EQ(snapshot(), snap);
  // The read token reads everything.
  for (const std::string& kind : api_kinds())
    EXPECT_EQ(reader.get(std::string(kApi) + "/" + kind + "/" + std::to_string(ids[kind])).status,
              200)
        << kind;
}

TEST_P(AccessApiTest, AreaScopesCoverTheirAreaOnly) {
  ApiClient writer = client(ana_, {"write"});
  auto ids = seed(writer);
  ASSERT_EQ(ids.size(), seeded_count());
  ApiClient listings_reader = client(ana_, {"listings:read"});
  EXPECT_EQ(listings_reader.get(std::string(kApi) + "/listings").status, 200);
  EXPECT_TRUE(is_problem(listings_reader.get(std::string(kApi) + "/companies"), 403));
  EXPECT_TRUE(is_problem(
      listings_reader.post(std::string(kApi) + "/listings", create_body("listings", ids, 5)), 403));
  ApiClient listings_writer = client(ana_, {"listings:write"});
  EXPECT_EQ(listings_writer.get(std::string(kApi) + "/listings").status, 200);  // write reads
  EXPECT_EQ(
      listings_writer.post(std::string(kApi) + "/listings", create_body("listings", ids, 6)).status,
      201);
  EXPECT_TRUE(is_problem(
      listings_writer.post(std::string(kApi) + "/companies", create_body("companies", ids, 6)),
      403));

  // Over the route table: a token of another area is refused everywhere
  // (before anything is read or written); the route's own scope gets past.
  std::string snap = snapshot();
  int swept = 0;
  for (const web::Route& route : router_.routes()) {
    if (!is_api(route) || !route.operation.contains("x-scope")) continue;
    std::string scope = route.operation["x-scope"].get<std::string>();
    std::string area = scope.substr(0, scope.find(':'));
    SCOPED_TRACE(route.method + " " + route.pattern + " needs " + scope);
    ++swept;
    std::string other = area == "tags" ? "notes" : "tags";
    EXPECT_TRUE(is_problem(send(scoped(other + ":write"), route, ids), 403));
  }
  EXPECT_GE(swept, 9 * 5);
  EXPECT_EQ(snapshot(), snap);
  for (const web::Route& route : router_.routes()) {
    if (!is_api(route) || !route.operation.contains("x-scope")) continue;
    SCOPED_TRACE(route.method + " " + route.pattern);
    ApiReply r = send(scoped(route.operation["x-scope"].get<std::string>()), route, ids);
    EXPECT_NE(r.status, 403) << r.text;
    EXPECT_NE(r.status, 401) << r.text;
    EXPECT_LT(r.status, 500) << r.text;
  }
}

TEST_P(AccessApiTest, AnotherAccountsRecordIsNotFoundOnEveryRoute) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  ApiClient ben = client(ben_, {"write"});
  std::string snap = snapshot();
  int swept = 0;
  for (const web::Route& route : router_.routes()) {
    if (!is_api(route) || route.pattern.find("{id}") == std::string::npos) continue;
    SCOPED_TRACE(route.method + " " + route.pattern);
    ASSERT_TRUE(ids.count(route.segments.at(2))) << "no record for this route";
    ++swept;
    EXPECT_TRUE(is_problem(send(ben, route, ids), 404));
  }
  EXPECT_GE(swept, 9 * 3 + 5);
  EXPECT_EQ(snapshot(), snap);

  // Ben's lists show none of ana's records, and his references to them fail.
  for (const std::string& kind : api_kinds()) {
    ApiReply list = ben.get(std::string(kApi) + "/" + kind + "?limit=200" +
                            (domain::kind(kind).tabs.empty() ? "" : "&tab=all"));
    ASSERT_EQ(list.status, 200) << kind << ": " << list.text;
    EXPECT_TRUE(list.body["items"].empty()) << kind << ": " << list.text;
  }
  EXPECT_TRUE(names_field(
      ben.post(std::string(kApi) + "/listings", create_body("listings", ids, 3)), "company_id"));
  ApiReply apply = ben.post(std::string(kApi) + "/applications", {{"listing_id", ids["listings"]}});
  EXPECT_TRUE(is_problem(apply, 422) || is_problem(apply, 404)) << apply.text;
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(AccessApiTest, SixHundredRequestsAnHourPerToken) {
  ApiClient ana = client(ana_, {"write"});
  ApiClient other = client(ana_, {"write"});
  const std::string me = std::string(kApi) + "/me";
  int ok = 0;
  for (int i = 0; i < 600; ++i) ok += ana.get(me).status == 200;
  EXPECT_EQ(ok, 600);

  clock_.advance(std::chrono::minutes(10));
  ApiReply limited = ana.get(me);
  EXPECT_TRUE(is_problem(limited, 429));
  std::string retry = limited.header("Retry-After");
  ASSERT_FALSE(retry.empty());
  ASSERT_TRUE(std::all_of(retry.begin(), retry.end(), ::isdigit)) << retry;
  EXPECT_GT(std::stoll(retry), 0);
  EXPECT_LE(std::stoll(retry), 3000);  // ten minutes of the hour have gone

  std::int64_t companies = count("companies");
  EXPECT_TRUE(is_problem(ana.post(std::string(kApi) + "/companies", {{"name", "Acme"}}), 429));
  EXPECT_EQ(count("companies"), companies);
  EXPECT_EQ(other.get(me).status, 200);  // the limit is per token

  clock_.advance(std::chrono::hours(1));
  EXPECT_EQ(ana.get(me).status, 200);
}

PETO_BOTH_BACKENDS(AccessApiTest);

}  // namespace
}  // namespace peto::testing
