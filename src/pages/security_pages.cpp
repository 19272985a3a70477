// The pages that keep an account in its owner's hands: the recovery link's
// form (/recover/{token}), the person's signed-in browsers
// (/profile/sessions), and the administrator's people and instance page
// (/admin). See domain/accounts.h for links, sessions and account events.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>

#include "core/log.h"
#include "domain/accounts.h"
#include "engine/heartbeat.h"
#include "engine/queue.h"
#include "http/form.h"
#include "media/backups.h"
#include "notify/recovery_mail.h"
#include "pages/record_view.h"
#include "pages/site.h"
#include "purge/accounts.h"
#include "store/cache.h"

namespace peto::web {

namespace {

using nlohmann::json;

// --- /recover/{token} ---

Response recover_page(Site& site, const Request& r, int status, const std::string& email,
                      const domain::FieldErrors& errors, bool end_keys_ticked) {
  json data = {{"errors", site.error_texts(nullptr, r, errors)},
               {"token", r.param("token")},
               {"email", email},
               {"usable", !email.empty()},
               {"end_keys", end_keys_ticked}};
  if (auto it = errors.by_field.find("form"); it != errors.by_field.end()) {
    data["form_error"] = site.catalogue().text(site.public_language(r), it->second);
  }
  Response out = site.render_public(r, status, "recover", data);
  out.set_header("Cache-Control", "no-store");
  // The token is in the address: it must not leave in a Referer.
  out.set_header("Referrer-Policy", "no-referrer");
  return out;
}

// A link that cannot be used says so, instead of a bare "not found": the
// person learns to ask for a new one.
Response unusable_link(Site& site, const Request& r) {
  domain::FieldErrors errors;
  errors.add("form", "error_recovery_invalid");
  return recover_page(site, r, 404, "", errors, true);
}

Response get_recover(Site& site, Request& r) {
  auto account = site.accounts().recovery_account(r.param("token"));
  if (!account) return unusable_link(site, r);
  return recover_page(site, r, 200, account->email, {}, true);
}

Response post_recover(Site& site, Request& r) {
  const std::string& token = r.param("token");
  auto account = site.accounts().recovery_account(token);
  if (!account) return unusable_link(site, r);
  Form f = Form::parse(r);
  const bool keys = f.get("end_keys") == "on";
  domain::FieldErrors errors;
  if (f.get("password") != f.get("password_again")) {
    errors.add("password_again", "error_password_mismatch");
    return recover_page(site, r, 422, account->email, errors, keys);
  }
  auto used = site.accounts().use_recovery(token, f.get("password"));
  if (auto* e = std::get_if<domain::FieldErrors>(&used)) {
    return recover_page(site, r, 422, account->email, *e, keys);
  }
  if (keys) {
    end_keys_of(site, account->id, "password recovered; keys ended");
  } else {
    log::info("web", "password recovered", {{"user", account->id}});
  }
  // The browser's own session (if any) ended with the others.
  return Site::redirect(std::string("/signin?recovered=") + (keys ? "keys" : "password"));
}

// --- /signin/forgot ---

// Asking for a link by e-mail: at most kForgotPerAddress a quarter of an hour
// from one client address and kForgotPerAccount an hour for one typed
// address (the mailbox is not flooded, and neither says whether it exists).
constexpr int kForgotPerAddress = 5;
constexpr int kForgotPerAccount = 3;

Response forgot_page(Site& site, const Request& r, int status, const std::string& email,
                     const std::string& error_key, bool sent) {
  const std::string lang = site.public_language(r);
  json data = {{"can_mail", !site.settings().smtp_url.empty()},
               {"values", {{"email", email}}},
               {"sent", sent}};
  if (!error_key.empty()) data["form_error"] = site.catalogue().text(lang, error_key);
  Response out = site.render_public(r, status, "forgot", data);
  out.set_header("Cache-Control", "no-store");
  return out;
}

Response post_forgot(Site& site, Request& r) {
  if (site.settings().smtp_url.empty()) return forgot_page(site, r, 200, "", "", false);
  Form f = Form::parse(r);
  const std::string typed = f.get("email");
  auto folded = domain::normalise_email(typed);
  if (!folded) return forgot_page(site, r, 422, typed, "error_email_invalid", false);
  store::Cache cache(site.db(), site.clock());
  const std::int64_t now = site.clock().now_ms();
  const bool held =
      cache.incr("ratelimit:forgot:ip:" + r.remote_address + ":" + std::to_string(now / 900000), 1,
                 std::chrono::minutes(20)) > kForgotPerAddress ||
      cache.incr("ratelimit:forgot:email:" + domain::token_hash(*folded) + ":" +
                     std::to_string(now / 3600000),
                 1, std::chrono::minutes(70)) > kForgotPerAccount;
  if (held) {
    Response out = forgot_page(site, r, 429, typed, "error_forgot_too_many", false);
    out.set_header("Retry-After", "900");
    return out;
  }
  // The same work whatever the address: the worker looks it up.
  engine::Queue(site.db(), site.clock()).enqueue(notify::recovery_mail_task(*folded));
  return forgot_page(site, r, 200, "", "", true);
}

// --- /profile/sessions ---

// "Firefox on Linux" from a User-Agent header: the browser and the system a
// person recognises, not the whole string. The first name found wins, in an
// order where a browser that also names another (Edge says Chrome and
// Safari; Chrome says Safari) comes first. Empty when nothing is known.
std::string browser_of(const std::string& agent) {
  using Names = std::initializer_list<std::pair<const char*, const char*>>;
  // The name of the first word of `names` the header holds, or "".
  auto first = [&](Names names) -> std::string {
    for (const auto& [word, name] : names) {
      if (agent.find(word) != std::string::npos) return name;
    }
    return "";
  };
  const std::string browser = first({{"Firefox/", "Firefox"},
                                     {"Edg/", "Edge"},
                                     {"OPR/", "Opera"},
                                     {"SamsungBrowser/", "Samsung Internet"},
                                     {"Chrome/", "Chrome"},
                                     {"Chromium/", "Chromium"},
                                     {"Safari/", "Safari"},
                                     {"curl/", "curl"}});
  std::string system = first({{"iPhone", "iOS"},
                              {"iPad", "iPadOS"},
                              {"Android", "Android"},
                              {"Windows", "Windows"},
                              {"Mac OS X", "macOS"},
                              {"CrOS", "ChromeOS"},
                              {"Linux", "Linux"}});
  if (browser.empty()) return system;
  return system.empty() ? browser : browser + " · " + system;
}

json event_rows(Site& site, const Visitor& v) {
  const json& t = site.catalogue().messages(v.language);
  json rows = json::array();
  for (const auto& e : site.accounts().events(v.account.id, 20)) {
    std::string by;
    if (e.actor_id == 0) {
      by = t.value("account_event_by_command", "");
    } else if (e.actor_id != v.account.id) {
      by = t.value("account_event_by_admin", "");
    }
    rows.push_back({{"what", t.value("account_event_" + e.kind, e.kind)},
                    {"by", by},
                    {"at", site.format_time(v, e.at)}});
  }
  return rows;
}

Response sessions_page(Site& site, const Request& r, const Visitor& v) {
  json sessions = json::array();
  std::size_t others = 0;
  for (const auto& s : site.accounts().sessions_of(v.account.id, cookie_value(r, kSessionCookie))) {
    if (!s.current) ++others;
    sessions.push_back({{"handle", s.handle},
                        {"current", s.current},
                        {"created", site.format_time(v, s.created_at)},
                        {"last_seen", site.format_time(v, s.last_seen_at)},
                        {"address", s.address},
                        {"browser", browser_of(s.user_agent)},
                        {"user_agent", s.user_agent}});
  }
  json events = event_rows(site, v);
  json data = {{"sessions", std::move(sessions)}, {"has_others", others > 0}};
  data["has_events"] = !events.empty();
  data["events"] = std::move(events);
  return site.render(r, v, 200, "sessions", std::move(data));
}

Response post_end_session(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  if (!site.accounts().close_session_by_handle(v.account.id, f.get("session"))) {
    return site.redirect(r, "/profile/sessions",
                         Flash::of("error", site.say(v, "sessions_flash_gone")));
  }
  log::info("web", "session ended", {{"user", v.account.id}});
  return site.redirect(r, "/profile/sessions",
                       Flash::of("success", site.say(v, "sessions_flash_ended")));
}

Response post_end_other_sessions(Site& site, Request& r, const Visitor& v) {
  const auto ended =
      site.accounts().close_other_sessions(v.account.id, cookie_value(r, kSessionCookie));
  log::info("web", "other sessions ended", {{"user", v.account.id}, {"sessions", ended}});
  return site.redirect(r, "/profile/sessions",
                       Flash::of("success", site.say(v, "sessions_flash_others_ended",
                                                     {{"count", std::to_string(ended)}})));
}

// --- /admin ---

// How long ago `at` was, in whole minutes, or "never".
std::string age_text(const Site& site, const Visitor& v, std::optional<Millis> at) {
  if (!at) return site.say(v, "admin_health_never");
  const Millis minutes = std::max<Millis>(0, (site.clock().now_ms() - *at) / 60000);
  return site.say(v, "admin_health_ago",
                  {{"minutes", std::to_string(minutes)}, {"time", site.format_time(v, *at)}});
}

json instance_health(const Site& site, const Visitor& v) {
  const Config& config = site.settings();
  auto scheduler = engine::read_heartbeat(config.scheduler_heartbeat());
  auto worker = engine::read_heartbeat(config.worker_heartbeat());
  std::int64_t waiting = 0, running = 0, failed = 0;
  for (const auto& c : engine::Queue(site.db(), site.clock()).stats().by_queue) {
    if (c.state == "available") waiting += c.count;
    if (c.state == "running") running += c.count;
    if (c.state == "failed") failed += c.count;
  }
  const auto backup = media::last_backup(site.db());
  return {{"scheduler", age_text(site, v, scheduler)},
          {"worker", age_text(site, v, worker)},
          {"waiting", waiting},
          {"running", running},
          {"failed", failed},
          {"backup", age_text(site, v, backup.last_ok_at)},
          {"backup_error", backup.last_error}};
}

// `shown`: a recovery link made by this request, for the person `shown_for`.
Response admin_page(Site& site, const Request& r, const Visitor& v, int status,
                    const std::string& shown, std::int64_t shown_for) {
  const json& t = site.catalogue().messages(v.language);
  json people = json::array();
  for (const auto& s : site.accounts().list()) {
    const auto& a = s.account;
    json person = {{"id", a.id},
                   {"email", a.email},
                   {"is_admin", a.is_admin},
                   {"active", a.active},
                   {"self", a.id == v.account.id},
                   {"two_factor", s.two_factor},
                   {"last_signin", s.last_signin_at > 0 ? site.format_time(v, s.last_signin_at)
                                                        : t.value("admin_never_signed_in", "")}};
    if (a.id == shown_for && !shown.empty()) person["recovery_link"] = shown;
    people.push_back(std::move(person));
  }
  json data = {{"people", std::move(people)}, {"health", instance_health(site, v)}};
  Response out = site.render(r, v, status, "admin", std::move(data));
  out.set_header("Cache-Control", "no-store");
  return out;
}

// The account behind {id}, other than the administrator's own (they keep
// their own account from the profile, and cannot lock themselves out here).
std::optional<domain::Account> other_person(Site& site, const Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id || *id == v.account.id) return std::nullopt;
  return site.accounts().find(*id);
}

Response post_admin_recovery(Site& site, Request& r, const Visitor& v) {
  auto person = other_person(site, r, v);
  if (!person) return site.not_found(r, v);
  if (!person->active) {
    return site.redirect(r, "/admin",
                         Flash::of("error", site.say(v, "admin_flash_recovery_inactive",
                                                     {{"email", person->email}})));
  }
  std::string token = site.accounts().create_recovery(person->id, v.account.id);
  log::info("web", "recovery link created", {{"by", v.account.id}, {"user", person->id}});
  std::string link = absolute_url(
      site.config() != nullptr ? site.config()->public_url : std::string(), "/recover/" + token);
  return admin_page(site, r, v, 200, link, person->id);
}

Response post_admin_active(Site& site, Request& r, const Visitor& v, bool active) {
  auto person = other_person(site, r, v);
  if (!person) return site.not_found(r, v);
  site.accounts().set_active(person->id, active, v.account.id);
  log::info("web", active ? "account activated" : "account deactivated",
            {{"by", v.account.id}, {"user", person->id}});
  return site.redirect(
      r, "/admin",
      Flash::of("success", site.say(v, active ? "admin_flash_activated" : "admin_flash_deactivated",
                                    {{"email", person->email}})));
}

// For a person who lost both their authenticator and their recovery codes:
// their password alone signs them in again, and they can enrol anew.
Response post_admin_two_factor_reset(Site& site, Request& r, const Visitor& v) {
  auto person = other_person(site, r, v);
  if (!person) return site.not_found(r, v);
  const bool was_on = site.two_factor().turn_off(person->id, v.account.id);
  if (was_on) {
    log::info("web", "two-step sign-in reset", {{"by", v.account.id}, {"user", person->id}});
  }
  return site.redirect(
      r, "/admin",
      Flash::of(was_on ? "success" : "info",
                site.say(v, was_on ? "admin_flash_two_factor_reset" : "admin_flash_two_factor_off",
                         {{"email", person->email}})));
}

Response post_admin_delete(Site& site, Request& r, const Visitor& v) {
  auto person = other_person(site, r, v);
  if (!person) return site.not_found(r, v);
  Form f = Form::parse(r);
  // The address typed again: one click on the wrong row deletes nothing.
  if (domain::normalise_email(f.get("confirm_email")).value_or("") != person->email) {
    return site.redirect(r, "/admin",
                         Flash::of("error", site.say(v, "admin_flash_delete_unconfirmed",
                                                     {{"email", person->email}})));
  }
  auto gone = purge::delete_account(site.db(), site.clock(), site.settings(), person->id);
  if (!gone) return site.not_found(r, v);
  log::info("web", "account deleted by an administrator",
            {{"by", v.account.id}, {"user", person->id}});
  return site.redirect(
      r, "/admin",
      Flash::of("success", site.say(v, "admin_flash_deleted", {{"email", gone->email}})));
}

}  // namespace

