// Site: the signed-in page frame every HTML page of peto is built with.
//
//   Site site({.db = db, .clock = &clock, .config = &config,
//              .templates_dir = "templates", .locales_dir = "locales"});
//   if (Status s = site.load(); !s) { ... }
//   router.add("GET", "/listings", site.signed_in([&](Request& r, const Visitor& v) {
//     return site.render(r, v, 200, "listings", {{"items", ...}});
//   }));
//
// signed_in() wraps a page handler: it finds the session from the
// `peto_session` cookie (none or expired: 303 to /signin?next=<path>), checks
// the CSRF token of every unsafe method (form field `csrf` or header
// X-CSRF-Token, compared in constant time; wrong or missing: 403 and the
// handler is not called), and marks the answer Cache-Control: no-store.
// admin_only() is the same for administrators; anybody else gets the 404 page,
// as if the page did not exist.
//
// render() puts a page inside the layout with what the layout needs: `t` (the
// visitor's messages), `lang`, `csrf`, `visitor` {email, is_admin}, `nav` and
// `has_nav`. Everything it holds is read-only after load(): thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/clock.h"
#include "core/config.h"
#include "core/i18n.h"
#include "domain/accounts.h"
#include "domain/field_errors.h"
#include "domain/two_factor.h"
#include "http/router.h"
#include "pages/templates.h"
#include "sso/oidc.h"
#include "store/db.h"

namespace peto::web {

struct Visitor {
  domain::Account account;
  std::string csrf_token;
  std::string language;   // the catalogue language chosen for this request
  std::string time_zone;  // the profile's
};

struct SiteDeps {
  store::Db* db = nullptr;
  const Clock* clock = nullptr;
  const Config* config = nullptr;  // may be nullptr (then no public URL, version from the build)
  std::filesystem::path templates_dir;
  std::filesystem::path locales_dir;
};

inline constexpr const char* kSessionCookie = "peto_session";
inline constexpr const char* kFlashCookie = "peto_flash";

// A message for the next page the visitor sees ("Saved.", "Moved to the
// trash."), carried across the redirect after a POST by a cookie that the
// next render() shows once and clears. The layout shows it at the top of
// the page, with a button that undoes the change when there is one.
struct Flash {
  std::string kind = "success";  // success | info | error
  std::string message;           // already in the visitor's language
  std::string undo_action;       // a POST that undoes the change ("/trash/4/restore"), or ""
  std::string undo_label;
  std::string link_href;  // a page that says more ("/trash"), or ""
  std::string link_label;

  static Flash of(std::string kind, std::string message) {
    Flash f;
    f.kind = std::move(kind);
    f.message = std::move(message);
    return f;
  }
};

class Site {
 public:
  explicit Site(const SiteDeps& deps);
  Status load();  // templates and catalogue

  using PageFn = std::function<Response(Request&, const Visitor&)>;
  // Its body is read only for a live session: without one the request is
  // answered on its headers (Guarded::admit), as the handler would answer it.
  Guarded signed_in(PageFn fn) const;
  Guarded admin_only(PageFn fn) const;
  // A form of a signed-out visitor (sign-in, an invitation): `fn` runs only
  // when the form's `csrf` field matches the `peto_form` cookie that
  // render_public set with the page, so another site cannot post it in the
  // visitor's browser (login CSRF); else the public 403 "form has expired".
  // Its body is kSignedOutFormBytes at most.
  Guarded signed_out_form(Handler fn) const;
  static constexpr std::size_t kSignedOutFormBytes = 16 * 1024;

  Response render(const Request& r, const Visitor& v, int status, const std::string& page,
                  nlohmann::json data) const;
  // For pages without a session (sign-in, invites, errors): the language
  // comes from Accept-Language; no navigation. The page's `csrf` is the
  // browser's `peto_form` cookie, set here when it has none (see
  // signed_out_form).
  Response render_public(const Request& r, int status, const std::string& page,
                         nlohmann::json data) const;
  Response not_found(const Request& r, const Visitor& v) const;
  Response not_found_public(const Request& r) const;
  // The error page the router uses (install with router.set_error_page).
  ErrorPage error_page() const;
  static Response redirect(const std::string& location);  // 303 See Other
  // The same, with `flash` for the page it leads to.
  Response redirect(const Request& r, const std::string& location, const Flash& flash) const;
  // The Set-Cookie value that carries `flash` to the next page.
  std::string flash_cookie(const Request& r, const Flash& flash) const;
  // The message a visitor's catalogue has for `key`, with "{name}" filled.
  std::string say(const Visitor& v, const std::string& key,
                  const std::map<std::string, std::string>& vars = {}) const;

  domain::Accounts& accounts() const { return *accounts_; }
  domain::TwoFactor& two_factor() const { return *two_factor_; }
  sso::Oidc& oidc() const { return *oidc_; }
  const Catalogue& catalogue() const { return catalogue_; }
  const Templates& templates() const { return templates_; }
  const Clock& clock() const { return *deps_.clock; }
  store::Db& db() const { return *deps_.db; }
  const Config* config() const { return deps_.config; }
  // The configuration, or the defaults when the site was made without one.
  const Config& settings() const;

