// Two-step sign-in over real HTTP: setting it up from the QR page with codes
// from Debian's oathtool, the sign-in's second step (a code, a recovery code,
// a trusted browser, tries running out), turning it off, and an
// administrator's reset.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "domain/two_factor.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"
#include "tests/support/two_factor.h"

namespace peto::web {
namespace {

using namespace std::chrono_literals;
using peto::testing::ClientResponse;
using peto::testing::cookie_of;
using peto::testing::form_body;
using peto::testing::FormFields;
using peto::testing::http_request;
using peto::testing::session_cookie_of;
using peto::testing::SignedInClient;

const std::string kPassword = SignedInClient::kPassword;
const std::string kFormToken(32, 'f');

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class TwoFactorHttpTest : public peto::testing::SiteTest {
 protected:
  domain::Accounts& accounts() { return site_->accounts(); }

  // A signed-out form as a browser posts it, with `cookies` besides the
  // form's own ("peto_challenge=…").
  ClientResponse post_public(const std::string& path, FormFields fields,
                             const std::string& cookies = "") {
    fields.emplace_back("csrf", kFormToken);
    std::string header = "peto_form=" + kFormToken;
    if (!cookies.empty()) header += "; " + cookies;
    return http_request(
        port(), "POST", path, form_body(fields),
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Cookie", header}});
  }

  ClientResponse sign_in(const std::string& email, const std::string& cookies = "") {
    return post_public("/signin", {{"email", email}, {"password", kPassword}, {"next", "/board"}},
                       cookies);
  }

  ClientResponse send_code(const std::string& challenge, const std::string& code,
                           bool trust = false) {
    FormFields f = {{"code", code}, {"next", "/board"}};
    if (trust) f.emplace_back("trust", "on");
    return post_public("/signin/code", f, "peto_challenge=" + challenge);
  }

  // The code Debian's oathtool gives for `secret` (base32) at the site's
  // clock.
  std::string oathtool(const std::string& secret) {
    return peto::testing::oathtool_code(secret, clock_.now_ms() / 1000);
  }

  // Sets two-step sign-in up from the pages as `client`'s owner would: the
  // key read from the page, a first code. The key and the recovery codes.
  std::pair<std::string, std::vector<std::string>> set_up(const SignedInClient& client) {
    auto setup = client.post_form("/profile/two-factor/setup", {});
    EXPECT_EQ(setup.status, 200) << setup.body;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(setup.body, m,
                                  std::regex("id=\"two-factor-secret\">([A-Z2-7 ]+)</code>")));
    std::string secret = m.size() > 1 ? m[1].str() : "";
    secret.erase(std::remove(secret.begin(), secret.end(), ' '), secret.end());
    auto on = client.post_form("/profile/two-factor/confirm", {{"code", oathtool(secret)}});
    EXPECT_EQ(on.status, 200) << on.body;
    std::vector<std::string> codes;
    const std::regex code_re("<li><code>([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})</code></li>");
    for (std::sregex_iterator it(on.body.begin(), on.body.end(), code_re), end; it != end; ++it) {
      codes.push_back((*it)[1].str());
    }
    return {secret, codes};
  }
};

TEST_P(TwoFactorHttpTest, SetUpFromTheQrPageThenSignInWithACode) {
  auto ana = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto off = ana.get("/profile/two-factor");
  ASSERT_EQ(off.status, 200);
  EXPECT_TRUE(contains(off.body, "action=\"/profile/two-factor/setup\""));
  EXPECT_TRUE(contains(ana.get("/profile").body, "href=\"/profile/two-factor\""));

  auto setup = ana.post_form("/profile/two-factor/setup", {});
  ASSERT_EQ(setup.status, 200);
  EXPECT_EQ(setup.header("Cache-Control"), "no-store");
  EXPECT_TRUE(contains(setup.body, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"qr\""));
  EXPECT_TRUE(
      contains(setup.body, "role=\"img\" aria-label=\"QR code for your authenticator app\""));
  EXPECT_TRUE(contains(setup.body, "href=\"otpauth://totp/peto:ana%40example.com?secret="));
  auto wrong = ana.post_form("/profile/two-factor/confirm", {{"code", "12345x"}});
  EXPECT_EQ(wrong.status, 422);
  EXPECT_TRUE(contains(wrong.body, "id=\"code-error\"")) << wrong.body;
  EXPECT_TRUE(contains(wrong.body, "class=\"qr\"")) << "the same key, shown again";
  EXPECT_FALSE(site_->two_factor().on(ana.account().id));

  auto [secret, codes] = set_up(ana);
  ASSERT_EQ(codes.size(), domain::kRecoveryCodeCount);
  EXPECT_TRUE(site_->two_factor().on(ana.account().id));
  EXPECT_TRUE(contains(ana.get("/profile/two-factor").body, "10 of 10 recovery codes left"));
  EXPECT_TRUE(contains(ana.get("/profile/sessions").body, "Two-step sign-in was turned on"));

  // The password alone no longer signs in: it opens the second step.
  clock_.advance(30s);
  auto first = sign_in("ana@example.com");
  ASSERT_EQ(first.status, 303) << first.body;
  EXPECT_EQ(first.header("Location"), "/signin/code?next=/board");
  EXPECT_EQ(session_cookie_of(first), "") << "no session before the code";
  const std::string challenge = cookie_of(first, "peto_challenge");
  ASSERT_EQ(challenge.size(), 64u);
  auto form = http_request(port(), "GET", "/signin/code?next=/board", "",
                           {{"Cookie", "peto_challenge=" + challenge}});
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(contains(form.body, "autocomplete=\"one-time-code\""));
  EXPECT_EQ(http_request(port(), "GET", "/signin/code").status, 303) << "no challenge";

  auto bad = send_code(challenge, "000000" == oathtool(secret) ? "111111" : "000000");
  EXPECT_EQ(bad.status, 422);
  EXPECT_TRUE(contains(bad.body, "That code is not right")) << bad.body;
  const std::string code = oathtool(secret);
  auto good = send_code(challenge, code);
  ASSERT_EQ(good.status, 303) << good.body;
  EXPECT_EQ(good.header("Location"), "/board");
  const std::string session = session_cookie_of(good);
  ASSERT_EQ(session.size(), 64u);
  EXPECT_EQ(
      http_request(port(), "GET", "/profile", "", {{"Cookie", "peto_session=" + session}}).status,
      200);
  EXPECT_EQ(send_code(challenge, code).status, 422) << "the challenge was used";

  // The same code in a new sign-in is a replay.
  auto replay = sign_in("ana@example.com");
  EXPECT_EQ(send_code(cookie_of(replay, "peto_challenge"), code).status, 422);
}

TEST_P(TwoFactorHttpTest, RecoveryCodesAndTrustedBrowsers) {
  auto ana = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto [secret, codes] = set_up(ana);
  ASSERT_EQ(codes.size(), domain::kRecoveryCodeCount);

  auto lost_phone = sign_in("ana@example.com");
  auto in = send_code(cookie_of(lost_phone, "peto_challenge"), codes[3]);
  ASSERT_EQ(in.status, 303) << in.body;
  auto landing = http_request(port(), "GET", in.header("Location"), "",
                              {{"Cookie", "peto_session=" + session_cookie_of(in) +
                                              "; peto_flash=" + cookie_of(in, "peto_flash")}});
  EXPECT_TRUE(contains(landing.body, "You signed in with a recovery code; 9 are left"))
      << landing.body;
  auto again = sign_in("ana@example.com");
  EXPECT_EQ(send_code(cookie_of(again, "peto_challenge"), codes[3]).status, 422) << "used once";

  // "Trust this browser": the next sign-in there asks for no code.
  clock_.advance(30s);
  auto trusting = send_code(cookie_of(again, "peto_challenge"), oathtool(secret), true);
  ASSERT_EQ(trusting.status, 303);
  const std::string trusted = cookie_of(trusting, "peto_trusted");
  ASSERT_EQ(trusted.size(), 64u);
  auto direct = sign_in("ana@example.com", "peto_trusted=" + trusted);
  ASSERT_EQ(direct.status, 303);
  EXPECT_EQ(direct.header("Location"), "/board");
  EXPECT_EQ(session_cookie_of(direct).size(), 64u);
  // Another browser still is asked.
  EXPECT_EQ(sign_in("ana@example.com").header("Location"), "/signin/code?next=/board");
  // Until the person forgets the browsers they trusted.
  auto forgot = ana.post_form("/profile/two-factor/forget-browsers", {});
  ASSERT_EQ(forgot.status, 303);
  EXPECT_EQ(sign_in("ana@example.com", "peto_trusted=" + trusted).header("Location"),
            "/signin/code?next=/board");
}

TEST_P(TwoFactorHttpTest, WrongCodesRunOutAndThenTheAccountWaits) {
  auto ana = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto [secret, codes] = set_up(ana);
  const std::string wrong = oathtool(secret) == "000000" ? "111111" : "000000";
  auto first = sign_in("ana@example.com");
  const std::string challenge = cookie_of(first, "peto_challenge");
  for (int i = 1; i < domain::kChallengeTries; ++i) {
    EXPECT_EQ(send_code(challenge, wrong).status, 422) << i;
  }
  auto last = send_code(challenge, wrong);
  EXPECT_EQ(last.status, 422);
  EXPECT_TRUE(contains(last.body, "Too many wrong codes. Sign in again")) << last.body;
  EXPECT_TRUE(contains(last.body, "action=\"/signin\"")) << "back to the password";
  EXPECT_EQ(send_code(challenge, oathtool(secret)).status, 422) << "the challenge is gone";

  // Across challenges the account takes ten wrong codes a quarter-hour.
  auto second = sign_in("ana@example.com");
  const std::string more = cookie_of(second, "peto_challenge");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(send_code(more, wrong).status, 422) << i;
  auto third = sign_in("ana@example.com");
  const std::string held_challenge = cookie_of(third, "peto_challenge");
  EXPECT_EQ(send_code(held_challenge, wrong).status, 422);
  auto held = send_code(held_challenge, oathtool(secret));
  EXPECT_EQ(held.status, 429) << "even the right code waits";
  EXPECT_EQ(held.header("Retry-After"), "900");
  clock_.advance(15min);
  auto fourth = sign_in("ana@example.com");
  EXPECT_EQ(send_code(cookie_of(fourth, "peto_challenge"), oathtool(secret)).status, 303);
}

TEST_P(TwoFactorHttpTest, TurningOffAndNewCodesAskForThePassword) {
  auto ana = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto [secret, codes] = set_up(ana);
  auto refused = ana.post_form("/profile/two-factor/off", {{"off_password", "not it at all"}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_TRUE(contains(refused.body, "id=\"off_password-error\"")) << refused.body;
  EXPECT_TRUE(site_->two_factor().on(ana.account().id));

  auto renewed = ana.post_form("/profile/two-factor/codes", {{"codes_password", kPassword}});
  ASSERT_EQ(renewed.status, 200);
  EXPECT_FALSE(contains(renewed.body, codes[0])) << "new codes";
  EXPECT_TRUE(contains(renewed.body, "<ol class=\"codes\""));

  auto off = ana.post_form("/profile/two-factor/off", {{"off_password", kPassword}});
  ASSERT_EQ(off.status, 303);
  EXPECT_FALSE(site_->two_factor().on(ana.account().id));
  auto in = sign_in("ana@example.com");
  EXPECT_EQ(in.header("Location"), "/board") << "the password alone again";
}

TEST_P(TwoFactorHttpTest, ARecoveryLinkDoesNotSkipTheSecondStep) {
  auto ana = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  set_up(ana);
  const std::string token = accounts().create_recovery(ana.account().id, 0);
  const std::string next_password = "a brand new password here";
  auto used = post_public("/recover/" + token,
                          {{"password", next_password}, {"password_again", next_password}});
  ASSERT_EQ(used.status, 303) << used.body;
  auto in = post_public("/signin", {{"email", "ana@example.com"}, {"password", next_password}});
  ASSERT_EQ(in.status, 303);
  EXPECT_EQ(in.header("Location"), "/signin/code?next=/");
  EXPECT_EQ(session_cookie_of(in), "");
}

TEST_P(TwoFactorHttpTest, AnAdministratorResetsIt) {
  auto admin = SignedInClient::with_session(port(), accounts(), "admin@example.com", true);
  auto ana = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  set_up(ana);
  auto people = admin.get("/admin");
  EXPECT_TRUE(contains(people.body, "Two-step sign-in on")) << people.body;
  const std::string reset =
      "/admin/people/" + std::to_string(ana.account().id) + "/two-factor-reset";
  EXPECT_TRUE(contains(people.body, "action=\"" + reset + "\""));
  EXPECT_EQ(ana.post_form(reset, {}).status, 404) << "administrators only";
  auto done = admin.post_form(reset, {});
  ASSERT_EQ(done.status, 303);
  EXPECT_FALSE(site_->two_factor().on(ana.account().id));
  EXPECT_EQ(sign_in("ana@example.com").header("Location"), "/board");
  EXPECT_TRUE(contains(ana.get("/profile/sessions").body, "Two-step sign-in was reset"));
  EXPECT_EQ(admin
                .post_form(
                    "/admin/people/" + std::to_string(admin.account().id) + "/two-factor-reset", {})
                .status,
            404)
      << "not one's own, here";
}

PETO_BOTH_BACKENDS(TwoFactorHttpTest);

}  // namespace
}  // namespace peto::web
