// The account pages: sign-in and out, registration by invite, the profile,
// the password, and the administrator's invites. See site.h for the frame.
#include <algorithm>
#include <chrono>
#include <string>

#include "core/log.h"
#include "core/timezone.h"
#include "core/token.h"
#include "domain/accounts.h"
#include "domain/api_tokens.h"
#include "http/form.h"
#include "http/http.h"
#include "pages/feed_pages.h"
#include "pages/site.h"
#include "purge/accounts.h"
#include "sso/oidc.h"
#include "store/cache.h"
#include "sync/feed.h"

namespace peto::web {

namespace {

using nlohmann::json;

constexpr int kSigninLimitPerMinute = 10;
// The sign-in between the password and the code (domain/two_factor.h).
constexpr const char* kChallengeCookie = "peto_challenge";
// A browser its owner chose to trust: no code asked there for 30 days.
constexpr const char* kTrustedCookie = "peto_trusted";
// A sign-in on its way through the identity provider: its state.
constexpr const char* kOidcCookie = "peto_oidc";

std::string session_cookie(const Site& site, const Request& r, const std::string& token) {
  return site.cookie(r, kSessionCookie, token, domain::kSessionDays * 24 * 60 * 60);
}

std::string cleared_cookie(const Site& site, const Request& r) {
  return site.cookie(r, kSessionCookie, "", 0);
}

// Opens a session for `user_id`, closing the one the browser had, and sends
// the browser on with the new cookie.
Response signed_in_redirect(Site& site, const Request& r, std::int64_t user_id,
                            const std::string& location) {
  site.accounts().close_session(cookie_value(r, kSessionCookie));
  const std::string* agent = r.header("User-Agent");
  auto s = site.accounts().open_session(user_id, {r.remote_address, agent ? *agent : ""});
  Response out = Site::redirect(location);
  out.set_header("Set-Cookie", session_cookie(site, r, s.token));
  out.set_header("Cache-Control", "no-store");
  return out;
}

// Until a person chooses a time zone (it is still UTC, the default), the
// sign-in takes the browser's, which a small script puts in the form
// (static/peto.js), and the next page says so. Without JavaScript the field
// stays empty and nothing changes: the profile's list is the way then.
void adopt_browser_zone(Site& site, const Request& r, const domain::Account& account,
                        const std::string& browser_zone, Response& out) {
  auto zone = find_time_zone(browser_zone);
  if (!zone || !site.accounts().adopt_time_zone(account.id, *zone)) return;
  const std::string lang = site.catalogue().choose(account.language, r.header("Accept-Language"));
  out.headers.emplace_back(
      "Set-Cookie",
      site.flash_cookie(r, Flash::of("info", site.catalogue().fill(lang, "flash_time_zone_adopted",
                                                                   {{"zone", *zone}}))));
}

// Sign-in throttling counts failed attempts, in fixed one-minute windows, so
// a stranger cannot turn it against the owner:
// - kSigninLimitPerMinute failures from one client address (behind a proxy,
//   the client PETO_TRUSTED_PROXIES names) refuse that address until the
//   minute ends;
// - as many against one account refuse every browser that has not signed in
//   to it before. A browser that has carries the `peto_known` cookie, and its
//   attempts still reach the password check: the owner gets in while someone
//   guesses from elsewhere.
class SigninThrottle {
 public:
  SigninThrottle(Site& site, const Request& r, const std::string& email)
      : site_(site), cache_(site.db(), site.clock()), now_(site.clock().now_ms()), request_(r) {
    const std::string window = ":" + std::to_string(now_ / 60000);
    by_address_ = "ratelimit:signin:ip:" + r.remote_address + window;
    if (auto folded = domain::normalise_email(email)) {
      account_ = domain::token_hash(*folded);
      by_account_ = "ratelimit:signin:email:" + account_ + window;
    }
  }