  // `utc_ms` in the visitor's time zone, "YYYY-MM-DD HH:MM".
  std::string format_time(const Visitor& v, std::int64_t utc_ms) const;
  // FieldErrors as {field: translated message}, for a template's `errors`.
  nlohmann::json error_texts(const Visitor* v, const Request& r,
                             const domain::FieldErrors& errors) const;
  // Whether the browser reaches peto over HTTPS: a trusted proxy says so
  // (Request::scheme), or PETO_PUBLIC_URL is https:// and the request is for
  // its host. Cookies are Secure only then: a browser drops a Secure cookie
  // on plain HTTP (a NAS opened as http://peto.lan:8080), and sign-in would
  // lead back to an empty form.
  bool over_https(const Request& r) const;
  // A Set-Cookie value: Path=/, HttpOnly, SameSite=Lax, Secure when
  // over_https, and Max-Age when given (else it lasts the browser session).
  std::string cookie(const Request& r, std::string_view name, std::string_view value,
                     std::optional<std::int64_t> max_age_s = std::nullopt) const;
  // True when a password typed on this page would cross the network
  // unencrypted: plain HTTP to a host that is not this machine's loopback.
  bool password_in_clear(const Request& r) const;
  // The language for a request without a session.
  std::string public_language(const Request& r) const;
  // The visitor of the request's session cookie, if it has a live one.
  std::optional<Visitor> visitor(const Request& r) const;
  // For a streamed upload (Spool::admit), on its headers alone: the
  // visitor's account holds it when the session cookie names a live session
  // (one upload at a time each), else the answer signed_in() gives a visitor
  // without one.
  Admission admit_upload(const Request& r) const;

 private:
  SiteDeps deps_;
  Templates templates_;
  Catalogue catalogue_;
  // Per language: {"t": messages, "lang": code} converted once for the
  // templates, so a render does not copy the catalogue.
  std::map<std::string, std::shared_ptr<const Templates::Shared>> shared_;
  const Templates::Shared* shared_for(const std::string& lang) const;
  std::unique_ptr<domain::Accounts> accounts_;
  std::unique_ptr<domain::TwoFactor> two_factor_;
  std::unique_ptr<sso::Oidc> oidc_;
};

// The value of cookie `name` in the request's Cookie header(s); "" if absent.
std::string cookie_value(const Request& r, std::string_view name);
// Percent-encodes everything but unreserved characters and '/'.
std::string url_encode(std::string_view text);

// A bookmark ("javascript:…") that opens /captures with the current tab's
// link filled in, for this site as the request reached it (PETO_PUBLIC_URL,
// else its Host); "" when neither is usable. In capture_pages.cpp.
std::string capture_bookmarklet(const Site& site, const Request& r);
// Where kept capture pages live (Config::pages_dir, or the default without a
// Config). In capture_pages.cpp; the web and API captures share it.
std::filesystem::path pages_dir(const Site& site);

// /signin, /signout, /invite/{token}, /profile…, /admin/invites.
void add_account_routes(Router& router, Site& site);
// Ends the API tokens and the calendar feed address of `user_id` (they work
// without the password) and logs `why` with how many went: after a password
// change or a recovery, when the person chose it. In account_pages.cpp.
void end_keys_of(Site& site, std::int64_t user_id, const char* why);
// /recover/{token}, /profile/sessions, /admin (pages/security_pages.cpp).
void add_security_routes(Router& router, Site& site);
// /profile/two-factor: turning two-step sign-in on and off, recovery codes
// (pages/two_factor_pages.cpp). The sign-in's second step is in account_pages.cpp.
void add_two_factor_routes(Router& router, Site& site);
// /profile/tokens: the visitor's API tokens (pages/token_pages.cpp).
void add_token_routes(Router& router, Site& site);
// /profile/connections (notifier connections) and /inbox (pages/connection_pages.cpp).
void add_connection_routes(Router& router, Site& site);
// /trash and its Restore buttons (pages/trash_pages.cpp).
void add_trash_routes(Router& router, Site& site);
// /documents: uploads, versions, downloads (pages/document_pages.cpp).
void add_document_routes(Router& router, Site& site);
// /profile/export and /profile/import: the person's data as a zip (pages/export_pages.cpp).
void add_export_routes(Router& router, Site& site);
// POST /documents/{id}/copies/{copy_id}/send: "Send now" (pages/copy_pages.cpp).
void add_copy_routes(Router& router, Site& site);
// The "Documents" part of an application's or a listing's page: the documents
// attached to it, the upload link and (for an application) "Record as sent";
// templates/document_section.mustache shows it.
nlohmann::json document_section(Site& site, const Visitor& v, const std::string& subject_kind,
                                std::int64_t subject_id);

}  // namespace peto::web
