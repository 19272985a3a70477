// The route table on its own: matching, precedence, 404/405, HEAD; and
// the request target and form bodies as they are read (text only).
#include <gtest/gtest.h>

#include <stdexcept>

#include "http/form.h"
#include "http/router.h"

namespace peto::web {
namespace {

Request request(const std::string& method, const std::string& target) {
  Request r;
  r.method = method;
  EXPECT_TRUE(r.set_target(target)) << target;
  return r;
}

Handler says(std::string what) {
  return [what](Request& r) {
    std::string params;
    for (const auto& [k, v] : r.path_params) params += " " + k + "=" + v;
    return Response::text(200, what + params);
  };
}

TEST(RouterTest, MatchesLiteralsAndNamedParams) {
  Router router;
  router.add("GET", "/", says("root"));
  router.add("GET", "/api/v1/companies/{company}/contacts/{id}", says("contact"));
  auto r = request("GET", "/api/v1/companies/3/contacts/9");
  EXPECT_EQ(router.dispatch(r).body, "contact company=3 id=9");
  EXPECT_EQ(r.param("id"), "9");
  EXPECT_EQ(r.param("nothing"), "");
  auto root = request("GET", "/");
  EXPECT_EQ(router.dispatch(root).body, "root");
}

TEST(RouterTest, ParamsMatchOneNonEmptySegment) {
  Router router;
  router.add("GET", "/items/{id}", says("item"));
  for (const char* target : {"/items/", "/items", "/items/1/2"}) {
    auto r = request("GET", target);
    EXPECT_EQ(router.dispatch(r).status, 404) << target;
  }
}

TEST(RouterTest, LiteralBeatsParamWhateverTheOrderOfAdding) {
  Router router;
  router.add("GET", "/items/{id}/edit", says("param"));
  router.add("GET", "/items/{id}", says("item"));
  router.add("GET", "/items/new", says("new"));
  router.add("GET", "/{any}/new/edit", says("late literal"));
  auto a = request("GET", "/items/new");
  EXPECT_EQ(router.dispatch(a).body, "new");
  auto b = request("GET", "/items/7");
  EXPECT_EQ(router.dispatch(b).body, "item id=7");
  auto c = request("GET", "/items/new/edit");
  EXPECT_EQ(router.dispatch(c).body, "param id=new");  // the first segment decides
}

TEST(RouterTest, OtherMethodOnAKnownPathIs405) {
  Router router;
  router.add("GET", "/items/{id}", says("get"));
  router.add("POST", "/items/{id}", says("post"));
  auto r = request("PATCH", "/items/1");
  Response res = router.dispatch(r);
  EXPECT_EQ(res.status, 405);
  EXPECT_EQ(*res.header("allow"), "GET, HEAD, POST");
  EXPECT_TRUE(res.is_html());
}

TEST(RouterTest, HeadFallsBackToGetButAHeadRouteWins) {
  Router router;
  router.add("GET", "/a", says("get a"));
  router.add("GET", "/b", says("get b"));
  router.add("HEAD", "/b", says("head b"));
  auto a = request("HEAD", "/a");
  EXPECT_EQ(router.dispatch(a).body, "get a");  // the server drops it
  auto b = request("HEAD", "/b");
  EXPECT_EQ(router.dispatch(b).body, "head b");
}

TEST(RouterTest, ErrorsAreProblemsUnderApiAndPagesElsewhere) {
  Router router;
  auto api = request("GET", "/api/v1/x");
  Response p = router.dispatch(api);
  EXPECT_EQ(*p.header("Content-Type"), "application/problem+json");
  EXPECT_EQ(nlohmann::json::parse(p.body)["status"], 404);

  router.set_error_page(
      [](const Request&, int status, const std::string& title, const std::string&) {
        return Response::html(status, "custom " + title);
      });
  auto page = request("GET", "/x");
  EXPECT_EQ(router.dispatch(page).body, "custom Not found");
  auto apiagain = request("GET", "/api");
  EXPECT_EQ(*router.dispatch(apiagain).header("Content-Type"), "application/problem+json");
}

TEST(RouterTest, RoutesAreListableData) {
  Router router;
  router.add("GET", "/api/v1/items", says("list"), "List items");
  router.add("POST", "/api/v1/items", says("create"), "Create an item");
  ASSERT_EQ(router.routes().size(), 2u);
  EXPECT_EQ(router.routes()[1].method, "POST");
  EXPECT_EQ(router.routes()[1].pattern, "/api/v1/items");
  EXPECT_EQ(router.routes()[1].summary, "Create an item");
}

TEST(RouterTest, MalformedRoutesAreProgrammingErrors) {
  Router router;
  router.add("GET", "/ok/{id}", says("ok"));
  EXPECT_THROW(router.add("GET", "no-slash", says("x")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/{}", says("x")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/{id", says("x")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/x{id}", says("x")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/{id}/{id}", says("x")), std::invalid_argument);
  EXPECT_THROW(router.add("get", "/a", says("x")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/ok/{id}", says("again")), std::invalid_argument);
}

TEST(HttpTest, ProblemFollowsRfc9457) {
  Response r = Response::problem(422, "Invalid listing", "role: must not be empty");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(*r.header("content-type"), "application/problem+json");
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body, (nlohmann::json{{"type", "about:blank"},
                                  {"title", "Invalid listing"},
                                  {"status", 422},
                                  {"detail", "role: must not be empty"}}));
}

TEST(HttpTest, SecurityHeadersDoNotOverrideTheHandler) {
  Response r = Response::html(200, "x");
  r.set_header("X-Frame-Options", "SAMEORIGIN");
  add_security_headers(r);
  EXPECT_EQ(*r.header("x-frame-options"), "SAMEORIGIN");
  EXPECT_EQ(*r.header("content-security-policy"), std::string(kContentSecurityPolicy));
  Response j = Response::json(200, {});
  add_security_headers(j);
  EXPECT_EQ(j.header("Content-Security-Policy"), nullptr);
  EXPECT_EQ(*j.header("X-Content-Type-Options"), "nosniff");
}

TEST(HttpTest, TargetParsing) {
  Request r;
  ASSERT_TRUE(r.set_target("/a%20b/c?x=1&y=%2F&flag&x=2"));
  EXPECT_EQ(r.path, "/a b/c");
  EXPECT_EQ(r.segments, (std::vector<std::string>{"a b", "c"}));
  EXPECT_EQ(r.query_param("x"), "1");
  EXPECT_EQ(r.query_param("y"), "/");
  EXPECT_EQ(r.query_param("flag"), "");
  EXPECT_EQ(r.query_param("z"), std::nullopt);
  EXPECT_FALSE(r.set_target("http://example.com/"));
  EXPECT_FALSE(r.set_target("/bad%zz"));
  EXPECT_FALSE(r.set_target("*"));
  EXPECT_TRUE(r.set_target("/search?q=caf%C3%A9"));
  EXPECT_EQ(r.query_param("q"), "café");
  EXPECT_FALSE(r.set_target("/search?q=caf%C3")) << "half a character is not text";
  EXPECT_FALSE(r.set_target("/search?q%E9=1")) << "nor is Latin-1, in a name";
  EXPECT_FALSE(r.set_target("/caf%E9")) << "or in the path";
}

TEST(FormTest, AFieldThatIsNotUtf8LeavesTheFormEmpty) {
  EXPECT_EQ(Form::decode("name=Caf%C3%A9&role=x").get("name"), "Café");
  const Form bad = Form::decode("name=Caf%C3&role=x");
  EXPECT_TRUE(bad.fields().empty()) << "read as missing input, never stored half";
}

}  // namespace
}  // namespace peto::web
