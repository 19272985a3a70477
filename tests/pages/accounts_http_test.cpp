// The account pages over real HTTP: sign-in, sessions, CSRF, the sign-in rate
// limit, profile, password, invites, the admin page and security headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <regex>

#include "domain/accounts.h"
#include "domain/api_tokens.h"
#include "sync/feed.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"
#include "tests/support/web_server.h"

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
// A signed-out form's token as the tests send it: any 32 hex digits, the same
// in the `peto_form` cookie and the `csrf` field.
const std::string kFormToken(32, 'f');

class AccountsHttpTest : public peto::testing::SiteTest {
 protected:
  AccountsHttpTest() : SiteTest("1.2.3") {}

  domain::Accounts& accounts() { return site_->accounts(); }

  domain::Account make(const std::string& email, bool admin = false) {
    auto made = accounts().create(email, kPassword, admin);
    return std::get<domain::Account>(made);
  }

  // A signed-out visitor's form, with the `peto_form` cookie and the `csrf`
  // field a browser would have from the page (any token will do: the two
  // must only match); `cookie` is a session to send along.
  ClientResponse post(const std::string& path, FormFields fields, const std::string& cookie = "") {
    fields.emplace_back("csrf", kFormToken);
    std::string cookies = "peto_form=" + kFormToken;
    if (!cookie.empty()) cookies += "; peto_session=" + cookie;
    return http_request(
        port(), "POST", path, form_body(fields),
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Cookie", cookies}});
  }

  ClientResponse get(const std::string& path, const std::string& cookie = "") {
    if (cookie.empty()) return http_request(port(), "GET", path);
    return http_request(port(), "GET", path, "", {{"Cookie", "peto_session=" + cookie}});
  }

  ClientResponse sign_in(const std::string& email, const std::string& password,
                         const std::string& next = "", const std::string& cookie = "") {
    FormFields f = {{"email", email}, {"password", password}};
    if (!next.empty()) f.emplace_back("next", next);
    return post("/signin", f, cookie);
  }
};

// The one script a page may load: peto's own file, no inline code.
constexpr const char* kScriptTag = "<script src=\"/static/peto.js\" defer></script>";

std::size_t count_of(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The page a POST's answer leads to, with the message it carried.
ClientResponse landing(const SignedInClient& client, const ClientResponse& answer) {
  return client.request("GET", answer.header("Location"), "",
                        {{"Cookie", "peto_flash=" + cookie_of(answer, "peto_flash")}});
}

TEST_P(AccountsHttpTest, SignInSetsASafeCookieAndRotatesTheSession) {
  make("ana@example.com");
  auto form = get("/signin?next=/profile");
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(contains(form.body, "name=\"next\" value=\"/profile\""));
  EXPECT_TRUE(contains(form.body, "<label for=\"email\">"));
  EXPECT_TRUE(contains(form.body, "<label for=\"password\">"));

  auto r = sign_in("ANA@example.com", kPassword, "/profile");
  ASSERT_EQ(r.status, 303) << r.body;
  EXPECT_EQ(r.header("Location"), "/profile");
  std::string set = r.header("Set-Cookie");
  for (const char* part : {"Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=1209600"}) {
    EXPECT_TRUE(contains(set, part)) << set;
  }
  EXPECT_FALSE(contains(set, "Secure")) << "plain HTTP: see CookiesAreSecureOverHttpsOnly";
  std::string first = session_cookie_of(r);
  ASSERT_EQ(first.size(), 64u);
  auto page = get("/profile", first);
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.body, "ana@example.com"));
  EXPECT_EQ(page.header("Cache-Control"), "no-store");

  // Signing in again from the same browser replaces the session.
  auto again = sign_in("ana@example.com", kPassword, "", first);
  ASSERT_EQ(again.status, 303);
  EXPECT_EQ(again.header("Location"), "/");
  std::string second = session_cookie_of(again);
  EXPECT_NE(second, first);
  EXPECT_EQ(get("/profile", first).status, 303);
  EXPECT_EQ(get("/profile", second).status, 200);
}

