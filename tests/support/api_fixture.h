// ApiTest: the whole site with the JSON API (add_site_routes + add_api_routes)
// on a fresh, migrated database of either backend, served over real HTTP.
//
//   class ListingsApiTest : public peto::testing::ApiTest {};
//   TEST_P(ListingsApiTest, …) {
//     ApiClient ana = client(ana_, {"write"});
//     auto made = ana.post("/api/v1/companies", {{"name", "Acme"}});
//   }
//   PETO_BOTH_BACKENDS(ListingsApiTest);
//
// Two accounts exist: ana_ (the first, so the admin) and ben_. Password
// hashing is cheap; the FakeClock (2027-01-15T08:00:00Z) is the one the Site
// and the API read, so a test moves time with clock_.advance(). A derived
// SetUp calls ApiTest::SetUp() first and returns when
// IsSkipped() || HasFatalFailure().
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api/api.h"
#include "app/app.h"
#include "core/clock.h"
#include "core/config.h"
#include "domain/accounts.h"
#include "domain/api_tokens.h"
#include "domain/kinds.h"
#include "pages/routes.h"
#include "pages/site.h"
#include "store/migrate.h"
#include "tests/support/api_client.h"
#include "tests/support/backends.h"
#include "tests/support/web_server.h"

namespace peto::testing {

inline constexpr const char* kApi = "/api/v1";

// The record kinds the API serves, parents before children.
inline const std::vector<std::string>& api_kinds() {
  static const std::vector<std::string> all = {
      "companies", "contacts", "listings", "applications", "reminders", "interviews",
      "offers",    "notes",    "tags",     "career",       "cvs",       "letters"};
  return all;
}

// How many ids seed() gives: one record of every kind, one capture and one
// connection.
inline std::size_t seeded_count() { return api_kinds().size() + 2; }

// True when `r` is an RFC 9457 problem document with this status.
inline ::testing::AssertionResult is_problem(const ApiReply& r, int status) {
  if (r.status != status)
    return ::testing::AssertionFailure()
           << "status " << r.status << ", wanted " << status << "; body: " << r.text;
  if (r.media_type() != "application/problem+json")
    return ::testing::AssertionFailure()
           << "Content-Type '" << r.header("Content-Type") << "', wanted application/problem+json";
  if (!r.body.is_object() || !r.body.contains("title") || !r.body["title"].is_string() ||
      r.body.value("status", 0) != status)
    return ::testing::AssertionFailure() << "not a problem document: " << r.text;
  return ::testing::AssertionSuccess();
}

// True when `r` is a 422 problem whose errors name `field`.
inline ::testing::AssertionResult names_field(const ApiReply& r, const std::string& field) {
  if (auto p = is_problem(r, 422); !p) return p;
  if (!r.body.contains("errors") || !r.body["errors"].is_array())
    return ::testing::AssertionFailure() << "no errors list: " << r.text;
  for (const auto& e : r.body["errors"])
    if (e.is_object() && e.value("field", "") == field) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no error for '" << field << "': " << r.text;
}

class ApiTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::filesystem::path source = PETO_SOURCE_DIR;
    domain::set_password_cost(domain::PasswordCost::test);
    ASSERT_TRUE(store::Migrator(db(), app::migrations()).apply());
    web::SiteDeps deps;
    deps.db = &db();
    deps.clock = &clock_;
    config_.data_dir = (dir() / "data").string();  // kept pages land in the test's folder
    config_.secret_key = "api-test-secret-key-of-at-least-32-chars";  // sealed connection secrets
    deps.config = &config_;
    deps.templates_dir = source / "templates";
    deps.locales_dir = source / "locales";
    site_ = std::make_unique<web::Site>(deps);
    Status loaded = site_->load();
    ASSERT_TRUE(loaded) << loaded.message();
    web::CoreDeps core;
    core.db = &db();
    core.templates_dir = source / "templates";
    core.version = "test";
    web::add_site_routes(router_, *site_, core);
    web::add_api_routes(router_, *site_);
    web::Server::Options options;
    options.threads = 8;  // the concurrent-POST test keeps many requests in flight
    web_ = std::make_unique<WebServer>(router_, options);
    tokens_ = std::make_unique<domain::ApiTokens>(db(), clock_);
    ana_ = make_account("ana@example.com");
    ben_ = make_account("ben@example.com");
    write_openapi_once(port());
  }

  void TearDown() override {
    web_.reset();  // no request may outlive the database
    site_.reset();
    BackendTest::TearDown();
  }

  std::uint16_t port() const { return web_->port(); }

  std::int64_t make_account(const std::string& email) {
    auto made = site_->accounts().create(email, "correct horse battery", false);
    EXPECT_TRUE(std::holds_alternative<domain::Account>(made)) << email;
    return std::get<domain::Account>(made).id;
  }

  // A new token's secret for `owner` with these scopes.
  std::string token(std::int64_t owner, const std::vector<std::string>& scopes,
                    const std::string& name = "test token") {
    auto made = tokens_->create(owner, name, scopes);
    if (!std::holds_alternative<domain::NewToken>(made)) {
      ADD_FAILURE() << "could not create a token with these scopes";
      return {};
    }
    return std::get<domain::NewToken>(made).secret;
  }
  ApiClient client(std::int64_t owner, const std::vector<std::string>& scopes) {
    return ApiClient(port(), token(owner, scopes));
  }

  // A valid create body for `kind`; `parents` holds an id of each kind it
  // refers to, `n` makes names unique.
  static nlohmann::json create_body(const std::string& kind,
                                    const std::map<std::string, std::int64_t>& parents, int n) {
    auto id = [&](const std::string& k) { return parents.at(k); };
    std::string suffix = " " + std::to_string(n);
    if (kind == "companies")
      return {
          {"name", "Acme" + suffix}, {"website", "https://acme.example"}, {"location", "Lisbon"}};
    if (kind == "contacts")
      return {{"name", "Zoe" + suffix},
              {"company_id", id("companies")},
              {"role", "Recruiter"},
              {"email", "zoe@acme.example"}};
    if (kind == "listings")
      return {{"role", "Engineer" + suffix},
              {"company_id", id("companies")},
              {"url", "https://acme.example/j"},
              {"closes_on", "2027-02-01"},
              {"remote", "hybrid"},
              {"salary_min", 50000},
              {"currency", "EUR"}};
    if (kind == "applications")
      return {{"listing_id", id("listings")}, {"channel", "email"}, {"priority", 2}};
    if (kind == "reminders")
      return {{"title", "Call back" + suffix},
              {"due_at", "2027-01-20T09:00:00Z"},
              {"application_id", id("applications")}};
    if (kind == "interviews")
      return {{"application_id", id("applications")},
              {"kind", "video"},
              {"starts_at", "2027-01-22T10:00:00Z"},
              {"ends_at", "2027-01-22T11:00:00Z"},
              {"place", "Online"}};
    if (kind == "offers")
      return {{"application_id", id("applications")},
              {"base_pay", 50000},
              {"currency", "EUR"},
              {"period", "year"},
              {"start_on", "2027-03-01"}};
    if (kind == "notes")
      return {{"body", "Nice team" + suffix}, {"application_id", id("applications")}};
    if (kind == "tags") return {{"name", "remote" + suffix}, {"colour", "blue"}};
    if (kind == "career")
      return {{"section", "experience"},
              {"title", "Engineer" + suffix},
              {"organisation", "Acme"},
              {"started_on", "2021-03-01"},
              {"highlights", "- Shipped"}};
    if (kind == "cvs")
      return {{"name", "Backend" + suffix}, {"full_name", "Ana Lima"}, {"theme", "modern"}};
    if (kind == "letters")
      return {{"name", "Cover" + suffix},
              {"purpose", "cover"},
              {"regarding", "Application for {role}"},
              {"body", "Dear {contact},\n\nI would like to join {company}."}};
    // A webhook to localhost: a test send is refused by the destination
    // policy before anything leaves the machine.
    if (kind == "connections")
      return {{"plugin", "webhook"},
              {"label", "Hook" + suffix},
              {"config", {{"url", "https://localhost/hook"}, {"secret", "0123456789abcdef-seed"}}}};
    if (kind == "captures")
      return {{"url", "https://jobs.example/" + std::to_string(n)}, {"html", "<h1>Engineer</h1>"}};
    ADD_FAILURE() << "no create body for " << kind;
    return nlohmann::json::object();
  }

  // One record of every kind made through the API by `c`; kind -> id.
  std::map<std::string, std::int64_t> seed(const ApiClient& c, int n = 0) {
    std::map<std::string, std::int64_t> ids;
    for (const std::string& kind : api_kinds()) {
      ApiReply made = c.post(std::string(kApi) + "/" + kind, create_body(kind, ids, n));
      EXPECT_EQ(made.status, 201) << kind << ": " << made.text;
      if (made.status != 201 || !made.body.contains("id")) return ids;
      ids[kind] = made.body["id"].get<std::int64_t>();
    }
    // A capture (a pasted page: nothing is fetched), for the routes under /captures.
    ApiReply captured = c.post(std::string(kApi) + "/captures", create_body("captures", ids, n));
    EXPECT_EQ(captured.status, 201) << captured.text;
    if (captured.status == 201) ids["captures"] = captured.body["id"].get<std::int64_t>();
    // A connection, for the routes under /connections.
    ApiReply connected =
        c.post(std::string(kApi) + "/connections", create_body("connections", ids, n));
    EXPECT_EQ(connected.status, 201) << connected.text;
    if (connected.status == 201) ids["connections"] = connected.body["id"].get<std::int64_t>();
    return ids;
  }

  std::int64_t count(const std::string& table) {
    return db().query("SELECT COUNT(*) FROM " + table)[0].int_at(0);
  }

  // Every row of every person's table (and the timeline and tag links) as
  // text: equal snapshots mean nothing was written.
  std::string snapshot() {
    std::vector<std::string> tables = api_kinds();
    tables.push_back("application_events");
    tables.push_back("application_tags");
    tables.push_back("users");
    std::string out;
    for (const std::string& t : tables) {
      out += "[" + t + "]\n";
      for (const auto& row : db().query("SELECT * FROM " + t + " ORDER BY 1, 2")) {
        for (std::size_t i = 0; i < row.size(); ++i)
          out += (row[i].is_null() ? "NULL" : row[i].as_text()) + "|";
        out += "\n";
      }
    }
    return out;
  }

  FakeClock clock_;  // 2027-01-15T08:00:00Z
  Config config_;
  std::unique_ptr<web::Site> site_;
  web::Router router_;
  std::unique_ptr<WebServer> web_;
  std::unique_ptr<domain::ApiTokens> tokens_;
  std::int64_t ana_ = 0;
  std::int64_t ben_ = 0;
};

}  // namespace peto::testing
