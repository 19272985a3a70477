// Secret tokens in paths never reach the logs: every line the server writes
// about a request shows /feeds/…/calendar.ics and /invite/… instead, because
// those routes name the segment `{token}`.
#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/log.h"
#include "domain/accounts.h"
#include "http/router.h"
#include "http/server.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"
#include "tests/support/web_server.h"

namespace peto::web {
namespace {

using nlohmann::json;
using peto::testing::http_request;
using peto::testing::WebServer;

constexpr std::string_view kToken = "Zt0kenSecretFeed42";

// Collects the lines written while it lives, at debug level.
class Lines {
 public:
  Lines() : previous_(log::level()) {
    log::configure(log::Level::debug, log::Format::json);
    log::set_test_sink([this](const std::string& line) {
      std::lock_guard lock(mu_);
      lines_.push_back(line);
    });
  }
  ~Lines() {
    log::set_test_sink(nullptr);
    log::configure(previous_, log::Format::json);
  }
  std::vector<std::string> raw() {
    std::lock_guard lock(mu_);
    return lines_;
  }
  // The "path" of every line that has one.
  std::vector<std::string> paths() {
    std::vector<std::string> out;
    for (const auto& l : raw()) {
      auto j = json::parse(l);
      if (j.contains("path")) out.push_back(j["path"].get<std::string>());
    }
    return out;
  }

 private:
  log::Level previous_;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

Router feed_router() {
  Router router;
  router.add("GET", "/feeds/{token}/calendar.ics",
             [](Request&) { return Response::text(200, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"); });
  router.add("GET", "/feeds/{token}/boom",
             [](Request&) -> Response { throw std::runtime_error("the feed could not be drawn"); });
  router.add("POST", "/feeds/{token}/calendar.ics",
             [](Request&) { return Response::text(200, "no"); });
  return router;
}

void expect_no_token(Lines& lines) {
  for (const auto& l : lines.raw()) EXPECT_EQ(l.find(kToken), std::string::npos) << l;
}

TEST(LogRedactionTest, TheAccessLineHidesTheFeedToken) {
  Lines lines;
  Router router = feed_router();
  WebServer web(router);
  const std::string token(kToken);
  EXPECT_EQ(http_request(web.port(), "GET", "/feeds/" + token + "/calendar.ics").status, 200);
  // Written with escapes, the router still reads "/feeds/<token>/…".
  EXPECT_EQ(http_request(web.port(), "GET", "/%66eeds/" + token + "/calendar.ics").status, 200);
  ASSERT_TRUE(web.stop());

  expect_no_token(lines);
  auto paths = lines.paths();
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "/feeds/…/calendar.ics");
  EXPECT_EQ(paths[1], "/feeds/…/calendar.ics");
}

TEST(LogRedactionTest, AFailedRequestHidesTheFeedToken) {
  Lines lines;
  Router router = feed_router();
  WebServer web(router);
  EXPECT_EQ(http_request(web.port(), "GET", "/feeds/" + std::string(kToken) + "/boom").status, 500);
  ASSERT_TRUE(web.stop());

  expect_no_token(lines);
  bool failed = false;
  for (const auto& l : lines.raw()) {
    auto j = json::parse(l);
    if (j["message"] != "request failed") continue;
    failed = true;
    EXPECT_EQ(j["path"], "/feeds/…/boom");
    EXPECT_EQ(j["error"], "the feed could not be drawn");
  }
  EXPECT_TRUE(failed);
}

TEST(LogRedactionTest, ARefusedRequestHidesTheFeedToken) {
  Lines lines;
  Router router = feed_router();
  Server::Options options;
  options.max_body_bytes = 16;
  WebServer web(router, options);
  auto r = http_request(web.port(), "POST", "/feeds/" + std::string(kToken) + "/calendar.ics",
                        std::string(100, 'x'));
  EXPECT_EQ(r.status, 413);
  ASSERT_TRUE(web.stop());

  expect_no_token(lines);
  bool refused = false;
  for (const auto& l : lines.raw()) {
    auto j = json::parse(l);
    if (j["message"] != "request refused") continue;
    refused = true;
    EXPECT_EQ(j["path"], "/feeds/…/calendar.ics");
  }
  EXPECT_TRUE(refused);
}

TEST(LogRedactionTest, OtherPathsAreLoggedAsTheyAre) {
  Lines lines;
  Router router;
  router.add("GET", "/profile/feed", [](Request&) { return Response::text(200, "feed"); });
  router.add("GET", "/a/{x}", [](Request&) { return Response::text(200, "a"); });
  WebServer web(router);
  EXPECT_EQ(http_request(web.port(), "GET", "/profile/feed").status, 200);
  EXPECT_EQ(http_request(web.port(), "GET", "/a/feeds").status, 200);
  EXPECT_EQ(http_request(web.port(), "GET", "/feeds/").status, 404);
  ASSERT_TRUE(web.stop());

  EXPECT_EQ(lines.paths(), (std::vector<std::string>{"/profile/feed", "/a/feeds", "/feeds/"}));
}

TEST(LogRedactionTest, ATokenIsHiddenUnderItsPrefixEvenWhereNoRouteMatches) {
  Lines lines;
  Router router = feed_router();
  WebServer web(router);
  const std::string token(kToken);
  EXPECT_EQ(http_request(web.port(), "GET", "/feeds/" + token + "/other.ics").status, 404);
  EXPECT_EQ(http_request(web.port(), "DELETE", "/feeds/" + token + "/calendar.ics").status, 405);
  ASSERT_TRUE(web.stop());

  expect_no_token(lines);
  EXPECT_EQ(lines.paths(),
            (std::vector<std::string>{"/feeds/…/other.ics", "/feeds/…/calendar.ics"}));
}

// The whole site: an invitation's token, in the link that signs a new person
// up, is as secret as a feed's.
class SiteLogRedactionTest : public peto::testing::SiteTest {};

TEST_P(SiteLogRedactionTest, AnInvitationsTokenIsNotLogged) {
  auto admin =
      peto::testing::SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  const std::string token = site_->accounts().create_invite(admin.account().id, "ben@example.com");
  ASSERT_GE(token.size(), 16u);

  Lines lines;
  EXPECT_EQ(http_request(port(), "GET", "/invite/" + token).status, 200);
  auto refused = peto::testing::post_signed_out_form(port(), "/invite/" + token,
                                                     {{"password", "a"}, {"password_again", "b"}});
  EXPECT_NE(refused.body.find("The two passwords differ"), std::string::npos) << refused.body;
  ASSERT_TRUE(web_->stop());

  for (const auto& l : lines.raw()) EXPECT_EQ(l.find(token), std::string::npos) << l;
  EXPECT_EQ(lines.paths(), (std::vector<std::string>{"/invite/…", "/invite/…", "/invite/…"}));
}

PETO_BOTH_BACKENDS(SiteLogRedactionTest);

}  // namespace
}  // namespace peto::web