// A browser keeps a Secure cookie only from an HTTPS page: opened as
// http://peto.lan:8080 (a NAS at home), a Secure session cookie would be
// dropped and sign-in would lead back to the empty form. Secure follows the
// scheme the browser uses; a password about to cross the network in clear is
// warned of on the page that asks for it.
TEST_P(AccountsHttpTest, CookiesAreSecureOverHttpsOnly) {
  make("ana@example.com");
  auto sign_in_at = [&](std::uint16_t at, const std::string& host,
                        std::vector<std::pair<std::string, std::string>> headers = {}) {
    headers.emplace_back("Host", host);
    headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    headers.emplace_back("Cookie", "peto_form=" + kFormToken);
    return http_request(
        at, "POST", "/signin",
        form_body({{"email", "ana@example.com"}, {"password", kPassword}, {"csrf", kFormToken}}),
        headers);
  };
  auto lan = sign_in_at(port(), "peto.lan:8080");
  ASSERT_EQ(lan.status, 303) << lan.body;
  EXPECT_FALSE(contains(lan.header("Set-Cookie"), "Secure")) << lan.header("Set-Cookie");
  EXPECT_EQ(get("/profile", session_cookie_of(lan)).status, 200);

  // PETO_PUBLIC_URL names the HTTPS address people use; the LAN name stays plain.
  config_.public_url = "https://jobs.example.com";
  auto public_name = sign_in_at(port(), "Jobs.Example.com");
  ASSERT_EQ(public_name.status, 303);
  EXPECT_TRUE(contains(public_name.header("Set-Cookie"), "; Secure")) << "by PETO_PUBLIC_URL";
  EXPECT_FALSE(contains(sign_in_at(port(), "peto.lan:8080").header("Set-Cookie"), "Secure"));
  config_.public_url.clear();

  // Behind a trusted proxy that terminates TLS, its X-Forwarded-Proto says so;
  // nobody else's does.
  Server::Options trusting;
  trusting.trusted_proxies = *AddressSet::parse("127.0.0.1");
  peto::testing::WebServer proxied(router_, trusting);
  auto via_proxy = sign_in_at(proxied.port(), "peto.lan", {{"X-Forwarded-Proto", "https"}});
  EXPECT_TRUE(contains(via_proxy.header("Set-Cookie"), "; Secure")) << "through TLS at the proxy";
  auto forged = sign_in_at(port(), "peto.lan", {{"X-Forwarded-Proto", "https"}});
  EXPECT_FALSE(contains(forged.header("Set-Cookie"), "Secure")) << "an untrusted peer's word";

  // The warning: plain HTTP to another machine, not to loopback nor over TLS.
  auto page_at = [&](std::uint16_t at, const std::string& host, const std::string& path,
                     std::vector<std::pair<std::string, std::string>> headers = {}) {
    headers.emplace_back("Host", host);
    return http_request(at, "GET", path, "", headers).body;
  };
  EXPECT_TRUE(contains(page_at(port(), "peto.lan:8080", "/signin"), "id=\"clear-warning\""));
  EXPECT_TRUE(
      contains(page_at(port(), "peto.lan:8080", "/signin"), "peto.lan:8080 is not encrypted"));
  for (const char* loopback : {"127.0.0.1:8080", "localhost:8080", "[::1]:8080"})
    EXPECT_FALSE(contains(page_at(port(), loopback, "/signin"), "clear-warning")) << loopback;
  EXPECT_FALSE(
      contains(page_at(proxied.port(), "peto.lan", "/signin", {{"X-Forwarded-Proto", "https"}}),
               "clear-warning"));
  const std::string invite = accounts().create_invite(make("root@example.com", true).id, "");
  EXPECT_TRUE(contains(page_at(port(), "peto.lan:8080", "/invite/" + invite), "clear-warning"));
}

TEST_P(AccountsHttpTest, FollowsOnlyLocalNextPaths) {
  make("ana@example.com");
  for (const char* evil : {"//evil.example/", "https://evil.example/", "/\\evil.example",
                           "javascript:alert(1)", "/\t/evil.example"}) {
    auto r = sign_in("ana@example.com", kPassword, evil);
    ASSERT_EQ(r.status, 303);
    EXPECT_EQ(r.header("Location"), "/") << evil;
  }
}

// Login CSRF: another site cannot post the sign-in or invitation form in the
// visitor's browser, because it cannot read the page's token nor set the
// `peto_form` cookie that must match it.
TEST_P(AccountsHttpTest, SignedOutFormsNeedTheTokenOfTheirPage) {
  make("ana@example.com");
  auto page = get("/signin");
  const std::string cookie = peto::testing::cookie_of(page, "peto_form");
  ASSERT_EQ(cookie.size(), 32u);
  EXPECT_TRUE(contains(page.body, "name=\"csrf\" value=\"" + cookie + "\""));
  std::string set_cookie;
  for (const auto& [name, value] : page.headers)
    if (value.starts_with("peto_form=")) set_cookie = value;
  for (const char* part : {"Path=/", "HttpOnly", "SameSite=Lax"})
    EXPECT_TRUE(contains(set_cookie, part)) << set_cookie;

  const std::string form = form_body({{"email", "ana@example.com"}, {"password", kPassword}});
  auto no_token = http_request(port(), "POST", "/signin", form,
                               {{"Content-Type", "application/x-www-form-urlencoded"}});
  auto no_cookie = http_request(port(), "POST", "/signin", form + "&csrf=" + cookie,
                                {{"Content-Type", "application/x-www-form-urlencoded"}});
  auto other = http_request(
      port(), "POST", "/signin", form + "&csrf=" + std::string(32, '0'),
      {{"Content-Type", "application/x-www-form-urlencoded"}, {"Cookie", "peto_form=" + cookie}});
  for (const auto* r : {&no_token, &no_cookie, &other}) {
    EXPECT_EQ(r->status, 403);
    EXPECT_TRUE(contains(r->body, "The form has expired"));
    EXPECT_EQ(session_cookie_of(*r), "") << "nobody was signed in";
  }
  auto matching = http_request(
      port(), "POST", "/signin", form + "&csrf=" + cookie,
      {{"Content-Type", "application/x-www-form-urlencoded"}, {"Cookie", "peto_form=" + cookie}});
  EXPECT_EQ(matching.status, 303);

  SignedInClient admin = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  std::smatch m;
  auto created = admin.post_form("/admin/invites", {{"email", ""}});
  const std::string body = created.body;
  ASSERT_TRUE(std::regex_search(body, m, std::regex("/invite/([0-9a-f]{64})")));
  auto forged = http_request(port(), "POST", m[0],
                             "email=bo%40example.com&password=a+long+enough+password"
                             "&password_again=a+long+enough+password",
                             {{"Content-Type", "application/x-www-form-urlencoded"}});
  EXPECT_EQ(forged.status, 403);
  EXPECT_FALSE(accounts().find_by_email("bo@example.com")) << "no account was made";
}

TEST_P(AccountsHttpTest, WrongPasswordShowsTheFormAgain) {
  make("ana@example.com");
  auto r = sign_in("ana@example.com", "not my password at all");
  EXPECT_EQ(r.status, 422);
  EXPECT_FALSE(r.has_header("Set-Cookie"));
  EXPECT_TRUE(contains(r.body, "do not match an account"));
  EXPECT_TRUE(contains(r.body, "value=\"ana@example.com\""));
  EXPECT_FALSE(contains(r.body, "not my password at all"));
  EXPECT_TRUE(contains(r.body, "aria-invalid=\"true\""));
  auto unknown = sign_in("nobody@example.com", kPassword);
  EXPECT_EQ(unknown.status, 422);
  EXPECT_TRUE(contains(unknown.body, "do not match an account"));
}

