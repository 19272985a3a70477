// Core pages: /healthz against real databases, the start page, templates.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "pages/pages.h"
#include "pages/templates.h"
#include "tests/support/backends.h"
#include "tests/support/http_client.h"
#include "tests/support/web_server.h"

namespace peto::web {
namespace {

using nlohmann::json;
using peto::testing::http_request;
using peto::testing::WebServer;

CoreDeps deps_for(store::Db* db) {
  CoreDeps deps;
  deps.db = db;
  deps.templates_dir = std::filesystem::path(PETO_SOURCE_DIR) / "templates";
  deps.version = "9.8.7";
  return deps;
}

class HealthzTest : public peto::testing::BackendTest {};

TEST_P(HealthzTest, OkWhenTheDatabaseAnswers) {
  Router router;
  add_core_routes(router, deps_for(&db()));
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body), (json{{"status", "ok"}, {"database", "ok"}}));
  EXPECT_EQ(r.header("Cache-Control"), "no-store");
}

PETO_BOTH_BACKENDS(HealthzTest);

// A Db whose server is gone: every acquire fails as a dead PostgreSQL would.
class UnreachableDb : public store::Db {
 public:
  store::Dialect dialect() const override { return store::Dialect::postgres; }
  store::Lease acquire() override {
    throw store::Error(store::Error::Kind::connection, "could not connect to server");
  }
  std::uint64_t statements_run() const override { return 0; }
  std::string describe() const override { return "postgres://gone"; }

 protected:
  void give_back(std::unique_ptr<store::Conn>) override {}
};

TEST(HealthzUnavailableTest, Is503WhenTheDatabaseIsUnreachable) {
  UnreachableDb db;
  Router router;
  add_core_routes(router, deps_for(&db));
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/healthz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(json::parse(r.body), (json{{"status", "unavailable"}, {"database", "unreachable"}}));
  EXPECT_EQ(r.body.find("could not connect"), std::string::npos);

  EXPECT_EQ(health(nullptr).status, 503);
}

TEST(HomePageTest, ExplainsTheFirstAccount) {
  Router router;
  add_core_routes(router, deps_for(nullptr));
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_TRUE(r.has_header("Content-Security-Policy"));
  const std::string& html = r.body;
  for (const char* part : {"<html lang=\"en\">", "href=\"#main\"", "<header", "<main id=\"main\"",
                           "<footer", "peto 9.8.7", "/static/peto.css",
                           "peto user create --email you@example.com --admin</code>"}) {
    EXPECT_NE(html.find(part), std::string::npos) << part;
  }
  // The CSP forbids inline script and style; the templates must not need
  // them. The one script is peto's own file.
  const std::string script = "<script src=\"/static/peto.js\" defer></script>";
  EXPECT_EQ(html.find("<script"), html.find(script));
  EXPECT_EQ(html.find("<script", html.find(script) + 1), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
  EXPECT_EQ(html.find("<style"), std::string::npos);
}

TEST(HomePageTest, NoFirstAccountTextOnceAccountsExist) {
  Router router;
  CoreDeps deps = deps_for(nullptr);
  deps.has_accounts = [] { return true; };
  add_core_routes(router, deps);
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.find("peto user create"), std::string::npos);
}

TEST(HomePageTest, NotFoundUsesTheTemplatedPage) {
  Router router;
  add_core_routes(router, deps_for(nullptr));
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/no/such/%3Cpage%3E");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("<main id=\"main\""), std::string::npos);
  EXPECT_NE(r.body.find("peto 9.8.7"), std::string::npos);
  EXPECT_EQ(r.body.find("<page>"), std::string::npos);  // the path is escaped
  EXPECT_NE(r.body.find("&lt;page&gt;"), std::string::npos);
}

TEST(TemplatesTest, EscapesValuesAndIncludesPartials) {
  peto::testing::TempDir dir;
  std::ofstream(dir.path() / "layout.mustache") << "<body>{{> nav}}{{{content}}}</body>";
  std::ofstream(dir.path() / "nav.mustache") << "<nav>{{product}}</nav>";
  std::ofstream(dir.path() / "page.mustache")
      << "<p>{{name}}</p>{{#items}}<i>{{.}}</i>{{/items}}{{#n}}[{{n}}]{{/n}}";
  Templates t(dir.path(), {{"product", "peto"}});
  ASSERT_TRUE(t.load());
  std::string html = t.render_page("page", {{"name", "<b>&\"'"}, {"items", {1, "two"}}, {"n", 3}});
  EXPECT_EQ(html,
            "<body><nav>peto</nav><p>&lt;b&gt;&amp;&quot;&apos;</p><i>1</i><i>two</i>[3]</body>");
}

// Partials are written into their template before it is parsed: the output
// is what rendering each partial in place gives, in any section and nesting.
TEST(TemplatesTest, PartialsInSectionsAndPartialsRenderInPlace) {
  peto::testing::TempDir dir;
  std::ofstream(dir.path() / "row.mustache") << "<li>{{name}}{{>  mark }}</li>\n";
  std::ofstream(dir.path() / "mark.mustache") << "{{#done}} ✓{{/done}}";
  std::ofstream(dir.path() / "list.mustache")
      << "<ul>\n  {{#rows}}{{> row}}{{/rows}}\n</ul>{{^rows}}{{>mark}}{{/rows}}";
  Templates t(dir.path());
  ASSERT_TRUE(t.load());
  EXPECT_EQ(t.expanded("list"),
            "<ul>\n  {{#rows}}<li>{{name}}{{#done}} ✓{{/done}}</li>\n{{/rows}}\n</ul>"
            "{{^rows}}{{#done}} ✓{{/done}}{{/rows}}");
  json rows = {{"rows", {{{"name", "a"}, {"done", true}}, {{"name", "<b>"}}}}};
  EXPECT_EQ(t.render("list", rows), "<ul>\n  <li>a ✓</li>\n<li>&lt;b&gt;</li>\n</ul>");
  EXPECT_EQ(t.render("list", {{"done", true}}), "<ul>\n  \n</ul> ✓");
}

TEST(TemplatesTest, APartialThatIncludesItselfOrIsMissingFailsTheLoad) {
  peto::testing::TempDir dir;
  std::ofstream(dir.path() / "loop.mustache") << "again {{> loop}}";
  Status s = Templates(dir.path()).load();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("one includes itself"), std::string::npos) << s.message();

  peto::testing::TempDir other;
  std::ofstream(other.path() / "page.mustache") << "{{> absent}}";
  s = Templates(other.path()).load();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("absent.mustache"), std::string::npos) << s.message();
}

TEST(TemplatesTest, MissingOrBrokenTemplatesAreClearErrors) {
  peto::testing::TempDir dir;
  Templates missing_folder(dir.path() / "nope");
  Status s = missing_folder.load();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("does not exist"), std::string::npos);

  std::ofstream(dir.path() / "broken.mustache") << "{{#open}} never closed";
  Templates broken(dir.path());
  s = broken.load();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("broken.mustache"), std::string::npos) << s.message();
  EXPECT_THROW(broken.render("absent", json::object()), std::runtime_error);
  EXPECT_THROW(broken.render("../etc/passwd", json::object()), std::runtime_error);
}

TEST(TemplatesTest, ShippedTemplatesLoad) {
  Templates t(std::filesystem::path(PETO_SOURCE_DIR) / "templates");
  Status s = t.load();
  EXPECT_TRUE(s) << s.message();
}

}  // namespace
}  // namespace peto::web
