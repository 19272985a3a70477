#include "pages/site.h"

#include <sodium.h>

#include "core/log.h"
#include "core/text.h"
#include "core/timezone.h"
#include "core/token.h"
#include "core/utf8.h"
#include "http/form.h"
#include "http/multipart.h"
#include "net/percent.h"
#include "notify/outbox.h"

namespace peto::web {

namespace {

struct NavItem {
  const char* key;
  const char* href;
  bool more = false;  // under "More", to keep the header to one line
};
// Every kind of record a person keeps has its place here; the profile is in
// the account menu at the right (layout.mustache).
constexpr NavItem kNav[] = {
    {"nav_dashboard", "/"},
    {"nav_listings", "/listings"},
    {"nav_applications", "/applications"},
    {"nav_calendar", "/calendar"},
    {"nav_reminders", "/reminders"},
    {"title_insights", "/insights", true},
    {"title_report", "/report", true},
    {"nav_contacts", "/contacts", true},
    {"nav_captures", "/captures", true},
    {"title_interviews", "/interviews", true},
    {"title_offers", "/offers", true},
    {"nav_companies", "/companies", true},
    {"nav_documents", "/documents", true},
    {"title_notes", "/notes", true},
    {"title_tags", "/tags", true},
    {"title_career", "/career", true},
    {"title_cvs", "/cvs", true},
    {"title_letters", "/letters", true},
};

bool in_section(const std::string& path, const std::string& href) {
  if (href == "/") return path == "/";
  return path == href || path.starts_with(href + "/");
}

bool unsafe_method(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// The `peto_form` cookie of a signed-out visitor: 32 hex digits.
constexpr const char* kFormCookie = "peto_form";
bool is_form_token(const std::string& token) {
  return token.size() == 32 && token.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool same_token(const std::string& a, const std::string& b) {
  if (a.empty() || a.size() != b.size()) return false;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

// The CSRF token the request carries: the header, else the form field.
std::string sent_csrf(const Request& r) {
  if (const std::string* h = r.header("X-CSRF-Token")) return *h;
  // An upload form (http/multipart.h): its text fields, read in chunks.
  if (const std::string* type = r.header("Content-Type");
      type && !multipart_boundary(*type).empty()) {
    Form fields;
    if (!read_multipart(r, fields, nullptr)) return {};
    return fields.get("csrf");
  }
  return Form::parse(r).get("csrf");
}

// The layout's bell: a link to /inbox with the unread count. One indexed
// COUNT per page; a database without the inbox yet (or one that just failed)
// shows the bell without a count rather than failing the page.
nlohmann::json inbox_bell(store::Db& db, const Catalogue& catalogue, const Visitor& v) {
  std::int64_t unread = 0;
  try {
    auto conn = db.acquire();
    unread = notify::Outbox::unread(*conn, v.account.id);
  } catch (const store::Error&) {
    unread = 0;
  }
  std::string label = unread == 0   ? catalogue.text(v.language, "inbox_bell_none")
                      : unread == 1 ? catalogue.text(v.language, "inbox_bell_one")
                                    : catalogue.fill(v.language, "inbox_bell_other",
                                                     {{"count", std::to_string(unread)}});
  return {{"count", std::to_string(unread)}, {"has_unread", unread > 0}, {"label", label}};
}

void fill_title(nlohmann::json& data, const nlohmann::json& t, const std::string& page) {
  if (data.contains("title")) return;
  auto it = t.find("title_" + page);
  data["title"] = it == t.end() ? std::string() : it->get<std::string>();
}

// The flash a redirect left for this page, as the layout shows it; null
// when there is none.
nlohmann::json flash_of(const Request& r) {
  std::string value = cookie_value(r, kFlashCookie);
  if (value.empty()) return nullptr;
  Form f = Form::decode(value);
  const std::string kind = f.get("k");
  if (f.get("m").empty() || (kind != "success" && kind != "info" && kind != "error"))
    return nullptr;
  nlohmann::json out = {{"kind", kind}, {"message", f.get("m")}};
  // Only peto's own paths: the cookie is the visitor's to change.
  if (f.get("u").starts_with('/') && !f.get("u").starts_with("//"))
    out["undo"] = {{"action", f.get("u")}, {"label", f.get("ul")}};
  if (f.get("l").starts_with('/') && !f.get("l").starts_with("//"))
    out["link"] = {{"href", f.get("l")}, {"label", f.get("ll")}};
  return out;
}

}  // namespace

std::string cookie_value(const Request& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k.size() != 6 || strncasecmp(k.c_str(), "cookie", 6) != 0) continue;
    std::string_view rest = v;
    while (!rest.empty()) {
      std::size_t semi = rest.find(';');
      std::string_view item = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      std::size_t eq = item.find('=');
      if (eq != std::string_view::npos && item.substr(0, eq) == name) {
        return std::string(item.substr(eq + 1));
      }
    }
  }
  return {};
}

std::string url_encode(std::string_view text) { return net::percent_encode(text, true); }

namespace {

// The host of a Host header or URL authority, without port or brackets,
// lower-cased.
std::string host_name(std::string_view authority) {
  if (authority.starts_with('[')) {
    std::size_t close = authority.find(']');
    authority = close == std::string_view::npos ? authority : authority.substr(1, close - 1);
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    authority = authority.substr(0, colon);
  }
  return text::lower(authority);
}

// The authority of PETO_PUBLIC_URL, "" when it is not https://.
std::string_view https_authority(const Config* config) {
  constexpr std::string_view kHttps = "https://";
  if (!config || !config->public_url.starts_with(kHttps)) return {};
  std::string_view rest = std::string_view(config->public_url).substr(kHttps.size());
  return rest.substr(0, rest.find('/'));
}

}  // namespace

bool Site::over_https(const Request& r) const {
  if (r.scheme == "https") return true;
  std::string_view authority = https_authority(deps_.config);
  const std::string* host = r.header("Host");
  return !authority.empty() && host && host_name(*host) == host_name(authority);
}

std::string Site::cookie(const Request& r, std::string_view name, std::string_view value,
                         std::optional<std::int64_t> max_age_s) const {
  std::string out = std::string(name) + "=" + std::string(value) + "; Path=/; HttpOnly";
  if (over_https(r)) out += "; Secure";
  out += "; SameSite=Lax";
  if (max_age_s) out += "; Max-Age=" + std::to_string(*max_age_s);
  return out;
}

bool Site::password_in_clear(const Request& r) const {
  if (over_https(r)) return false;
  const std::string* host = r.header("Host");
  if (!host) return false;
  const std::string name = host_name(*host);
  return name != "localhost" && !name.ends_with(".localhost") && name != "::1" &&
         !name.starts_with("127.");
}

Site::Site(const SiteDeps& deps)
    : deps_(deps),
      templates_(deps.templates_dir,
                 nlohmann::json{{"product", "peto"}, {"version", PETO_VERSION}}),
      catalogue_(deps.locales_dir),
      accounts_(std::make_unique<domain::Accounts>(*deps.db, *deps.clock)),
      two_factor_(
          std::make_unique<domain::TwoFactor>(*deps.db, *deps.clock, settings().secret_key)),
      oidc_(std::make_unique<sso::Oidc>(*deps.db, *deps.clock, settings())) {}

Status Site::load() {
  if (Status s = templates_.load(); !s) return s;
  if (Status s = catalogue_.load(); !s) return s;
  for (const std::string& lang : catalogue_.languages())
    shared_[lang] = templates_.share({{"t", catalogue_.messages(lang)}, {"lang", lang}});
  return Status::ok();
}

const Templates::Shared* Site::shared_for(const std::string& lang) const {
  auto it = shared_.find(lang);
  if (it == shared_.end()) it = shared_.find("en");
  return it == shared_.end() ? nullptr : it->second.get();
}

std::optional<Visitor> Site::visitor(const Request& r) const {
  std::string token = cookie_value(r, kSessionCookie);
  if (token.empty()) return std::nullopt;
  auto info = accounts_->session(token);
  if (!info) return std::nullopt;
  Visitor v;
  v.language = catalogue_.choose(info->account.language, r.header("Accept-Language"));
  v.time_zone = info->account.time_zone;
  v.csrf_token = info->csrf_token;
  v.account = std::move(info->account);
  return v;
}

Admission Site::admit_upload(const Request& r) const {
  if (auto v = visitor(r)) return {std::nullopt, "account:" + std::to_string(v->account.id)};
  Response out = redirect("/signin?next=" + url_encode("/"));
  out.set_header("Cache-Control", "no-store");
  return {std::move(out)};
}

namespace {

// Where signed_in sends a request without a live session.
Response to_signin(const Request& r) {
  std::string next = r.method == "GET" ? r.target : std::string("/");
  Response out = Site::redirect("/signin?next=" + url_encode(next));
  out.set_header("Cache-Control", "no-store");
  return out;
}

}  // namespace

Guarded Site::signed_in(PageFn fn) const {
  Guarded page;
  page.admit = [this](const Request& r) -> std::optional<Response> {
    if (visitor(r)) return std::nullopt;
    return to_signin(r);
  };
  page.handler = [this, fn = std::move(fn)](Request& r) {
    auto v = visitor(r);
    if (!v) return to_signin(r);
    Response out;
    if (unsafe_method(r.method) && !same_token(sent_csrf(r), v->csrf_token)) {
      const auto& t = catalogue_.messages(v->language);
      out = render(r, *v, 403, "error",
                   {{"title", t.value("error_csrf_title", "")},
                    {"status", 403},
                    {"detail", t.value("error_csrf", "")}});
    } else {
      out = fn(r, *v);
    }
    out.set_header("Cache-Control", "no-store");
    return out;
  };
  return page;
}

Guarded Site::admin_only(PageFn fn) const {
  return signed_in([this, fn = std::move(fn)](Request& r, const Visitor& v) {
    if (!v.account.is_admin) return not_found(r, v);
    return fn(r, v);
  });
}

Response Site::render(const Request& r, const Visitor& v, int status, const std::string& page,
                      nlohmann::json data) const {
  const nlohmann::json& t = catalogue_.messages(v.language);
  data["lang"] = v.language;
  data["csrf"] = v.csrf_token;
  data["visitor"] = {{"email", v.account.email}, {"is_admin", v.account.is_admin}};
  data["has_nav"] = true;
  nlohmann::json nav = nlohmann::json::array();
  nlohmann::json more = nlohmann::json::array();
  std::string more_label = t.value("nav_more", "More");
  bool more_current = false;
  for (const auto& item : kNav) {
    const bool current = in_section(r.path, item.href);
    const std::string label = t.value(item.key, item.key);
    (item.more ? more : nav)
        .push_back({{"label", label}, {"href", item.href}, {"current", current}});
    // The folded menu is named after the section it holds the reader in.
    if (item.more && current) {
      more_label = label;
      more_current = true;
    }
  }
  data["nav"] = std::move(nav);
  data["nav_more"] = {{"items", std::move(more)}, {"label", more_label}, {"current", more_current}};
  data["profile_current"] = in_section(r.path, "/profile");
  data["quick_add_current"] = r.path == "/quick-add";
  data["bell"] = inbox_bell(*deps_.db, catalogue_, v);
  data["bell"]["current"] = r.path == "/inbox";
  fill_title(data, t, page);
  const bool flashed = r.header("Cookie") != nullptr && !cookie_value(r, kFlashCookie).empty();
  if (flashed && !data.contains("flash")) data["flash"] = flash_of(r);
  Response out = Response::html(status, templates_.render_page(page, data, shared_for(v.language)));
  if (flashed) out.headers.emplace_back("Set-Cookie", cookie(r, kFlashCookie, "", 0));
  return out;
}

std::string Site::public_language(const Request& r) const {
  return catalogue_.choose("", r.header("Accept-Language"));
}

Response Site::render_public(const Request& r, int status, const std::string& page,
                             nlohmann::json data) const {
  std::string lang = public_language(r);
  const nlohmann::json& t = catalogue_.messages(lang);
  data["lang"] = lang;
  data["has_nav"] = false;
  fill_title(data, t, page);
  std::string form_token = cookie_value(r, kFormCookie);
  const bool fresh = !is_form_token(form_token);
  if (fresh) form_token = random_token();
  data["csrf"] = form_token;
  Response out = Response::html(status, templates_.render_page(page, data, shared_for(lang)));
  if (fresh) out.headers.emplace_back("Set-Cookie", cookie(r, kFormCookie, form_token));
  return out;
}

Guarded Site::signed_out_form(Handler fn) const {
  Guarded form;
  form.max_body_bytes = kSignedOutFormBytes;
  form.handler = [this, fn = std::move(fn)](Request& r) {
    const std::string cookie = cookie_value(r, kFormCookie);
    if (unsafe_method(r.method) &&
        (!is_form_token(cookie) || !same_token(Form::parse(r).get("csrf"), cookie))) {
      const auto& t = catalogue_.messages(public_language(r));
      Response out = render_public(r, 403, "error",
                                   {{"title", t.value("error_csrf_title", "")},
                                    {"status", 403},
                                    {"detail", t.value("error_csrf", "")}});
      out.set_header("Cache-Control", "no-store");
      return out;
    }
    return fn(r);
  };
  return form;
}

Response Site::not_found(const Request& r, const Visitor& v) const {
  const auto& t = catalogue_.messages(v.language);
  return render(r, v, 404, "error",
                {{"title", t.value("error_not_found_title", "")},
                 {"status", 404},
                 {"detail", t.value("error_not_found", "")}});
}

Response Site::not_found_public(const Request& r) const {
  const auto& t = catalogue_.messages(public_language(r));
  return render_public(r, 404, "error",
                       {{"title", t.value("error_not_found_title", "")},
                        {"status", 404},
                        {"detail", t.value("error_not_found", "")}});
}

ErrorPage Site::error_page() const {
  return [this](const Request& r, int status, const std::string& title, const std::string& detail) {
    try {
      nlohmann::json data = {{"title", title}, {"status", status}, {"detail", detail}};
      std::optional<Visitor> v;
      try {
        v = visitor(r);
      } catch (const std::exception&) {
        // The database may be what failed: the page goes out without a session.
      }
      return v ? render(r, *v, status, "error", data) : render_public(r, status, "error", data);
    } catch (const std::exception& e) {
      log::error("web", "error page failed", {{"error", e.what()}});
      return plain_error_page(r, status, title, detail);
    }
  };
}

Response Site::redirect(const Request& r, const std::string& location, const Flash& flash) const {
  Response out = redirect(location);
  out.headers.emplace_back("Set-Cookie", flash_cookie(r, flash));
  return out;
}

std::string Site::flash_cookie(const Request& r, const Flash& flash) const {
  std::string value;
  auto add = [&value](const char* name, const std::string& text) {
    if (text.empty()) return;
    value += (value.empty() ? "" : "&") + std::string(name) + "=" + url_encode(text);
  };
  add("k", flash.kind);
  // A browser keeps a cookie of 4 KB at most: a long title is cut.
  add("m", flash.message.substr(0, utf8_prefix(flash.message, 600)));
  add("u", flash.undo_action);
  add("ul", flash.undo_label);
  add("l", flash.link_href);
  add("ll", flash.link_label);
  return cookie(r, kFlashCookie, value, 120);
}

std::string Site::say(const Visitor& v, const std::string& key,
                      const std::map<std::string, std::string>& vars) const {
  return catalogue_.fill(v.language, key, vars);
}

Response Site::redirect(const std::string& location) {
  Response r;
  r.status = 303;
  r.set_header("Location", location);
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.body = "See " + location + "\n";
  return r;
}

const Config& Site::settings() const {
  static const Config defaults;
  return deps_.config != nullptr ? *deps_.config : defaults;
}

std::string Site::format_time(const Visitor& v, std::int64_t utc_ms) const {
  return format_local(utc_ms, v.time_zone);
}

nlohmann::json Site::error_texts(const Visitor* v, const Request& r,
                                 const domain::FieldErrors& errors) const {
  std::string lang = v != nullptr ? v->language : public_language(r);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [field, message] : errors.by_field) {
    // A message with values has its own wording, keyed by the first value's
    // name: error_too_long with {max} reads as error_too_long_max.
    auto vars = errors.vars.find(field);
    out[field] =
        vars == errors.vars.end() || vars->second.empty()
            ? catalogue_.text(lang, message)
            : catalogue_.fill(lang, message + "_" + vars->second.begin()->first, vars->second);
  }
  return out;
}

}  // namespace peto::web