TEST_P(AccountsHttpTest, SignedOutVisitorsAreSentToSignIn) {
  auto r = get("/profile?x=1");
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.header("Location"), "/signin?next=/profile%3Fx%3D1");
  EXPECT_EQ(get("/profile", "made-up-token").status, 303);
  auto post_r = post("/profile", {{"time_zone", "UTC"}});
  EXPECT_EQ(post_r.status, 303);
}

TEST_P(AccountsHttpTest, SessionsExpireAfterFourteenDays) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  clock_.advance(std::chrono::hours(14 * 24));
  EXPECT_EQ(ana.get("/profile").status, 303);
}

TEST_P(AccountsHttpTest, UnsafeRequestsNeedTheCsrfToken) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  std::string body = form_body({{"language", "fr"},
                                {"time_zone", "Europe/Lisbon"},
                                {"quiet_after_days", "30"},
                                {"closing_notice_days", "5"},
                                {"follow_up_days", "7"}});
  const std::vector<std::pair<std::string, std::string>> form = {
      {"Content-Type", "application/x-www-form-urlencoded"}};
  auto missing = ana.request("POST", "/profile", body, form);
  EXPECT_EQ(missing.status, 403);
  EXPECT_TRUE(contains(missing.body, "The form has expired; go back, reload and try again."));
  auto wrong = ana.request("POST", "/profile", body + "&csrf=" + std::string(64, 'a'), form);
  EXPECT_EQ(wrong.status, 403);
  auto other_session = accounts().open_session(ana.account().id);
  auto foreign = ana.request("POST", "/profile", body + "&csrf=" + other_session.csrf_token, form);
  EXPECT_EQ(foreign.status, 403);
  EXPECT_EQ(accounts().find(ana.account().id)->time_zone, "UTC") << "nothing changed";
  auto signout = ana.request("POST", "/signout");
  EXPECT_EQ(signout.status, 403);
  EXPECT_EQ(ana.get("/profile").status, 200) << "still signed in";

  auto with_header = ana.request(
      "POST", "/profile", body,
      {{"Content-Type", "application/x-www-form-urlencoded"}, {"X-CSRF-Token", ana.csrf()}});
  EXPECT_EQ(with_header.status, 303);
  EXPECT_EQ(accounts().find(ana.account().id)->time_zone, "Europe/Lisbon");
}

TEST_P(AccountsHttpTest, TheEleventhSignInAfterTenFailuresInAMinuteIsRefused) {
  make("ana@example.com");
  clock_.set(1'800'000'000'000 - 1'800'000'000'000 % 60000 + 1000);  // early in a minute
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(sign_in("ana@example.com", "wrong password " + std::to_string(i)).status, 422);
  }
  auto refused = sign_in("ana@example.com", kPassword);
  EXPECT_EQ(refused.status, 429);
  EXPECT_FALSE(refused.has_header("Set-Cookie"));
  EXPECT_TRUE(contains(refused.body, "Too many sign-in attempts. Wait a minute and try again."));
  EXPECT_EQ(refused.header("Retry-After"), "59");
  clock_.advance(60s);
  auto ok = sign_in("ana@example.com", kPassword);
  EXPECT_EQ(ok.status, 303);
}

TEST_P(AccountsHttpTest, SignInIsAlsoLimitedPerAccount) {
  make("ana@example.com");
  clock_.set(1'800'000'000'000 - 1'800'000'000'000 % 60000 + 1000);
  // Each attempt from another address: only the account's counter stops them.
  auto attempt = [&](int i, const std::string& email) {
    Request r;
    r.method = "POST";
    EXPECT_TRUE(r.set_target("/signin"));
    r.remote_address = "192.0.2." + std::to_string(i);
    r.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                 {"Cookie", "peto_form=" + kFormToken}};
    r.body = form_body({{"email", email},
                        {"password", "wrong password " + std::to_string(i)},
                        {"csrf", kFormToken}});
    return router_.dispatch(r).status;
  };
  for (int i = 1; i <= 10; ++i) EXPECT_EQ(attempt(i, "ANA@example.com"), 422);
  EXPECT_EQ(attempt(11, "ana@example.com"), 429);
  EXPECT_EQ(attempt(12, "bo@example.com"), 422) << "other accounts are not held up";
}

// Only failures count: the owner signing in again and again is never held up.
TEST_P(AccountsHttpTest, SuccessfulSignInsDoNotCountAgainstTheLimit) {
  make("ana@example.com");
  clock_.set(1'800'000'000'000 - 1'800'000'000'000 % 60000 + 1000);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(sign_in("ana@example.com", kPassword).status, 303) << i;
}

