// SiteTest: the whole site (every route of add_site_routes) on a fresh,
// migrated database of either backend, served over real HTTP by a WebServer;
// kept pages and other data go under dir() / "data".
//
//   class AccountsHttpTest : public peto::testing::SiteTest {};
//   TEST_P(AccountsHttpTest, …) { http_request(port(), "GET", "/signin"); … }
//   PETO_BOTH_BACKENDS(AccountsHttpTest);
//
// run_tries() is the worker for "Send a test", "Sync now" and "Send now"
// (connections/tries.h): it runs the errands the pages queued.
//
// Password hashing is set to the cheap test cost; the FakeClock
// (2027-01-15T08:00:00Z) is the one the Site reads. A derived fixture that
// builds more in its own SetUp calls SiteTest::SetUp() first and returns when
// IsSkipped() || HasFatalFailure().
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "app/app.h"
#include "connections/tries.h"
#include "core/clock.h"
#include "core/config.h"
#include "domain/accounts.h"
#include "engine/queue.h"
#include "net/http.h"
#include "pages/routes.h"
#include "pages/site.h"
#include "store/db.h"
#include "store/migrate.h"
#include "tests/support/backends.h"
#include "tests/support/web_server.h"

namespace peto::testing {

class SiteTest : public BackendTest {
 protected:
  // `version` is what the core pages show in the footer.
  explicit SiteTest(std::string version = "test") : version_(std::move(version)) {}

  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::filesystem::path source = PETO_SOURCE_DIR;
    domain::set_password_cost(domain::PasswordCost::test);
    ASSERT_TRUE(store::Migrator(db(), app::migrations()).apply());
    web::SiteDeps deps;
    deps.db = &db();
    deps.clock = &clock_;
    config_.data_dir = (dir() / "data").string();  // kept pages, in the test's folder
    deps.config = &config_;
    deps.templates_dir = source / "templates";
    deps.locales_dir = source / "locales";
    site_ = std::make_unique<web::Site>(deps);
    Status loaded = site_->load();
    ASSERT_TRUE(loaded) << loaded.message();
    web::CoreDeps core;
    core.db = &db();
    core.templates_dir = source / "templates";
    core.version = version_;
    web::add_site_routes(router_, *site_, core);
    web_ = std::make_unique<WebServer>(router_);
  }

  void TearDown() override {
    web_.reset();  // no request may outlive the database
    site_.reset();
    BackendTest::TearDown();
  }

  std::uint16_t port() const { return web_->port(); }
  std::int64_t count(const std::string& table) {
    return db().query("SELECT COUNT(*) AS n FROM " + table)[0].int_at("n");
  }

  // Runs every try waiting in the queue, as the worker would; how many ran.
  int run_tries() {
    static const net::HttpClient http;
    engine::Queue queue(db(), clock_);
    connections::Tries tries(db(), clock_, config_, http);
    int ran = 0;
    for (const auto& task : queue.claim("default", "test-worker", 100, std::chrono::minutes(5))) {
      auto result = tries.run(task);
      EXPECT_TRUE(result) << task.kind << ": " << result.status().message();
      EXPECT_TRUE(queue.finish(task, "test-worker", result ? *result : ""));
      ++ran;
    }
    return ran;
  }

  std::string version_;
  FakeClock clock_;
  Config config_;
  std::unique_ptr<web::Site> site_;
  web::Router router_;
  std::unique_ptr<WebServer> web_;
};

}  // namespace peto::testing
