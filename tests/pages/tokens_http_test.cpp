// /profile/tokens over real HTTP: a token made on the page authenticates and
// its secret is shown once; bad input is refused with nothing written; revoking
// works only on one's own tokens; CSRF is required.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "domain/api_tokens.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"

namespace peto::web {
namespace {

using peto::testing::ClientResponse;
using peto::testing::form_body;
using peto::testing::FormFields;
using peto::testing::SignedInClient;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Every "peto_" + 48 hex characters on a page.
std::vector<std::string> secrets_in(const std::string& html) {
  static const std::regex secret("peto_[0-9a-f]{48}");
  std::vector<std::string> out;
  for (std::sregex_iterator it(html.begin(), html.end(), secret), end; it != end; ++it)
    out.push_back(it->str());
  return out;
}

class TokensHttpTest : public peto::testing::SiteTest {
 protected:
  void SetUp() override {
    SiteTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ana_ = std::make_unique<SignedInClient>(
        SignedInClient::with_session(port(), site_->accounts(), "ana@example.com"));
    // Asia/Tokyo is UTC+9 all year: the page must show its times there.
    domain::Account tokyo = ana_->account();
    tokyo.time_zone = "Asia/Tokyo";
    ASSERT_TRUE(site_->accounts().update_profile(tokyo.id, tokyo).empty());
  }

  domain::ApiTokens tokens() { return domain::ApiTokens(db(), clock_); }

  std::unique_ptr<SignedInClient> ana_;
};

TEST_P(TokensHttpTest, APageMadeTokenAuthenticatesAndItsSecretIsShownOnce) {
  auto empty = ana_->get("/profile/tokens");
  ASSERT_EQ(empty.status, 200);
  EXPECT_TRUE(contains(empty.body, "You have no API tokens.")) << empty.body;
  EXPECT_TRUE(contains(empty.body, "name=\"scope\" type=\"checkbox\" value=\"companies:write\""));
  EXPECT_TRUE(contains(empty.body, "<legend>Companies</legend>"));

  auto made =
      ana_->post_form("/profile/tokens",
                      {{"name", "Phone shortcut"}, {"scope", "listings:write"}, {"scope", "read"}});
  ASSERT_EQ(made.status, 200) << made.body;
  EXPECT_EQ(made.header("Cache-Control"), "no-store");
  EXPECT_TRUE(contains(made.body, "it will not be shown again"));
  auto shown = secrets_in(made.body);
  ASSERT_EQ(shown.size(), 1u) << made.body;
  const std::string secret = shown[0];
  EXPECT_TRUE(contains(made.body, "readonly")) << "the secret sits in a read-only field";

  auto bearer = tokens().authenticate(secret);
  ASSERT_TRUE(bearer);
  EXPECT_EQ(bearer->account.id, ana_->account().id);
  EXPECT_EQ(bearer->token.name, "Phone shortcut");
  EXPECT_EQ(bearer->token.scopes, (std::vector<std::string>{"listings:write", "read"}));
  EXPECT_EQ(count("api_tokens"), 1);

  // Later loads list the token by its hint, never its secret, in Tokyo time.
  clock_.advance(std::chrono::hours(1));
  ASSERT_TRUE(tokens().authenticate(secret));
  auto later = ana_->get("/profile/tokens");
  ASSERT_EQ(later.status, 200);
  EXPECT_TRUE(secrets_in(later.body).empty()) << later.body;
  EXPECT_FALSE(contains(later.body, secret.substr(0, 20)));
  EXPECT_TRUE(contains(later.body, "<code>" + secret.substr(0, 9) + "…</code>")) << later.body;
  EXPECT_TRUE(contains(later.body, "Phone shortcut"));
  EXPECT_TRUE(contains(later.body, "<code>listings:write read</code>"));
  EXPECT_TRUE(contains(later.body, "<td>2027-01-15 17:00</td>")) << "created, UTC+9";
  EXPECT_TRUE(contains(later.body, "<td>2027-01-15 18:00</td>")) << "last used, UTC+9";
  EXPECT_FALSE(contains(later.body, "You have no API tokens."));
}

TEST_P(TokensHttpTest, ATokenNeverUsedSaysSo) {
  ASSERT_EQ(ana_->post_form("/profile/tokens", {{"name", "Unused"}, {"scope", "write"}}).status,
            200);
  auto page = ana_->get("/profile/tokens");
  EXPECT_TRUE(contains(page.body, "<td>Never</td>")) << page.body;
}

TEST_P(TokensHttpTest, BadInputIsRefusedWithTheFormAgainAndNothingWritten) {
  auto no_scope = ana_->post_form("/profile/tokens", {{"name", "Kept name"}});
  EXPECT_EQ(no_scope.status, 422);
  EXPECT_TRUE(contains(no_scope.body, "Choose at least one scope.")) << no_scope.body;
  EXPECT_TRUE(contains(no_scope.body, "id=\"scopes-error\""));
  EXPECT_TRUE(contains(no_scope.body, "aria-describedby=\"scopes-hint scopes-error\""));
  EXPECT_TRUE(contains(no_scope.body, "value=\"Kept name\"")) << "what was typed stays";
  EXPECT_TRUE(secrets_in(no_scope.body).empty());

  // A value no checkbox offers, posted by hand.
  auto unknown = ana_->post_form("/profile/tokens",
                                 {{"name", "Sneaky"}, {"scope", "read"}, {"scope", "admin"}});
  EXPECT_EQ(unknown.status, 422);
  EXPECT_TRUE(contains(unknown.body, "There is no such scope")) << unknown.body;

  auto no_name = ana_->post_form("/profile/tokens", {{"name", "   "}, {"scope", "notes:read"}});
  EXPECT_EQ(no_name.status, 422);
  EXPECT_TRUE(
      contains(no_name.body, "<p class=\"error\" id=\"name-error\">This field is required."))
      << no_name.body;
  EXPECT_TRUE(
      contains(no_name.body, "aria-describedby=\"name-hint name-error\" aria-invalid=\"true\""));
  EXPECT_TRUE(contains(no_name.body, "value=\"notes:read\" checked"))
      << "the ticked scopes stay ticked";
  EXPECT_FALSE(contains(no_name.body, "value=\"notes:write\" checked"));

  auto too_long =
      ana_->post_form("/profile/tokens", {{"name", std::string(101, 'x')}, {"scope", "read"}});
  EXPECT_EQ(too_long.status, 422);
  EXPECT_TRUE(contains(too_long.body, "This is too long."));

  EXPECT_EQ(count("api_tokens"), 0);
}

TEST_P(TokensHttpTest, TheFiftyFirstTokenIsRefused) {
  for (std::size_t i = 0; i < domain::kMaxTokensPerAccount; ++i)
    ASSERT_TRUE(std::holds_alternative<domain::NewToken>(
        tokens().create(ana_->account().id, "t" + std::to_string(i), {"read"})));
  auto r = ana_->post_form("/profile/tokens", {{"name", "One more"}, {"scope", "read"}});
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(contains(r.body, "You have 50 tokens already")) << r.body;
  EXPECT_TRUE(contains(r.body, "value=\"One more\""));
  EXPECT_EQ(count("api_tokens"), 50);
}

TEST_P(TokensHttpTest, RevokingStopsTheToken) {
  auto made = ana_->post_form("/profile/tokens", {{"name", "Old script"}, {"scope", "read"}});
  ASSERT_EQ(made.status, 200);
  std::string secret = secrets_in(made.body).at(0);
  auto id = tokens().list(ana_->account().id).at(0).id;
  EXPECT_TRUE(contains(made.body, "action=\"/profile/tokens/" + std::to_string(id) + "/revoke\""));

  auto r = ana_->post_form("/profile/tokens/" + std::to_string(id) + "/revoke", {});
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.header("Location"), "/profile/tokens");
  EXPECT_FALSE(tokens().authenticate(secret));
  EXPECT_TRUE(tokens().list(ana_->account().id).empty());
  EXPECT_FALSE(contains(ana_->get("/profile/tokens").body, "Old script"));