// Someone guessing ana's password from many addresses holds up every browser
// that has not signed in to her account before, but not ana's own: the
// browser she signed in with carries a cookie that still reaches the check.
TEST_P(AccountsHttpTest, TheOwnersBrowserGetsInWhileSomeoneGuessesElsewhere) {
  make("ana@example.com");
  clock_.set(1'800'000'000'000 - 1'800'000'000'000 % 60000 + 1000);
  auto attempt = [&](const std::string& address, const std::string& password,
                     const std::string& cookie = "") {
    Request r;
    r.method = "POST";
    EXPECT_TRUE(r.set_target("/signin"));
    r.remote_address = address;
    r.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                 {"Cookie", "peto_form=" + kFormToken + (cookie.empty() ? "" : "; " + cookie)}};
    r.body =
        form_body({{"email", "ana@example.com"}, {"password", password}, {"csrf", kFormToken}});
    return router_.dispatch(r);
  };
  Response first = attempt("198.51.100.7", kPassword);
  ASSERT_EQ(first.status, 303);
  std::string set_known;
  for (const auto& [name, value] : first.headers)
    if (name == "Set-Cookie" && value.starts_with("peto_known=")) set_known = value;
  ASSERT_FALSE(set_known.empty()) << "the browser is remembered";
  for (const char* part : {"HttpOnly", "SameSite=Lax", "Max-Age=31536000"})
    EXPECT_TRUE(contains(set_known, part)) << part;
  const std::string known = set_known.substr(0, set_known.find(';'));

  clock_.advance(60s);
  for (int i = 1; i <= 10; ++i)
    EXPECT_EQ(attempt("192.0.2." + std::to_string(i), "guess " + std::to_string(i)).status, 422);
  EXPECT_EQ(attempt("192.0.2.11", kPassword).status, 429) << "a stranger's browser waits";
  EXPECT_EQ(attempt("198.51.100.8", kPassword).status, 429) << "so does any new browser";
  EXPECT_EQ(attempt("198.51.100.7", kPassword, known).status, 303) << "ana's browser gets in";
  EXPECT_EQ(attempt("198.51.100.9", "wrong", known).status, 422) << "and is still checked";
  EXPECT_EQ(attempt("198.51.100.7", kPassword, "peto_known=" + std::string(32, 'a')).status, 429)
      << "a made-up cookie is no key";
}

TEST_P(AccountsHttpTest, SignOutEndsTheSession) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  auto r = ana.post_form("/signout", {});
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.header("Location"), "/signin");
  EXPECT_TRUE(contains(r.header("Set-Cookie"), "Max-Age=0"));
  EXPECT_EQ(ana.get("/profile").status, 303);
}

TEST_P(AccountsHttpTest, ProfileShowsEveryErrorAndSavesNothing) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  auto page = ana.get("/profile");
  ASSERT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.body, "href=\"/profile\" aria-current=\"page\">"));
  EXPECT_TRUE(contains(page.body, "value=\"UTC\""));
  EXPECT_TRUE(contains(page.body, "<option value=\"fr\">Français</option>"));

  auto bad = ana.post_form("/profile", {{"language", "xx"},
                                        {"time_zone", "Mars/Base"},
                                        {"quiet_after_days", "0"},
                                        {"closing_notice_days", "abc"},
                                        {"follow_up_days", "91"},
                                        {"remind_closing", "on"}});
  EXPECT_EQ(bad.status, 422);
  for (const char* text :
       {"Choose a language from the list.", "Enter a time zone name such as Europe/Lisbon.",
        "Enter a whole number from 1 to 365.", "Enter a whole number from 1 to 90.",
        "Enter a whole number from 0 to 90.", "aria-describedby=\"language-error\"",
        "id=\"time_zone-error\"", "value=\"Mars/Base\"", "value=\"abc\"", "value=\"91\"",
        "id=\"remind_closing\" name=\"remind_closing\" type=\"checkbox\" checked"}) {
    EXPECT_TRUE(contains(bad.body, text)) << text;
  }
  EXPECT_FALSE(contains(bad.body, "name=\"remind_interviews\" type=\"checkbox\" checked"))
      << "the boxes as they were sent, not as saved";
  std::regex invalid("aria-invalid=\"true\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(bad.body.begin(), bad.body.end(), invalid),
                          std::sregex_iterator()),
            5);
  auto saved = accounts().find(ana.account().id);
  EXPECT_EQ(saved->time_zone, "UTC");
  EXPECT_EQ(saved->quiet_after_days, 21);

  // One bad field is enough to save nothing.
  auto one_bad = ana.post_form("/profile", {{"language", "fr"},
                                            {"time_zone", "Europe/Lisbon"},
                                            {"quiet_after_days", "30"},
                                            {"closing_notice_days", "91"}});
  EXPECT_EQ(one_bad.status, 422);
  EXPECT_EQ(accounts().find(ana.account().id)->time_zone, "UTC");

  auto good = ana.post_form("/profile", {{"language", "fr"},
                                         {"time_zone", "Europe/Lisbon"},
                                         {"quiet_after_days", "30"},
                                         {"closing_notice_days", "5"},
                                         {"follow_up_days", "10"},
                                         {"remind_interviews", "on"}});
  EXPECT_EQ(good.status, 303);
  EXPECT_EQ(good.header("Location"), "/profile?saved=profile");
  saved = accounts().find(ana.account().id);
  EXPECT_EQ(saved->language, "fr");
  EXPECT_EQ(saved->time_zone, "Europe/Lisbon");
  EXPECT_EQ(saved->quiet_after_days, 30);
  EXPECT_EQ(saved->closing_notice_days, 5);
  EXPECT_EQ(saved->reminders.follow_up_days, 10);
  EXPECT_TRUE(saved->reminders.interviews);
  EXPECT_FALSE(saved->reminders.answer_by) << "a box not ticked is a reminder not wanted";
  EXPECT_FALSE(saved->reminders.closing);
  // The profile's language wins over the browser's.
  auto french = ana.request("GET", "/profile?saved=profile", "", {{"Accept-Language", "en"}});
  EXPECT_TRUE(contains(french.body, "<html lang=\"fr\">"));
  EXPECT_TRUE(contains(french.body, "Votre profil est enregistré."));
  EXPECT_TRUE(contains(french.body, "Se déconnecter"));
}

