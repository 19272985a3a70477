// Sign-in through a real OpenID provider on loopback (npm oidc-provider,
// tests/oidc/provider): the whole authorization code flow with PKCE as a
// browser walks it, linking by verified address and then by subject,
// registering, refusing an unverified address, and refusing ID tokens that
// are for someone else, too old, badly signed or replayed.
#include <gtest/gtest.h>

#include <strings.h>

#include <map>
#include <optional>

#include "core/clock.h"
#include "tests/support/external_server.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"
#include "tests/support/two_factor.h"

namespace peto::web {
namespace {

using nlohmann::json;
using peto::testing::ClientResponse;
using peto::testing::cookie_of;
using peto::testing::http_request;
using peto::testing::session_cookie_of;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class OidcHttpTest : public peto::testing::SiteTest {
 protected:
  void SetUp() override {
    SiteTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // The provider signs with the real time; peto checks with its clock.
    clock_.set(system_clock().now_ms());
    const std::string provider = std::string(PETO_SOURCE_DIR) + "/tests/oidc/provider";
    std::string out;
    ASSERT_EQ(peto::testing::run_command(provider + " --install 2>&1", &out), 0) << out;
    provider_ = std::make_unique<peto::testing::ExternalServer>(
        std::vector<std::string>{provider, "{port}"}, dir());
    issuer_ = "http://127.0.0.1:" + std::to_string(provider_->port());
    use_client("peto-rs", "rs-secret");
  }

  void use_client(const std::string& id, const std::string& secret) {
    config_.oidc_issuer = issuer_;
    config_.oidc_client_id = id;
    config_.oidc_client_secret = secret;
  }

  std::string host() const { return "127.0.0.1:" + std::to_string(port()); }

  json control(const std::string& path, const json& body) {
    auto r = http_request(provider_->port(), "POST", path, body.dump(),
                          {{"Content-Type", "application/json"}});
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  void provider_account(const json& account) { control("/test/account", account); }
  void tamper(const std::string& mode) { control("/test/tamper", {{"mode", mode}}); }

  // Starts at peto's "Sign in with …" and follows the provider's redirects as
  // a browser would, with the provider's cookies; the address it sends the
  // browser back to (peto's callback), and peto's state cookie in `state`.
  std::string through_provider(std::string& state) {
    auto start = http_request(port(), "GET", "/signin/oidc?next=/board", "", {{"Host", host()}});
    EXPECT_EQ(start.status, 303) << start.body;
    state = cookie_of(start, "peto_oidc");
    std::string location = start.header("Location");
    EXPECT_EQ(location.rfind(issuer_ + "/auth?", 0), 0u) << location;
    std::map<std::string, std::string> jar;
    for (int hop = 0; hop < 10 && location.rfind(issuer_ + "/", 0) == 0; ++hop) {
      std::string cookies;
      for (const auto& [k, v] : jar) cookies += (cookies.empty() ? "" : "; ") + k + "=" + v;
      auto answer = http_request(provider_->port(), "GET", location.substr(issuer_.size()), "",
                                 {{"Host", issuer_.substr(7)}, {"Cookie", cookies}});
      for (const auto& [k, v] : answer.headers) {
        if (strcasecmp(k.c_str(), "set-cookie") != 0) continue;
        const auto eq = v.find('=');
        jar[v.substr(0, eq)] = v.substr(eq + 1, v.find(';') - eq - 1);
      }
      EXPECT_TRUE(answer.status == 302 || answer.status == 303) << answer.status << answer.body;
      location = answer.header("Location");
      if (location.rfind('/', 0) == 0) location = issuer_ + location;
    }
    return location;
  }

  // peto's answer at its callback `location` with the browser's `state`.
  ClientResponse callback(const std::string& location, const std::string& state) {
    const std::string origin = "http://" + host();
    EXPECT_EQ(location.rfind(origin + "/signin/oidc/callback?", 0), 0u) << location;
    return http_request(port(), "GET", location.substr(origin.size()), "",
                        {{"Host", host()}, {"Cookie", "peto_oidc=" + state}});
  }

  ClientResponse sign_in() {
    std::string state;
    const std::string back = through_provider(state);
    return callback(back, state);
  }

  std::int64_t identities_of(std::int64_t user_id) {
    return db()
        .query("SELECT COUNT(*) FROM oidc_identities WHERE user_id = ? AND issuer = ?",
               {user_id, issuer_})[0]
        .int_at(0);
  }

  domain::Account make(const std::string& email) {
    return std::get<domain::Account>(
        site_->accounts().create(email, peto::testing::SignedInClient::kPassword, false));
  }

  std::unique_ptr<peto::testing::ExternalServer> provider_;
  std::string issuer_;
};

TEST_P(OidcHttpTest, LinksAVerifiedAddressOnceThenKnowsThePersonBySubject) {
  auto page = http_request(port(), "GET", "/signin");
  EXPECT_TRUE(contains(page.body, "href=\"/signin/oidc?next=/\"")) << page.body;
  EXPECT_TRUE(contains(page.body, "Sign in with single sign-on"));
  const auto ana = make("ana@example.com");
  provider_account(
      {{"sub", "ana-at-the-provider"}, {"email", "Ana@Example.com"}, {"email_verified", true}});
  auto in = sign_in();
  ASSERT_EQ(in.status, 303) << in.body;
  EXPECT_EQ(in.header("Location"), "/board");
  const std::string session = session_cookie_of(in);
  ASSERT_EQ(session.size(), 64u);
  auto profile =
      http_request(port(), "GET", "/profile", "", {{"Cookie", "peto_session=" + session}});
  EXPECT_TRUE(contains(profile.body, "ana@example.com"));
  EXPECT_EQ(identities_of(ana.id), 1);
  EXPECT_EQ(site_->accounts().events(ana.id)[0].kind, "oidc_linked");

  // PKCE went with the code, and the client authenticated with Basic.
  auto last = http_request(provider_->port(), "GET", "/test/last-token-request");
  auto sent = json::parse(last.body);
  EXPECT_TRUE(sent["code_verifier_present"].get<bool>()) << last.body;
  EXPECT_TRUE(sent["basic_auth"].get<bool>()) << last.body;
  EXPECT_FALSE(sent["client_secret_in_body"].get<bool>()) << last.body;

  // The provider now says another, unverified address: the link is by
  // (issuer, subject), so it is still Ana.
  provider_account({{"sub", "ana-at-the-provider"},
                    {"email", "someone.else@example.com"},
                    {"email_verified", false}});
  auto again = sign_in();
  ASSERT_EQ(again.status, 303) << again.body;
  EXPECT_EQ(identities_of(ana.id), 1);
  auto who = http_request(port(), "GET", "/profile", "",
                          {{"Cookie", "peto_session=" + session_cookie_of(again)}});
  EXPECT_TRUE(contains(who.body, "ana@example.com"));
}

TEST_P(OidcHttpTest, AnAddressTheProviderDoesNotVouchForLinksNothing) {
  const auto bo = make("bo@example.com");
  for (const json& verified : {json(false), json("true"), json()}) {
    json account = {{"sub", "mallory"}, {"email", "bo@example.com"}};
    if (!verified.is_null()) account["email_verified"] = verified;
    provider_account(account);
    auto in = sign_in();
    EXPECT_EQ(in.status, 403) << verified.dump();
    EXPECT_TRUE(contains(in.body, "has not confirmed your e-mail address")) << in.body;
    EXPECT_EQ(session_cookie_of(in), "");
  }
  EXPECT_EQ(identities_of(bo.id), 0);
}

TEST_P(OidcHttpTest, RegistersOnlyWhenAllowed) {
  make("root@example.com");  // the first account, the administrator
  provider_account({{"sub", "cy"}, {"email", "cy@example.com"}, {"email_verified", true}});
  auto refused = sign_in();
  EXPECT_EQ(refused.status, 403);
  EXPECT_TRUE(contains(refused.body, "Ask the administrator for an invitation")) << refused.body;
  EXPECT_FALSE(site_->accounts().find_by_email("cy@example.com"));

  config_.oidc_auto_register = true;
  auto in = sign_in();
  ASSERT_EQ(in.status, 303) << in.body;
  auto cy = site_->accounts().find_by_email("cy@example.com");
  ASSERT_TRUE(cy);
  EXPECT_FALSE(cy->is_admin);
  EXPECT_EQ(identities_of(cy->id), 1);
  EXPECT_EQ(site_->accounts().events(cy->id)[0].kind, "oidc_registered");
  EXPECT_FALSE(site_->accounts().check_password("cy@example.com", "")) << "no password works";
  EXPECT_FALSE(site_->accounts().check_password("cy@example.com", "!"));

  // Without a password, deleting the account asks for the address instead.
  const std::string cookie = "peto_session=" + session_cookie_of(in);
  auto profile = http_request(port(), "GET", "/profile", "", {{"Cookie", cookie}});
  EXPECT_TRUE(contains(profile.body, "name=\"delete_email\"")) << profile.body;
  EXPECT_FALSE(contains(profile.body, "name=\"delete_password\""));
  const std::string csrf = peto::testing::scrape_csrf(profile.body);
  auto remove = [&](const std::string& typed) {
    return http_request(
        port(), "POST", "/profile/delete",
        peto::testing::form_body(
            {{"csrf", csrf}, {"delete_email", typed}, {"confirm_delete", "yes"}}),
        {{"Cookie", cookie}, {"Content-Type", "application/x-www-form-urlencoded"}});
  };
  auto wrong = remove("someone@example.com");
  EXPECT_EQ(wrong.status, 422);
  EXPECT_TRUE(contains(wrong.body, "Type the address of this account")) << wrong.body;
  EXPECT_EQ(remove("CY@example.com").status, 303);
  EXPECT_FALSE(site_->accounts().find_by_email("cy@example.com"));
  EXPECT_EQ(identities_of(cy->id), 0);

  // Registering still needs an address the provider vouches for.
  provider_account({{"sub", "dee"}, {"email", "dee@example.com"}, {"email_verified", false}});
  EXPECT_EQ(sign_in().status, 403);
  EXPECT_FALSE(site_->accounts().find_by_email("dee@example.com"));
}

TEST_P(OidcHttpTest, RefusesIdTokensForSomeoneElseTooOldOrBadlySigned) {
  const auto ana = make("ana@example.com");
  provider_account({{"sub", "ana"}, {"email", "ana@example.com"}, {"email_verified", true}});
  for (const char* mode :
       {"wrong_aud", "wrong_iss", "expired", "wrong_nonce", "bad_signature", "alg_none", "hs256"}) {
    tamper(mode);
    auto in = sign_in();
    EXPECT_EQ(in.status, 400) << mode << ": " << in.body;
    EXPECT_TRUE(contains(in.body, "could not be completed safely")) << mode;
    EXPECT_EQ(session_cookie_of(in), "") << mode;
    EXPECT_EQ(identities_of(ana.id), 0) << mode;
  }
  // Untampered, the same provider and account sign in.
  EXPECT_EQ(sign_in().status, 303);
}

TEST_P(OidcHttpTest, AStateWorksOnceAndOnlyInItsBrowser) {
  make("ana@example.com");
  provider_account({{"sub", "ana"}, {"email", "ana@example.com"}, {"email_verified", true}});
  std::string state;
  const std::string back = through_provider(state);
  std::string other_state;
  const std::string other = through_provider(other_state);
  // Another browser's answer, with this browser's cookie: refused.
  EXPECT_EQ(callback(other, state).status, 400);
  auto in = callback(back, state);
  ASSERT_EQ(in.status, 303) << in.body;
  auto replay = callback(back, state);
  EXPECT_EQ(replay.status, 400) << "the same answer twice";
  EXPECT_EQ(session_cookie_of(replay), "");
  // Without a cookie at all.
  EXPECT_EQ(callback(other, "").status, 400);
}

TEST_P(OidcHttpTest, EcdsaSignedTokensToo) {
  use_client("peto-es", "es-secret");
  make("ana@example.com");
  provider_account({{"sub", "ana"}, {"email", "ana@example.com"}, {"email_verified", true}});
  auto in = sign_in();
  EXPECT_EQ(in.status, 303) << in.body;
  tamper("bad_signature");
  EXPECT_EQ(sign_in().status, 400);
}

TEST_P(OidcHttpTest, TwoStepSignInIsStillAsked) {
  const auto ana = make("ana@example.com");
  ASSERT_EQ(
      peto::testing::turn_on_two_factor(site_->two_factor(), ana.id, ana.email, clock_).size(),
      domain::kRecoveryCodeCount);
  provider_account({{"sub", "ana"}, {"email", "ana@example.com"}, {"email_verified", true}});
  auto in = sign_in();
  ASSERT_EQ(in.status, 303) << in.body;
  EXPECT_EQ(in.header("Location"), "/signin/code?next=/board");
  EXPECT_EQ(session_cookie_of(in), "");
  EXPECT_EQ(cookie_of(in, "peto_challenge").size(), 64u);
}

TEST_P(OidcHttpTest, OffWithoutAnIssuer) {
  config_.oidc_issuer.clear();
  EXPECT_EQ(http_request(port(), "GET", "/signin/oidc").status, 404);
  EXPECT_FALSE(contains(http_request(port(), "GET", "/signin").body, "/signin/oidc"));
  // A provider that cannot be reached: the sign-in page says so.
  config_.oidc_issuer = "http://127.0.0.1:9";
  auto down = http_request(port(), "GET", "/signin/oidc");
  EXPECT_EQ(down.status, 502);
  EXPECT_TRUE(contains(down.body, "cannot be reached just now")) << down.body;
}

PETO_BOTH_BACKENDS(OidcHttpTest);

}  // namespace
}  // namespace peto::web