void add_security_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add(
      "GET", "/recover/{token}", [s](Request& r) { return get_recover(*s, r); },
      "Recovery link: choose a new password");
  router.add("POST", "/recover/{token}",
             site.signed_out_form([s](Request& r) { return post_recover(*s, r); }),
             "Set a new password with a recovery link");
  router.add(
      "GET", "/signin/forgot", [s](Request& r) { return forgot_page(*s, r, 200, "", "", false); },
      "Forgotten password: ask for a recovery link");
  router.add("POST", "/signin/forgot",
             site.signed_out_form([s](Request& r) { return post_forgot(*s, r); }),
             "Send a recovery link by e-mail");
  router.add("GET", "/profile/sessions",
             site.signed_in([s](Request& r, const Visitor& v) { return sessions_page(*s, r, v); }),
             "Signed-in browsers and security events");
  router.add("POST", "/profile/sessions/end", site.signed_in([s](Request& r, const Visitor& v) {
    return post_end_session(*s, r, v);
  }),
             "Sign one browser out");
  router.add("POST", "/profile/sessions/end-others",
             site.signed_in(
                 [s](Request& r, const Visitor& v) { return post_end_other_sessions(*s, r, v); }),
             "Sign every other browser out");
  router.add("GET", "/admin", site.admin_only([s](Request& r, const Visitor& v) {
    return admin_page(*s, r, v, 200, "", 0);
  }),
             "People and the instance's health (administrators)");
  router.add(
      "POST", "/admin/people/{id}/recovery",
      site.admin_only([s](Request& r, const Visitor& v) { return post_admin_recovery(*s, r, v); }),
      "Make a recovery link for a person (administrators)");
  router.add("POST", "/admin/people/{id}/deactivate",
             site.admin_only(
                 [s](Request& r, const Visitor& v) { return post_admin_active(*s, r, v, false); }),
             "Deactivate a person's account (administrators)");
  router.add("POST", "/admin/people/{id}/activate",
             site.admin_only(
                 [s](Request& r, const Visitor& v) { return post_admin_active(*s, r, v, true); }),
             "Activate a person's account (administrators)");
  router.add("POST", "/admin/people/{id}/two-factor-reset",
             site.admin_only([s](Request& r, const Visitor& v) {
               return post_admin_two_factor_reset(*s, r, v);
             }),
             "Turn a person's two-step sign-in off (administrators)");
  router.add(
      "POST", "/admin/people/{id}/delete",
      site.admin_only([s](Request& r, const Visitor& v) { return post_admin_delete(*s, r, v); }),
      "Delete a person's account and everything in it (administrators)");
}

}  // namespace peto::web