// Until a person chooses a time zone, the first sign-in takes the browser's
// (the script puts it in the form) and says so; a typed city finds its zone.
TEST_P(AccountsHttpTest, TheTimeZoneComesFromTheBrowserUntilOneIsChosen) {
  const auto ana = make("ana@example.com");
  auto first =
      post("/signin",
           {{"email", "ana@example.com"}, {"password", kPassword}, {"time_zone", "Europe/Berlin"}});
  ASSERT_EQ(first.status, 303);
  EXPECT_EQ(accounts().find(ana.id)->time_zone, "Europe/Berlin");
  EXPECT_TRUE(contains(cookie_of(first, "peto_flash"), "Europe/Berlin"))
      << "the next page says where the time zone came from";
  auto elsewhere = post(
      "/signin",
      {{"email", "ana@example.com"}, {"password", kPassword}, {"time_zone", "America/New_York"}});
  ASSERT_EQ(elsewhere.status, 303);
  EXPECT_EQ(accounts().find(ana.id)->time_zone, "Europe/Berlin") << "set once, then it is theirs";
  EXPECT_TRUE(cookie_of(elsewhere, "peto_flash").empty());

  SignedInClient client = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto page = client.get("/profile");
  EXPECT_TRUE(contains(page.body, "<select id=\"time_zone\" name=\"time_zone\""));
  EXPECT_TRUE(contains(page.body, "<option value=\"Europe/Berlin\" selected>Berlin</option>"));
  auto typed = client.post_form("/profile", {{"language", ""},
                                             {"time_zone", "lisbon"},
                                             {"quiet_after_days", "21"},
                                             {"closing_notice_days", "3"},
                                             {"follow_up_days", "7"}});
  EXPECT_EQ(typed.status, 303) << typed.body;
  EXPECT_EQ(accounts().find(ana.id)->time_zone, "Europe/Lisbon");
}

TEST_P(AccountsHttpTest, ChangesThePassword) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  auto wrong = ana.post_form("/profile/password", {{"current", "not the password"},
                                                   {"new", "a brand new password"},
                                                   {"new_again", "a brand new password"}});
  EXPECT_EQ(wrong.status, 422);
  EXPECT_TRUE(contains(wrong.body, "That is not your current password."));
  auto differ = ana.post_form("/profile/password", {{"current", kPassword},
                                                    {"new", "a brand new password"},
                                                    {"new_again", "a brand new passwort"}});
  EXPECT_EQ(differ.status, 422);
  EXPECT_TRUE(contains(differ.body, "The two passwords differ"));
  auto short_pw = ana.post_form("/profile/password",
                                {{"current", kPassword}, {"new", "short"}, {"new_again", "short"}});
  EXPECT_EQ(short_pw.status, 422);
  EXPECT_TRUE(contains(short_pw.body, "Use at least 12 characters."));
  EXPECT_FALSE(contains(short_pw.body, "value=\"short\""));

  auto ok = ana.post_form("/profile/password", {{"current", kPassword},
                                                {"new", "a brand new password"},
                                                {"new_again", "a brand new password"}});
  EXPECT_EQ(ok.status, 303);
  EXPECT_EQ(sign_in("ana@example.com", kPassword).status, 422);
  EXPECT_EQ(sign_in("ana@example.com", "a brand new password").status, 303);
}

TEST_P(AccountsHttpTest, AChangedPasswordEndsTheTokensAndTheFeedUnlessTheyAreKept) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  const std::int64_t id = ana.account().id;
  domain::ApiTokens tokens(db(), clock_);
  sync::CalendarFeeds feeds(db(), clock_);
  auto token = [&] {
    return std::get<domain::NewToken>(tokens.create(id, "Phone", {"read"})).secret;
  };
  std::string kept_token = token();
  std::string kept_feed = feeds.create(id);

  auto form = ana.get("/profile/password");
  EXPECT_TRUE(contains(form.body,
                       "name=\"end_keys\" type=\"checkbox\" "
                       "aria-describedby=\"end_keys-hint\" checked"))
      << "ticked at first";
  // Unticked and refused: shown unticked, nothing ended.
  auto refused = ana.post_form("/profile/password", {{"current", "not the password"},
                                                     {"new", "a brand new password"},
                                                     {"new_again", "a brand new password"}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_FALSE(contains(refused.body, "aria-describedby=\"end_keys-hint\" checked"));
  EXPECT_TRUE(tokens.authenticate(kept_token));

  // Kept: the token and the feed still work.
  auto kept = ana.post_form("/profile/password", {{"current", kPassword},
                                                  {"new", "a brand new password"},
                                                  {"new_again", "a brand new password"}});
  ASSERT_EQ(kept.status, 303);
  EXPECT_EQ(kept.header("Location"), "/profile?saved=password");
  EXPECT_TRUE(tokens.authenticate(kept_token));
  EXPECT_EQ(feeds.owner_of(kept_feed), id);

  // Ended (the box as it comes): neither works any more.
  auto ended = ana.post_form("/profile/password", {{"current", "a brand new password"},
                                                   {"new", "another new password"},
                                                   {"new_again", "another new password"},
                                                   {"end_keys", "on"}});
  ASSERT_EQ(ended.status, 303);
  EXPECT_EQ(ended.header("Location"), "/profile?saved=password_keys");
  EXPECT_FALSE(tokens.authenticate(kept_token));
  EXPECT_FALSE(feeds.owner_of(kept_feed));
  EXPECT_TRUE(contains(ana.get("/profile?saved=password_keys").body,
                       "Your API tokens and calendar feed address are ended"));
}

TEST_P(AccountsHttpTest, InviteFlow) {
  SignedInClient admin(port(), accounts(), "admin@example.com");
  ASSERT_TRUE(admin.account().is_admin);
  EXPECT_EQ(admin.get("/admin/invites").status, 200);
  auto created = admin.post_form("/admin/invites", {{"email", ""}});
  ASSERT_EQ(created.status, 200);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(created.body, m, std::regex("/invite/([0-9a-f]{64})")));
  std::string path = m[0];

  auto form = get(path);
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(contains(form.body, "name=\"password_again\""));
  auto mismatch = post(path, {{"email", "bo@example.com"},
                              {"password", kPassword},
                              {"password_again", "something else entirely"}});
  EXPECT_EQ(mismatch.status, 422);
  EXPECT_TRUE(contains(mismatch.body, "The two passwords differ"));
  EXPECT_TRUE(contains(mismatch.body, "value=\"bo@example.com\""));

  auto done = post(
      path, {{"email", "bo@example.com"}, {"password", kPassword}, {"password_again", kPassword}});
  ASSERT_EQ(done.status, 303) << done.body;
  std::string cookie = session_cookie_of(done);
  auto home = get("/profile", cookie);
  EXPECT_EQ(home.status, 200);
  EXPECT_TRUE(contains(home.body, "bo@example.com"));
  EXPECT_FALSE(accounts().find_by_email("bo@example.com")->is_admin);

  EXPECT_EQ(get(path).status, 404) << "an invite works once";
  EXPECT_EQ(
      post(path,
           {{"email", "cy@example.com"}, {"password", kPassword}, {"password_again", kPassword}})
          .status,
      404);
  EXPECT_EQ(get("/invite/" + std::string(64, '0')).status, 404);

  // A bound invite, used late.
  auto bound = admin.post_form("/admin/invites", {{"email", "cy@example.com"}});
  ASSERT_TRUE(std::regex_search(bound.body, m, std::regex("/invite/([0-9a-f]{64})")));
  std::string bound_path = m[0];
  auto other =
      post(bound_path,
           {{"email", "eve@example.com"}, {"password", kPassword}, {"password_again", kPassword}});
  EXPECT_EQ(other.status, 422);
  EXPECT_TRUE(contains(other.body, "This invite is for a different e-mail address."));
  auto bad_email = admin.post_form("/admin/invites", {{"email", "not an address"}});
  EXPECT_EQ(bad_email.status, 422);
  EXPECT_TRUE(contains(bad_email.body, "Enter an e-mail address such as name@example.com."));
  clock_.advance(std::chrono::hours(14 * 24));
  EXPECT_EQ(get(bound_path).status, 404);
}