  // Revoking it again finds nothing.
  EXPECT_EQ(ana_->post_form("/profile/tokens/" + std::to_string(id) + "/revoke", {}).status, 404);
}

TEST_P(TokensHttpTest, NobodyElseCanRevokeIt) {
  auto made = std::get<domain::NewToken>(tokens().create(ana_->account().id, "Mine", {"read"}));
  auto ben = SignedInClient::with_session(port(), site_->accounts(), "ben@example.com");
  auto r = ben.post_form("/profile/tokens/" + std::to_string(made.token.id) + "/revoke", {});
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(tokens().authenticate(made.secret)) << "still live";
  EXPECT_FALSE(contains(ben.get("/profile/tokens").body, "Mine")) << "nor can they see it";

  for (const char* id : {"999999", "abc", "0", "-1"}) {
    EXPECT_EQ(ana_->post_form(std::string("/profile/tokens/") + id + "/revoke", {}).status, 404)
        << id;
  }
  EXPECT_EQ(tokens().list(ana_->account().id).size(), 1u);
}

TEST_P(TokensHttpTest, UnsafeRequestsNeedTheCsrfToken) {
  auto made = std::get<domain::NewToken>(tokens().create(ana_->account().id, "Mine", {"read"}));
  const std::vector<std::pair<std::string, std::string>> form = {
      {"Content-Type", "application/x-www-form-urlencoded"}};
  auto create = ana_->request("POST", "/profile/tokens",
                              form_body({{"name", "No csrf"}, {"scope", "read"}}), form);
  EXPECT_EQ(create.status, 403);
  EXPECT_TRUE(secrets_in(create.body).empty());
  auto revoke = ana_->request(
      "POST", "/profile/tokens/" + std::to_string(made.token.id) + "/revoke", "", form);
  EXPECT_EQ(revoke.status, 403);
  EXPECT_EQ(count("api_tokens"), 1);
  EXPECT_TRUE(tokens().authenticate(made.secret));
}

TEST_P(TokensHttpTest, SignedOutVisitorsAreSentToSignIn) {
  auto r = peto::testing::http_request(port(), "GET", "/profile/tokens");
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.header("Location"), "/signin?next=/profile/tokens");
}

TEST_P(TokensHttpTest, TheProfileLinksToTheTokens) {
  auto page = ana_->get("/profile");
  EXPECT_TRUE(contains(page.body, "<a href=\"/profile/tokens\">")) << page.body;
}

TEST_P(TokensHttpTest, NamesAreEscaped) {
  ASSERT_EQ(ana_->post_form("/profile/tokens", {{"name", "<b>bold</b>"}, {"scope", "read"}}).status,
            200);
  auto page = ana_->get("/profile/tokens");
  EXPECT_FALSE(contains(page.body, "<b>bold</b>"));
  EXPECT_TRUE(contains(page.body, "&lt;b&gt;bold&lt;/b&gt;")) << page.body;
}

PETO_BOTH_BACKENDS(TokensHttpTest);

}  // namespace
}  // namespace peto::web