  // Counts the attempt as a failure until succeeded() takes it back, in one
  // statement per counter, so attempts made at the same moment cannot all
  // pass before any counts. The seconds to wait before trying again; 0 when
  // the attempt may go ahead.
  int wait_s() {
    bool held = cache_.incr(by_address_, 1, kWindowTtl) > kSigninLimitPerMinute;
    if (!account_.empty() && cache_.incr(by_account_, 1, kWindowTtl) > kSigninLimitPerMinute &&
        !known_browser())
      held = true;
    return held ? static_cast<int>(60 - (now_ % 60000) / 1000) : 0;
  }

  // The password was right: the attempt was no failure.
  void succeeded() {
    cache_.incr(by_address_, -1, kWindowTtl);
    if (!account_.empty()) cache_.incr(by_account_, -1, kWindowTtl);
  }

  // Remembers this browser for the account: the cookie to set, its token new
  // or the one the browser already had.
  std::string remember() {
    std::string token = cookie_value(request_, kKnownCookie);
    if (token.size() != 32) token = random_token();
    cache_.set(known_key(token), "1", std::chrono::days(kKnownDays));
    return site_.cookie(request_, kKnownCookie, token, kKnownDays * 24 * 60 * 60);
  }

 private:
  static constexpr const char* kKnownCookie = "peto_known";
  static constexpr int kKnownDays = 365;
  static constexpr auto kWindowTtl = std::chrono::minutes(2);

  bool known_browser() {
    std::string token = cookie_value(request_, kKnownCookie);
    return token.size() == 32 && cache_.get(known_key(token)).has_value();
  }
  std::string known_key(const std::string& token) const {
    return "signin:known:" + domain::token_hash(token) + ":" + account_;
  }