TEST_P(AccountsHttpTest, TheAdminPageIsNotFoundForOthers) {
  make("admin@example.com");
  SignedInClient bo(port(), accounts(), "bo@example.com");
  ASSERT_FALSE(bo.account().is_admin);
  auto page = bo.get("/admin/invites");
  EXPECT_EQ(page.status, 404);
  EXPECT_TRUE(contains(page.body, "Page not found"));
  EXPECT_EQ(bo.post_form("/admin/invites", {{"email", ""}}).status, 404);
  EXPECT_EQ(count("invites"), 0);
  EXPECT_FALSE(contains(bo.get("/profile").body, "href=\"/admin\""));
  EXPECT_EQ(bo.get("/admin").status, 404);
  auto admin = accounts().find_by_email("admin@example.com");
  EXPECT_EQ(bo.post_form("/admin/people/" + std::to_string(admin->id) + "/deactivate", {}).status,
            404);
  EXPECT_EQ(bo.post_form("/admin/people/" + std::to_string(admin->id) + "/recovery", {}).status,
            404);
  EXPECT_TRUE(accounts().find(admin->id)->active);
}

TEST_P(AccountsHttpTest, AnAdministratorsRecoveryLinkSetsANewPasswordOnce) {
  SignedInClient admin(port(), accounts(), "admin@example.com");
  SignedInClient ana(port(), accounts(), "ana@example.com");
  const std::int64_t id = ana.account().id;
  domain::ApiTokens tokens(db(), clock_);
  std::string secret = std::get<domain::NewToken>(tokens.create(id, "Phone", {"read"})).secret;

  auto people = admin.get("/admin");
  ASSERT_EQ(people.status, 200);
  EXPECT_TRUE(contains(people.body, "ana@example.com"));
  EXPECT_TRUE(contains(people.body, "/admin/people/" + std::to_string(id) + "/recovery"));
  EXPECT_FALSE(
      contains(people.body, "/admin/people/" + std::to_string(admin.account().id) + "/deactivate"))
      << "not for oneself";
  EXPECT_EQ(
      admin.post_form("/admin/people/" + std::to_string(admin.account().id) + "/deactivate", {})
          .status,
      404);
  EXPECT_TRUE(admin.account().active);

  auto made = admin.post_form("/admin/people/" + std::to_string(id) + "/recovery", {});
  ASSERT_EQ(made.status, 200);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(made.body, m, std::regex("/recover/([0-9a-f]{64})")));
  const std::string path = m[0];
  EXPECT_EQ(made.header("Cache-Control"), "no-store");

  auto form = get(path);
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(contains(form.body, "ana@example.com"));
  EXPECT_EQ(form.header("Referrer-Policy"), "no-referrer");
  auto mismatch =
      post(path, {{"password", "a recovered password"}, {"password_again", "something else"}});
  EXPECT_EQ(mismatch.status, 422);
  EXPECT_TRUE(contains(mismatch.body, "The two passwords differ"));
  auto short_pw = post(path, {{"password", "short"}, {"password_again", "short"}});
  EXPECT_EQ(short_pw.status, 422);
  EXPECT_TRUE(contains(short_pw.body, "Use at least 12 characters."));

  // Keys kept (the box unticked): the token still works; every session ended.
  auto done = post(
      path, {{"password", "a recovered password"}, {"password_again", "a recovered password"}});
  ASSERT_EQ(done.status, 303) << done.body;
  EXPECT_EQ(done.header("Location"), "/signin?recovered=password");
  EXPECT_TRUE(contains(get("/signin?recovered=password").body, "Your new password is set"));
  EXPECT_EQ(ana.get("/profile").status, 303) << "signed out";
  EXPECT_TRUE(tokens.authenticate(secret));
  EXPECT_EQ(sign_in("ana@example.com", "a recovered password").status, 303);

  auto again = get(path);
  EXPECT_EQ(again.status, 404) << "once";
  EXPECT_TRUE(contains(again.body, "This recovery link cannot be used"));
  EXPECT_EQ(post(path, {{"password", "one more password"}, {"password_again", "one more password"}})
                .status,
            404);

  // A second link, with the keys ended.
  made = admin.post_form("/admin/people/" + std::to_string(id) + "/recovery", {});
  ASSERT_TRUE(std::regex_search(made.body, m, std::regex("/recover/([0-9a-f]{64})")));
  auto ended = post(m[0], {{"password", "one more password"},
                           {"password_again", "one more password"},
                           {"end_keys", "on"}});
  ASSERT_EQ(ended.status, 303);
  EXPECT_EQ(ended.header("Location"), "/signin?recovered=keys");
  EXPECT_FALSE(tokens.authenticate(secret));

  // A link an hour old is refused.
  made = admin.post_form("/admin/people/" + std::to_string(id) + "/recovery", {});
  ASSERT_TRUE(std::regex_search(made.body, m, std::regex("/recover/([0-9a-f]{64})")));
  clock_.advance(std::chrono::minutes(61));
  EXPECT_EQ(get(m[0]).status, 404);
}

