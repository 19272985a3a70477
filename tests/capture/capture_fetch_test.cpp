// The capture fetch errand against a real HTTP server on loopback, reached
// only through the client's test seam: the name "jobs.example" resolves to a
// public stand-in address, and only the connection is redirected to
// 127.0.0.1. The page is read into the capture; robots.txt, errors and
// private addresses leave it failed with a sentence saying why.
#include <gtest/gtest.h>

#include <memory>

#include "capture/errand.h"
#include "capture/kept_pages.h"
#include "domain/captures.h"
#include "domain/records.h"
#include "net/http.h"
#include "tests/support/site_fixture.h"
#include "tests/support/web_server.h"

namespace peto::capture {
using namespace ::peto::net;
namespace {

const char* kStandIn = "93.184.216.34";

const char* kPage = R"(<!doctype html><html><head>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"JobPosting",
"title":"Site Reliability Engineer","hiringOrganization":{"@type":"Organization",
"name":"Vltava Cloud"}}</script></head><body><h1>Site Reliability Engineer</h1></body></html>)";

class CaptureFetchTest : public peto::testing::SiteTest {
 protected:
  void SetUp() override {
    SiteTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    site_router_.add("GET", "/robots.txt",
                     [this](web::Request&) { return web::Response::text(200, robots_); });
    site_router_.add("GET", "/jobs/{name}", [](web::Request& r) {
      if (r.param("name") == "gone") return web::Response::text(404, "gone");
      web::Response page = web::Response::html(200, kPage);
      return page;
    });
    site_router_.add("GET", "/to-private", [](web::Request&) {
      web::Response out = web::Response::text(302, "");
      out.set_header("Location", "http://intranet.example/jobs/1");
      return out;
    });
    remote_ = std::make_unique<peto::testing::WebServer>(site_router_);
    const int port = remote_->port();
    http_ = std::make_unique<net::HttpClient>(
        [](const std::string& host) -> std::vector<std::string> {
          if (host == "jobs.example") return {kStandIn};
          if (host == "intranet.example") return {"10.1.2.3"};
          return {};
        },
        [port](const std::string& ip, int) -> std::optional<std::pair<std::string, int>> {
          if (ip == kStandIn) return std::pair<std::string, int>("127.0.0.1", port);
          return std::nullopt;
        });
    records_ = std::make_unique<domain::Records>(db(), clock_);
    owner_ = std::get<domain::Account>(
                 site_->accounts().create("ana@example.com", "correct horse battery", false))
                 .id;
  }

  // Makes a capture of `url` by link and runs its errand; the capture after.
  domain::Capture fetch(const std::string& url, FetchOptions options = {}) {
    auto made = capture_page(*records_, owner_, url, "", "web");
    EXPECT_TRUE(std::holds_alternative<domain::Capture>(made));
    const auto id = std::get<domain::Capture>(made)["id"].get<std::int64_t>();
    auto rows = db().query(
        "SELECT id, kind, payload, owner_id FROM tasks WHERE kind = ? ORDER BY id DESC LIMIT 1",
        {std::string(kFetchTask)});
    EXPECT_FALSE(rows.empty());
    engine::Task task;
    task.id = rows[0].int_at(0);
    task.kind = rows[0].text(1);
    task.payload = rows[0].text(2);
    task.owner = rows[0].int_at(3);
    auto result = run_fetch(db(), clock_, *http_, task, options);
    EXPECT_TRUE(result.is_ok());
    return *domain::Captures(*records_).get(owner_, id);
  }

  std::string robots_ = "User-agent: *\nDisallow: /private/\n";
  web::Router site_router_;
  std::unique_ptr<peto::testing::WebServer> remote_;
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<domain::Records> records_;
  std::int64_t owner_ = 0;
};

TEST_P(CaptureFetchTest, ThePageIsReadForReviewAndKept) {
  KeptPages pages(db(), clock_, config_.pages_dir());
  FetchOptions keep;
  keep.pages = &pages;
  domain::Capture c = fetch("http://jobs.example/jobs/sre", keep);
  EXPECT_EQ(pages.read(owner_, c["id"].get<std::int64_t>()), kPage);
  EXPECT_EQ(c["status"], "pending") << c.dump();
  EXPECT_EQ(c["data"]["role"], "Site Reliability Engineer");
  EXPECT_EQ(c["data"]["company"], "Vltava Cloud");
  EXPECT_EQ(c["parser"], "json-ld");
  // Read in the background, so the person is told it is ready.
  auto notice =
      db().query("SELECT event, title, url FROM inbox_notices WHERE owner_id = ?", {owner_});
  ASSERT_EQ(notice.size(), 1u);
  EXPECT_EQ(notice[0].text(0), "capture_received");
  EXPECT_EQ(notice[0].text(1), "Page captured: Site Reliability Engineer at Vltava Cloud");
  EXPECT_EQ(notice[0].text(2), "/captures/" + std::to_string(c["id"].get<std::int64_t>()));
}

TEST_P(CaptureFetchTest, RobotsTxtIsHonouredUnlessSwitchedOff) {
  robots_ = "User-agent: *\nDisallow: /jobs/\n";
  domain::Capture refused = fetch("http://jobs.example/jobs/sre");
  EXPECT_EQ(refused["status"], "failed");
  EXPECT_NE(refused["error"].get<std::string>().find("robots.txt"), std::string::npos);
  FetchOptions off;
  off.honour_robots = false;
  EXPECT_EQ(fetch("http://jobs.example/jobs/sre?again=1", off)["status"], "pending");
}

TEST_P(CaptureFetchTest, AMissingPageFailsWithTheReason) {
  domain::Capture c = fetch("http://jobs.example/jobs/gone");
  EXPECT_EQ(c["status"], "failed");
  EXPECT_NE(c["error"].get<std::string>().find("404"), std::string::npos) << c.dump();
}

TEST_P(CaptureFetchTest, PrivateAddressesAreNeverFetched) {
  // A loopback address, even with private destinations allowed for the rest of peto.
  config_.allow_private_destinations = true;
  domain::Capture direct =
      fetch("http://127.0.0.1:" + std::to_string(remote_->port()) + "/jobs/sre");
  EXPECT_EQ(direct["status"], "failed");
  EXPECT_TRUE(direct["data"].value("role", "").empty());
  // A public page that redirects to a private address.
  domain::Capture redirected = fetch("http://jobs.example/to-private");
  EXPECT_EQ(redirected["status"], "failed");
  EXPECT_NE(redirected["error"].get<std::string>().find("private or local address"),
            std::string::npos)
      << redirected.dump();
  EXPECT_EQ(redirected["error"], direct["error"]);
}

PETO_BOTH_BACKENDS(CaptureFetchTest);

}  // namespace
}  // namespace peto::capture