  const Site& site_;
  store::Cache cache_;
  std::int64_t now_;
  const Request& request_;
  std::string by_address_, by_account_, account_;
};

// Where a sign-in goes once its first step (the password, or the identity
// provider) has said who it is: to the code when two-step sign-in is on and
// this browser is not trusted, else straight in. `how` is for the log.
Response complete_signin(Site& site, const Request& r, const domain::Account& account,
                         const std::string& next, const std::string& browser_zone,
                         const char* how) {
  if (site.two_factor().on(account.id) &&
      !site.two_factor().trusted(account.id, cookie_value(r, kTrustedCookie))) {
    Response out = Site::redirect("/signin/code?next=" + url_encode(safe_return(next, "/")));
    out.set_header("Set-Cookie",
                   site.cookie(r, kChallengeCookie, site.two_factor().open_challenge(account.id),
                               domain::kChallengeMinutes * 60));
    out.set_header("Cache-Control", "no-store");
    return out;
  }
  log::info("web", "signed in", {{"user", account.id}, {"with", how}});
  Response out = signed_in_redirect(site, r, account.id, safe_return(next, "/"));
  out.headers.emplace_back("Set-Cookie", SigninThrottle(site, r, account.email).remember());
  adopt_browser_zone(site, r, account, browser_zone, out);
  return out;
}

// A page that asks for a password says so when it would travel unencrypted.
void warn_of_plain_http(const Site& site, const Request& r, json& data) {
  if (!site.password_in_clear(r)) return;
  const std::string* host = r.header("Host");
  data["clear_warning"] = site.catalogue().fill(site.public_language(r), "signin_clear_warning",
                                                {{"host", host ? *host : ""}});
}

Response signin_page(Site& site, const Request& r, int status, const std::string& email,
                     const std::string& next, const std::string& error_key) {
  json data = {{"values", {{"email", email}}}, {"next", safe_return(next, "/")}};
  warn_of_plain_http(site, r, data);
  // After a recovery link (pages/security_pages.cpp) set a new password.
  if (auto recovered = r.query_param("recovered"); recovered && status == 200) {
    data["notice"] = site.catalogue().text(
        site.public_language(r),
        *recovered == "keys" ? "signin_recovered_keys_ended" : "signin_recovered");
  }
  if (r.query_param("deleted") && status == 200) {
    data["notice"] = site.catalogue().text(site.public_language(r), "signin_account_deleted");
  }
  if (!error_key.empty()) {
    data["form_error"] = site.catalogue().text(site.public_language(r), error_key);
  }
  if (site.oidc().enabled()) {
    const std::string lang = site.public_language(r);
    data["oidc"] = {{"href", "/signin/oidc?next=" + url_encode(safe_return(next, "/"))},
                    {"label", site.oidc().name().empty()
                                  ? site.catalogue().text(lang, "signin_oidc_button")
                                  : site.catalogue().fill(lang, "signin_oidc_button_named",
                                                          {{"name", site.oidc().name()}})}};
  }
  Response out = site.render_public(r, status, "signin", data);
  out.set_header("Cache-Control", "no-store");
  return out;
}

Response get_signin(Site& site, Request& r) {
  return signin_page(site, r, 200, "", r.query_param("next").value_or("/"), "");
}

Response post_signin(Site& site, Request& r) {
  Form f = Form::parse(r);
  std::string email = f.get("email");
  std::string next = f.get("next");
  SigninThrottle throttle(site, r, email);
  if (int wait = throttle.wait_s(); wait > 0) {
    Response out = signin_page(site, r, 429, email, next, "error_signin_too_many");
    out.set_header("Retry-After", std::to_string(wait));
    return out;
  }
  auto account = site.accounts().check_password(email, f.get("password"));
  if (!account) return signin_page(site, r, 422, email, next, "error_signin_failed");
  throttle.succeeded();
  return complete_signin(site, r, *account, next, f.get("time_zone"), "password");
}

// --- The second step of a sign-in with two-step sign-in on ---

Response code_page(Site& site, const Request& r, int status, const std::string& next,
                   const std::string& error_key) {
  const std::string lang = site.public_language(r);
  json data = {{"next", safe_return(next, "/")}};
  if (!error_key.empty()) data["code_error"] = site.catalogue().text(lang, error_key);
  Response out = site.render_public(r, status, "signin_code", data);
  out.set_header("Cache-Control", "no-store");
  return out;
}

// Without a live challenge the code has nothing to complete: back to the
// password, saying why, and the challenge cookie cleared.
Response challenge_gone(Site& site, const Request& r, const std::string& next,
                        const std::string& error_key) {
  Response out = signin_page(site, r, 422, "", next, error_key);
  out.set_header("Set-Cookie", site.cookie(r, kChallengeCookie, "", 0));
  return out;
}

Response get_signin_code(Site& site, Request& r) {
  const std::string next = r.query_param("next").value_or("/");
  if (!site.two_factor().challenge_user(cookie_value(r, kChallengeCookie))) {
    return Site::redirect("/signin?next=" + url_encode(safe_return(next, "/")));
  }
  return code_page(site, r, 200, next, "");
}

// Codes are guessed per account as well as per challenge: a person who
// knows the password cannot open challenges without end.
constexpr int kCodeFailuresPerQuarter = 10;

Response post_signin_code(Site& site, Request& r) {
  Form f = Form::parse(r);
  const std::string next = f.get("next");
  const std::string challenge = cookie_value(r, kChallengeCookie);
  auto& tf = site.two_factor();
  // The try counts before the code is checked, in one statement, so codes
  // sent at the same moment cannot all be checked before any counts.
  auto attempt = tf.try_challenge(challenge);
  if (!attempt) return challenge_gone(site, r, next, "error_challenge_expired");
  store::Cache cache(site.db(), site.clock());
  const std::string failures = "ratelimit:signin:code:" + std::to_string(attempt->user_id) + ":" +
                               std::to_string(site.clock().now_ms() / 900000);
  if (cache.incr(failures, 1, std::chrono::minutes(20)) > kCodeFailuresPerQuarter) {
    Response out = code_page(site, r, 429, next, "error_code_too_many");
    out.set_header("Retry-After", "900");
    return out;
  }
  const auto check = tf.verify(attempt->user_id, f.get("code"));
  if (check == domain::TwoFactor::Check::wrong) {
    if (attempt->last) {
      tf.close_challenge(challenge);
      return challenge_gone(site, r, next, "error_code_tries_used");
    }
    return code_page(site, r, 422, next, "error_code_wrong");
  }
  cache.incr(failures, -1, std::chrono::minutes(20));
  tf.close_challenge(challenge);
  auto account = site.accounts().find(attempt->user_id);
  if (!account || !account->active) return challenge_gone(site, r, next, "error_signin_failed");
  log::info("web", "signed in", {{"user", account->id}, {"second_step", true}});
  Response out = signed_in_redirect(site, r, account->id, safe_return(next, "/"));
  out.headers.emplace_back("Set-Cookie", site.cookie(r, kChallengeCookie, "", 0));
  out.headers.emplace_back("Set-Cookie", SigninThrottle(site, r, account->email).remember());
  if (f.get("trust") == "on") {
    out.headers.emplace_back("Set-Cookie",
                             site.cookie(r, kTrustedCookie, tf.trust_browser(account->id),
                                         domain::kTrustedBrowserDays * 24 * 60 * 60));
  }
  adopt_browser_zone(site, r, *account, f.get("time_zone"), out);
  if (check == domain::TwoFactor::Check::recovery_code) {
    // The person is one code poorer: the first page says how many are left.
    const std::string lang =
        site.catalogue().choose(account->language, r.header("Accept-Language"));
    const auto left = tf.state(account->id).recovery_codes_left;
    out.headers.emplace_back(
        "Set-Cookie",
        site.flash_cookie(
            r, Flash::of("info", site.catalogue().fill(lang, "flash_recovery_code_used",
                                                       {{"count", std::to_string(left)}}))));
  }
  return out;
}

// --- Sign-in through an OpenID Connect provider (sso/oidc.h) ---

// Where the provider sends the browser back: under PETO_PUBLIC_URL, else the
// address the browser used (the provider accepts only what was registered).
std::string oidc_callback(const Site& site, const Request& r) {
  const std::string path = "/signin/oidc/callback";
  if (!site.settings().public_url.empty()) return site.settings().public_url + path;
  const std::string* host = r.header("Host");
  return std::string(site.over_https(r) ? "https://" : "http://") +
         (host != nullptr ? *host : std::string("localhost")) + path;
}

Response get_signin_oidc(Site& site, Request& r) {
  if (!site.oidc().enabled()) return site.not_found_public(r);
  const std::string next = safe_return(r.query_param("next").value_or("/"), "/");
  auto go = site.oidc().start(oidc_callback(site, r), next);
  if (!go) {
    log::warn("web", "single sign-on unavailable", {{"error", go.status().message()}});
    return signin_page(site, r, 502, "", next, "error_oidc_unavailable");
  }
  Response out = Site::redirect(go->location);
  out.set_header("Set-Cookie", site.cookie(r, kOidcCookie, go->state, sso::kLoginMinutes * 60));
  out.set_header("Cache-Control", "no-store");
  return out;
}

Response get_oidc_callback(Site& site, Request& r) {
  if (!site.oidc().enabled()) return site.not_found_public(r);
  // Whatever happens, the sign-in's cookie has done its work.
  auto refused = [&](int status, const std::string& key) {
    Response out = signin_page(site, r, status, "", "/", key);
    out.headers.emplace_back("Set-Cookie", site.cookie(r, kOidcCookie, "", 0));
    return out;
  };
  if (auto error = r.query_param("error")) {
    log::info("web", "single sign-on declined by the provider", {{"error", *error}});
    return refused(400, *error == "access_denied" ? "error_oidc_denied" : "error_oidc_failed");
  }
  auto who = site.oidc().finish(r.query_param("state").value_or(""), cookie_value(r, kOidcCookie),
                                r.query_param("code").value_or(""), oidc_callback(site, r));
  if (!who) {
    const bool down = who.status().code() == Status::Code::unavailable;
    log::warn("web", "single sign-on refused", {{"reason", who.status().message()}});
    return refused(down ? 502 : 400, down ? "error_oidc_unavailable" : "error_oidc_failed");
  }
  auto account = site.oidc().account_for(*who);
  if (auto* key = std::get_if<std::string>(&account)) {
    log::info("web", "single sign-on without an account", {{"reason", *key}});
    return refused(403, *key);
  }
  Response out =
      complete_signin(site, r, std::get<domain::Account>(account), who->next, "", "oidc");
  out.headers.emplace_back("Set-Cookie", site.cookie(r, kOidcCookie, "", 0));
  return out;
}

Response post_signout(Site& site, Request& r, const Visitor&) {
  site.accounts().close_session(cookie_value(r, kSessionCookie));
  Response out = Site::redirect("/signin");
  out.set_header("Set-Cookie", cleared_cookie(site, r));
  return out;
}

Response invite_page(Site& site, const Request& r, int status, const json& values,
                     const domain::FieldErrors& errors) {
  json data = {{"values", values},
               {"errors", site.error_texts(nullptr, r, errors)},
               {"token", r.param("token")}};
  warn_of_plain_http(site, r, data);
  if (auto it = errors.by_field.find("form"); it != errors.by_field.end()) {
    data["form_error"] = site.catalogue().text(site.public_language(r), it->second);
  }
  Response out = site.render_public(r, status, "invite", data);
  out.set_header("Cache-Control", "no-store");
  return out;
}

Response get_invite(Site& site, Request& r) {
  if (!site.accounts().invite_open(r.param("token"))) return site.not_found_public(r);
  return invite_page(site, r, 200, {{"email", ""}}, {});
}

Response post_invite(Site& site, Request& r) {
  const std::string& token = r.param("token");
  if (!site.accounts().invite_open(token)) return site.not_found_public(r);
  Form f = Form::parse(r);
  json values = {{"email", f.get("email")}};
  domain::FieldErrors errors;
  if (f.get("password") != f.get("password_again")) {
    errors.add("password_again", "error_password_mismatch");
    return invite_page(site, r, 422, values, errors);
  }
  auto made = site.accounts().accept_invite(token, f.get("email"), f.get("password"));
  if (auto* e = std::get_if<domain::FieldErrors>(&made)) {
    return invite_page(site, r, 422, values, *e);
  }
  const auto& account = std::get<domain::Account>(made);
  log::info("web", "invite accepted", {{"user", account.id}});
  Response out = signed_in_redirect(site, r, account.id, "/");
  adopt_browser_zone(site, r, account, f.get("time_zone"), out);
  return out;
}

// The time zones as the profile's select offers them: grouped by region,
// each named by its place ("Buenos Aires (Argentina)"), so that typing a
// city's first letters in the list finds it; `chosen` selected. A value the
// list does not hold (typed elsewhere) is offered first, as it is.
json zone_groups(const std::string& chosen) {
  json groups = json::array();
  bool found = false;
  for (const std::string& name : time_zone_names()) {
    const auto slash = name.find('/');
    const std::string region = slash == std::string::npos ? name : name.substr(0, slash);
    std::string place = slash == std::string::npos ? name : name.substr(slash + 1);
    std::string within;
    if (auto inner = place.rfind('/'); inner != std::string::npos) {
      within = place.substr(0, inner);
      place = place.substr(inner + 1);
    }
    std::replace(place.begin(), place.end(), '_', ' ');
    std::replace(within.begin(), within.end(), '_', ' ');
    if (!within.empty()) place += " (" + within + ")";
    if (groups.empty() || groups.back()["region"] != region)
      groups.push_back({{"region", region}, {"zones", json::array()}});
    found = found || name == chosen;
    groups.back()["zones"].push_back(
        {{"value", name}, {"label", place}, {"selected", name == chosen}});
  }
  if (!found && !chosen.empty()) {
    json typed = {
        {"region", chosen},
        {"zones", json::array({{{"value", chosen}, {"label", chosen}, {"selected", true}}})}};
    groups.insert(groups.begin(), std::move(typed));
  }
  return groups;
}

// The profile form's data: the saved values, or what was typed.
Response profile_page(Site& site, const Request& r, const Visitor& v, int status,
                      const json& values, const domain::FieldErrors& errors,
                      const std::string& flash_key) {
  const json& t = site.catalogue().messages(v.language);
  std::string chosen = values.value("language", "");
  json languages = json::array();
  languages.push_back({{"code", ""},
                       {"name", t.value("profile_language_browser", "")},
                       {"selected", chosen.empty()}});
  for (const auto& code : site.catalogue().languages()) {
    languages.push_back({{"code", code},
                         {"name", site.catalogue().text(code, "language_name")},
                         {"selected", chosen == code}});
  }
  json data = {{"values", values},
               {"languages", languages},
               {"zones", zone_groups(values.value("time_zone", ""))},
               {"errors", site.error_texts(&v, r, errors)},
               {"bookmarklet", capture_bookmarklet(site, r)},
               {"has_password", site.accounts().has_password(v.account.id)}};
  data["feed"] = feed_section(site, v);
  if (!flash_key.empty()) {
    data["flash"] = {{"kind", "success"}, {"message", t.value(flash_key, flash_key)}};
  }
  return site.render(r, v, status, "profile", std::move(data));
}

json saved_profile(const domain::Account& a) {
  return {{"language", a.language},
          {"time_zone", a.time_zone},
          {"quiet_after_days", std::to_string(a.quiet_after_days)},
          {"closing_notice_days", std::to_string(a.closing_notice_days)},
          {"follow_up_days", std::to_string(a.reminders.follow_up_days)},
          {"remind_interviews", a.reminders.interviews},
          {"remind_answer_by", a.reminders.answer_by},
          {"remind_closing", a.reminders.closing}};
}

// A whole number typed into a form; nullopt for anything else.
std::optional<int> form_int(const std::string& text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

Response get_profile(Site& site, Request& r, const Visitor& v) {
  std::string saved = r.query_param("saved").value_or("");
  std::string flash = saved == "profile"         ? "profile_saved"
                      : saved == "password"      ? "password_changed"
                      : saved == "password_keys" ? "password_changed_keys_ended"
                                                 : "";
  return profile_page(site, r, v, 200, saved_profile(v.account), {}, flash);
}

Response post_profile(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  json values = {{"language", f.get("language")},
                 {"time_zone", f.get("time_zone")},
                 {"quiet_after_days", f.get("quiet_after_days")},
                 {"closing_notice_days", f.get("closing_notice_days")},
                 {"follow_up_days", f.get("follow_up_days")},
                 {"remind_interviews", f.get("remind_interviews") == "on"},
                 {"remind_answer_by", f.get("remind_answer_by") == "on"},
                 {"remind_closing", f.get("remind_closing") == "on"}};
  domain::FieldErrors errors;
  domain::Account wanted = v.account;
  wanted.language = f.get("language");
  if (!wanted.language.empty() && !site.catalogue().has_language(wanted.language)) {
    errors.add("language", "error_language_invalid");
  }
  // A zone chosen from the list, or typed: "Berlin" is Europe/Berlin.
  wanted.time_zone = find_time_zone(f.get("time_zone")).value_or(f.get("time_zone"));
  if (!is_valid_time_zone(wanted.time_zone)) errors.add("time_zone", "error_time_zone_invalid");
  auto quiet = form_int(f.get("quiet_after_days"));
  auto closing = form_int(f.get("closing_notice_days"));
  auto follow_up = form_int(f.get("follow_up_days"));
  if (!quiet || *quiet < 1 || *quiet > 365) {
    errors.add("quiet_after_days", "error_quiet_after_days_range");
  }
  if (!closing || *closing < 1 || *closing > 90) {
    errors.add("closing_notice_days", "error_closing_notice_days_range");
  }
  if (!follow_up || *follow_up > domain::kMaxFollowUpDays) {
    errors.add("follow_up_days", "error_follow_up_days_range");
  }
  // Every field is checked before anything is saved; the domain checks again.
  if (errors.empty()) {
    wanted.quiet_after_days = *quiet;
    wanted.closing_notice_days = *closing;
    wanted.reminders = {.follow_up_days = *follow_up,
                        .interviews = values["remind_interviews"].get<bool>(),
                        .answer_by = values["remind_answer_by"].get<bool>(),
                        .closing = values["remind_closing"].get<bool>()};
    errors = site.accounts().update_profile(v.account.id, wanted);
  }
  if (!errors.empty()) return profile_page(site, r, v, 422, values, errors, "");
  return Site::redirect("/profile?saved=profile");
}

// `end_keys`: the box "also end my API tokens and calendar address", ticked
// unless the person unticked it.
Response password_page(Site& site, const Request& r, const Visitor& v, int status,
                       const domain::FieldErrors& errors, bool end_keys = true) {
  return site.render(r, v, status, "password",
                     {{"errors", site.error_texts(&v, r, errors)}, {"end_keys", end_keys}});
}

Response post_password(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  domain::FieldErrors errors;
  if (f.get("new") != f.get("new_again")) {
    errors.add("new_again", "error_password_mismatch");
    if (!site.accounts().check_password(v.account.email, f.get("current"))) {
      errors.add("current", "error_password_wrong");
    }
  } else {
    errors = site.accounts().change_password(v.account.id, f.get("current"), f.get("new"),
                                             cookie_value(r, kSessionCookie));
  }
  const bool end_keys = f.get("end_keys") == "on";
  if (!errors.empty()) return password_page(site, r, v, 422, errors, end_keys);
  // Other sessions ended with the change; the keys that work without a
  // password too, unless the person chose to keep them.
  if (!end_keys) return Site::redirect("/profile?saved=password");
  end_keys_of(site, v.account.id, "password changed; keys ended");
  return Site::redirect("/profile?saved=password_keys");
}

// True when the visitor is the one active administrator: the instance would
// be left without one, and nobody could invite or recover anybody.
bool last_admin(Site& site, const Visitor& v) {
  if (!v.account.is_admin) return false;
  for (const auto& s : site.accounts().list()) {
    if (s.account.id != v.account.id && s.account.is_admin && s.account.active) return false;
  }
  return true;
}

Response post_deactivate(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  domain::FieldErrors errors;
  if (f.get("confirm") != "yes") errors.add("confirm", "error_deactivate_confirm");
  if (last_admin(site, v)) errors.add("confirm", "error_last_admin");
  if (!errors.empty()) return profile_page(site, r, v, 422, saved_profile(v.account), errors, "");
  site.accounts().set_active(v.account.id, false, v.account.id);
  log::info("web", "account deactivated", {{"user", v.account.id}});
  Response out = Site::redirect("/signin");
  out.set_header("Set-Cookie", cleared_cookie(site, r));
  return out;
}

// Deleting one's own account: the password again (a browser left signed in
// is not enough; an account that signs in only through the identity provider
// types its address instead) and the box ticked; then everything goes
// (purge/accounts.h).
Response post_delete_account(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  domain::FieldErrors errors;
  if (f.get("confirm_delete") != "yes") errors.add("confirm_delete", "error_delete_confirm");
  if (last_admin(site, v)) errors.add("confirm_delete", "error_last_admin");
  if (!site.accounts().has_password(v.account.id)) {
    if (domain::normalise_email(f.get("delete_email")).value_or("") != v.account.email) {
      errors.add("delete_email", "error_delete_email");
    }
  } else if (!site.accounts().check_password(v.account.email, f.get("delete_password"))) {
    errors.add("delete_password", "error_password_wrong");
  }
  if (!errors.empty()) return profile_page(site, r, v, 422, saved_profile(v.account), errors, "");
  purge::delete_account(site.db(), site.clock(), site.settings(), v.account.id);
  log::info("web", "account deleted by its owner", {{"user", v.account.id}});
  Response out = Site::redirect("/signin?deleted=1");
  out.set_header("Set-Cookie", cleared_cookie(site, r));
  return out;
}

Response invites_page(Site& site, const Request& r, const Visitor& v, int status,
                      const json& extra) {
  json data = extra;
  if (!data.contains("errors")) data["errors"] = json::object();
  return site.render(r, v, status, "admin_invites", std::move(data));
}

Response post_invites(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  std::string email = f.get("email");
  if (!email.empty() && !domain::normalise_email(email)) {
    domain::FieldErrors errors;
    errors.add("email", "error_email_invalid");
    return invites_page(
        site, r, v, 422,
        {{"values", {{"email", email}}}, {"errors", site.error_texts(&v, r, errors)}});
  }
  std::string token = site.accounts().create_invite(v.account.id, email);
  std::string path = "/invite/" + token;
  std::string link =
      absolute_url(site.config() != nullptr ? site.config()->public_url : std::string(), path);
  log::info("web", "invite created", {{"by", v.account.id}});
  return invites_page(site, r, v, 200,
                      {{"invite", {{"path", path}, {"link", link}, {"email", email}}}});
}

}  // namespace

void end_keys_of(Site& site, std::int64_t user_id, const char* why) {
  const auto tokens = domain::ApiTokens(site.db(), site.clock()).revoke_all(user_id);
  const bool feed = sync::CalendarFeeds(site.db(), site.clock()).revoke(user_id);
  log::info("web", why, {{"user", user_id}, {"tokens", tokens}, {"calendar_feed", feed}});
}

void add_account_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add(
      "GET", "/signin", [s](Request& r) { return get_signin(*s, r); }, "Sign-in form");
  router.add("POST", "/signin",
             site.signed_out_form([s](Request& r) { return post_signin(*s, r); }), "Sign in");
  router.add(
      "GET", "/signin/oidc", [s](Request& r) { return get_signin_oidc(*s, r); },
      "Sign in through the identity provider (OpenID Connect)");
  router.add(
      "GET", "/signin/oidc/callback", [s](Request& r) { return get_oidc_callback(*s, r); },
      "Where the identity provider sends the browser back");
  router.add(
      "GET", "/signin/code", [s](Request& r) { return get_signin_code(*s, r); },
      "Sign-in, second step: the code from the authenticator app");
  router.add("POST", "/signin/code",
             site.signed_out_form([s](Request& r) { return post_signin_code(*s, r); }),
             "Sign in with a code or a recovery code");
  router.add("POST", "/signout",
             site.signed_in([s](Request& r, const Visitor& v) { return post_signout(*s, r, v); }),
             "Sign out");
  router.add(
      "GET", "/invite/{token}", [s](Request& r) { return get_invite(*s, r); },
      "Registration form of an invite");
  router.add("POST", "/invite/{token}",
             site.signed_out_form([s](Request& r) { return post_invite(*s, r); }),
             "Register with an invite");
  router.add("GET", "/profile",
             site.signed_in([s](Request& r, const Visitor& v) { return get_profile(*s, r, v); }),
             "Profile settings");
  router.add("POST", "/profile",
             site.signed_in([s](Request& r, const Visitor& v) { return post_profile(*s, r, v); }),
             "Save profile settings");
  router.add("GET", "/profile/password", site.signed_in([s](Request& r, const Visitor& v) {
    return password_page(*s, r, v, 200, {});
  }),
             "Password form");
  router.add("POST", "/profile/password",
             site.signed_in([s](Request& r, const Visitor& v) { return post_password(*s, r, v); }),
             "Change the password");
  router.add("POST", "/profile/deactivate", site.signed_in([s](Request& r, const Visitor& v) {
    return post_deactivate(*s, r, v);
  }),
             "Deactivate the account");
  router.add("POST", "/profile/delete", site.signed_in([s](Request& r, const Visitor& v) {
    return post_delete_account(*s, r, v);
  }),
             "Delete the account and everything in it");
  router.add("GET", "/admin/invites", site.admin_only([s](Request& r, const Visitor& v) {
    return invites_page(*s, r, v, 200, json::object());
  }),
             "Invites (administrators)");
  router.add("POST", "/admin/invites",
             site.admin_only([s](Request& r, const Visitor& v) { return post_invites(*s, r, v); }),
             "Create an invite (administrators)");
}

}  // namespace peto::web