TEST_P(AccountsHttpTest, AskingForALinkByMailSaysTheSameWhetherOrNotTheAccountExists) {
  make("ana@example.com");
  auto without = get("/signin/forgot");
  EXPECT_EQ(without.status, 200);
  EXPECT_TRUE(contains(without.body, "cannot send e-mail")) << "no SMTP: ask the administrator";
  EXPECT_FALSE(contains(without.body, "action=\"/signin/forgot\""));
  EXPECT_TRUE(contains(get("/signin").body, "href=\"/signin/forgot\""));

  config_.smtp_url = "smtp://127.0.0.1:25";
  EXPECT_TRUE(contains(get("/signin/forgot").body, "action=\"/signin/forgot\""));
  auto known = post("/signin/forgot", {{"email", "ana@example.com"}});
  auto unknown = post("/signin/forgot", {{"email", "nobody@example.com"}});
  EXPECT_EQ(known.status, 200);
  EXPECT_EQ(unknown.status, known.status);
  auto words = [](const std::string& body) {
    return body.substr(body.find("<main"), body.find("</main>") - body.find("<main"));
  };
  EXPECT_EQ(words(unknown.body), words(known.body)) << "the same answer";
  EXPECT_TRUE(contains(known.body, "If an account has that address"));
  EXPECT_EQ(count("tasks WHERE kind = 'recovery_mail'"), 2) << "the same work for both";
  EXPECT_EQ(count("recovery_links"), 0) << "the worker makes the link, not the page";

  auto bad = post("/signin/forgot", {{"email", "not an address"}});
  EXPECT_EQ(bad.status, 422);
  EXPECT_TRUE(contains(bad.body, "Enter an e-mail address"));

  // Three an hour for one address, whether or not it has an account.
  EXPECT_EQ(post("/signin/forgot", {{"email", "nobody@example.com"}}).status, 200);
  EXPECT_EQ(post("/signin/forgot", {{"email", "nobody@example.com"}}).status, 200);
  auto held = post("/signin/forgot", {{"email", "nobody@example.com"}});
  EXPECT_EQ(held.status, 429);
  EXPECT_EQ(held.header("Retry-After"), "900");
  EXPECT_EQ(count("tasks WHERE kind = 'recovery_mail'"), 4);

  // And in the same time, within noise: the medians of 9 of each, taken in
  // turns (each hour anew, so the limits stay out of it).
  std::vector<double> known_ms, unknown_ms;
  for (int i = 0; i < 9; ++i) {
    clock_.advance(std::chrono::hours(1));
    using Turn = std::pair<const char*, std::vector<double>*>;
    for (const auto& [address, into] :
         {Turn{"ana@example.com", &known_ms}, Turn{"nobody@example.com", &unknown_ms}}) {
      const auto start = std::chrono::steady_clock::now();
      EXPECT_EQ(post("/signin/forgot", {{"email", address}}).status, 200);
      into->push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
  }
  std::sort(known_ms.begin(), known_ms.end());
  std::sort(unknown_ms.begin(), unknown_ms.end());
  const double a = known_ms[4], b = unknown_ms[4];
  EXPECT_LT(std::abs(a - b), std::max(5.0, 0.5 * std::max(a, b)))
      << "median " << a << " ms for an account, " << b << " ms for none";
}

TEST_P(AccountsHttpTest, AnAdministratorDeactivatesAndActivatesSomeone) {
  SignedInClient admin(port(), accounts(), "admin@example.com");
  SignedInClient ana(port(), accounts(), "ana@example.com");
  const std::string base = "/admin/people/" + std::to_string(ana.account().id);
  auto off = admin.post_form(base + "/deactivate", {});
  ASSERT_EQ(off.status, 303);
  EXPECT_TRUE(contains(landing(admin, off).body, "ana@example.com is deactivated"));
  EXPECT_EQ(ana.get("/profile").status, 303) << "signed out";
  EXPECT_EQ(sign_in("ana@example.com", kPassword).status, 422);
  auto people = admin.get("/admin").body;
  EXPECT_TRUE(contains(people, base + "/activate"));
  EXPECT_FALSE(contains(people, base + "/recovery")) << "no link for an inactive account";
  EXPECT_EQ(admin.post_form(base + "/activate", {}).status, 303);
  EXPECT_EQ(sign_in("ana@example.com", kPassword).status, 303);
  EXPECT_EQ(admin.post_form("/admin/people/99999/activate", {}).status, 404);
  EXPECT_EQ(admin.post_form("/admin/people/x/activate", {}).status, 404);
}

TEST_P(AccountsHttpTest, ABrowserIsNamedAsAPersonKnowsIt) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  const std::int64_t id = ana.account().id;
  accounts().open_session(id, {"192.0.2.9",
                               "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
                               "(KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0"});
  accounts().open_session(id,
                          {"192.0.2.10",
                           "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) "
                           "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 "
                           "Safari/604.1"});
  accounts().open_session(id, {"192.0.2.11", "a <b>strange</b> client"});
  auto page = ana.get("/profile/sessions").body;
  EXPECT_TRUE(contains(page, "Edge · Windows")) << page;
  EXPECT_TRUE(contains(page, "Safari · iOS")) << page;
  EXPECT_TRUE(contains(page, "Unknown browser")) << page;
  EXPECT_FALSE(contains(page, "<b>strange")) << "nothing of the header is written as HTML";
}

TEST_P(AccountsHttpTest, ThePersonSeesTheirBrowsersAndSignsOthersOut) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  auto phone = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto tablet = SignedInClient::with_session(port(), accounts(), "ana@example.com");
  auto page = ana.get("/profile/sessions");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(count_of(page.body, "name=\"session\""), 2u) << "not the current browser";
  EXPECT_TRUE(contains(page.body, "This browser"));
  EXPECT_TRUE(contains(page.body, "127.0.0.1")) << "the address of the sign-in";
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(page.body, m, std::regex("name=\"session\" value=\"([0-9a-f]{24})\"")));
  ASSERT_EQ(ana.post_form("/profile/sessions/end", {{"session", m[1]}}).status, 303);
  EXPECT_EQ(phone.get("/profile").status + tablet.get("/profile").status, 200 + 303)
      << "one of the two ended";
  auto gone = ana.post_form("/profile/sessions/end", {{"session", m[1]}});
  EXPECT_EQ(gone.status, 303);
  EXPECT_TRUE(contains(landing(ana, gone).body, "signed out already"));

  ASSERT_EQ(ana.post_form("/profile/sessions/end-others", {}).status, 303);
  EXPECT_EQ(phone.get("/profile").status, 303);
  EXPECT_EQ(tablet.get("/profile").status, 303);
  auto after = ana.get("/profile/sessions");
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(count_of(after.body, "name=\"session\""), 0u);
  EXPECT_FALSE(contains(after.body, "/profile/sessions/end-others"));
}

TEST_P(AccountsHttpTest, TheOnlyAdministratorCanNeitherDeactivateNorDeleteThemself) {
  SignedInClient root(port(), accounts(), "root@example.com");
  ASSERT_TRUE(root.account().is_admin);
  make("bo@example.com");
  auto off = root.post_form("/profile/deactivate", {{"confirm", "yes"}});
  EXPECT_EQ(off.status, 422);
  EXPECT_TRUE(contains(off.body, "only administrator"));
  auto gone = root.post_form("/profile/delete",
                             {{"delete_password", kPassword}, {"confirm_delete", "yes"}});
  EXPECT_EQ(gone.status, 422);
  EXPECT_TRUE(contains(gone.body, "only administrator"));
  EXPECT_TRUE(accounts().find(root.account().id)->active);
  // With a second administrator, either may go.
  make("second@example.com", true);
  EXPECT_EQ(root.post_form("/profile/deactivate", {{"confirm", "yes"}}).status, 303);
}

TEST_P(AccountsHttpTest, DeactivationNeedsConfirmationAndSignsOut) {
  make("admin@example.com");
  SignedInClient ana(port(), accounts(), "ana@example.com");
  auto unconfirmed = ana.post_form("/profile/deactivate", {});
  EXPECT_EQ(unconfirmed.status, 422);
  EXPECT_TRUE(contains(unconfirmed.body, "Tick the box to confirm."));
  EXPECT_TRUE(accounts().find(ana.account().id)->active);
  auto done = ana.post_form("/profile/deactivate", {{"confirm", "yes"}});
  EXPECT_EQ(done.status, 303);
  EXPECT_EQ(done.header("Location"), "/signin");
  EXPECT_FALSE(accounts().find(ana.account().id)->active);
  EXPECT_EQ(ana.get("/profile").status, 303);
  EXPECT_EQ(sign_in("ana@example.com", kPassword).status, 422);
}

TEST_P(AccountsHttpTest, SecurityHeadersOnEveryPage) {
  SignedInClient ana(port(), accounts(), "ana@example.com");
  std::vector<ClientResponse> answers = {get("/signin"),           get("/invite/nope"),
                                         get("/no/such/page"),     ana.get("/profile"),
                                         ana.get("/no/such/page"), ana.get("/profile/password"),
                                         ana.get("/admin/invites")};
  for (const auto& r : answers) {
    EXPECT_TRUE(contains(r.header("Content-Security-Policy"), "frame-ancestors 'none'"))
        << r.status;
    EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff");
    EXPECT_FALSE(r.header("Referrer-Policy").empty());
    EXPECT_EQ(count_of(r.body, "<script"), count_of(r.body, kScriptTag)) << "no inline script";
    EXPECT_FALSE(contains(r.body, "style="));
  }
  // The 404 of a signed-in person keeps the navigation and sign-out form.
  EXPECT_TRUE(contains(answers[4].body, "action=\"/signout\""));
}

TEST_P(AccountsHttpTest, PublicPagesFollowTheBrowserLanguage) {
  auto fr = http_request(port(), "GET", "/signin", "", {{"Accept-Language", "fr-FR,fr;q=0.9"}});
  EXPECT_TRUE(contains(fr.body, "<html lang=\"fr\">"));
  EXPECT_TRUE(contains(fr.body, "Se connecter"));
  auto en = http_request(port(), "GET", "/signin", "", {{"Accept-Language", "de"}});
  EXPECT_TRUE(contains(en.body, "<html lang=\"en\">"));
  EXPECT_TRUE(contains(en.body, "Sign in to peto"));
}

PETO_BOTH_BACKENDS(AccountsHttpTest);

}  // namespace
}  // namespace peto::web
