// The profile's two-step sign-in page (/profile/two-factor): setting it up
// with an authenticator app (a QR code, or the key to type), recovery codes,
// trusted browsers, turning it off. See domain/two_factor.h; the sign-in's
// second step is in account_pages.cpp.
#include <qrencode.h>

#include <memory>
#include <string>

#include "core/log.h"
#include "domain/two_factor.h"
#include "http/form.h"
#include "pages/site.h"

namespace peto::web {

namespace {

using nlohmann::json;

constexpr int kQuietZone = 4;  // modules of white around the code, as the standard asks

// `text` as a QR code in SVG: black modules on white whatever the page's
// colours (a scanner needs the contrast), one path, sized by the page's CSS.
// Error correction M, the level authenticator apps' own examples use. The
// template names it for screen readers (role="img" on its frame).
std::string qr_svg(const std::string& text) {
  std::unique_ptr<QRcode, decltype(&QRcode_free)> code(
      QRcode_encodeString(text.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1), &QRcode_free);
  if (!code) return "";
  const int width = code->width;
  const int size = width + 2 * kQuietZone;
  std::string path;
  for (int y = 0; y < width; ++y) {
    for (int x = 0; x < width; ++x) {
      if ((code->data[y * width + x] & 1) == 0) continue;
      path +=
          "M" + std::to_string(x + kQuietZone) + " " + std::to_string(y + kQuietZone) + "h1v1h-1z";
    }
  }
  const std::string box = std::to_string(size);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"qr\" viewBox=\"0 0 " + box + " " + box +
         "\" aria-hidden=\"true\" focusable=\"false\" shape-rendering=\"crispEdges\"><rect "
         "width=\"" +
         box + "\" height=\"" + box + "\" fill=\"#fff\"/><path fill=\"#000\" d=\"" + path +
         "\"/></svg>";
}

// The key in groups of four, as it is easiest to type.
std::string grouped(const std::string& secret) {
  std::string out;
  for (std::size_t i = 0; i < secret.size(); ++i) {
    if (i > 0 && i % 4 == 0) out += ' ';
    out += secret[i];
  }
  return out;
}

Response page(Site& site, const Request& r, const Visitor& v, int status, json data) {
  Response out = site.render(r, v, status, "two_factor", std::move(data));
  // Secrets and recovery codes stay out of every cache.
  out.set_header("Cache-Control", "no-store");
  return out;
}

Response status_page(Site& site, const Request& r, const Visitor& v, int status,
                     const domain::FieldErrors& errors = {}) {
  const auto state = site.two_factor().state(v.account.id);
  json data = {{"status", true}, {"on", state.on}, {"errors", site.error_texts(&v, r, errors)}};
  if (state.on) {
    data["since"] = site.format_time(v, state.since);
    data["codes_left"] = site.say(v, "two_factor_codes_left",
                                  {{"count", std::to_string(state.recovery_codes_left)},
                                   {"total", std::to_string(domain::kRecoveryCodeCount)}});
    data["few_codes"] = state.recovery_codes_left <= 3;
    data["has_trusted"] = state.trusted_browsers > 0;
    data["trusted"] = state.trusted_browsers == 0
                          ? site.say(v, "two_factor_trusted_none")
                          : site.say(v, "two_factor_trusted_count",
                                     {{"count", std::to_string(state.trusted_browsers)}});
  }
  return page(site, r, v, status, std::move(data));
}

// The setup step: the QR code, the key, and the field for the first code.
Response setup_page(Site& site, const Request& r, const Visitor& v, int status,
                    const domain::Enrolment& enrolment, const domain::FieldErrors& errors = {}) {
  json data = {{"setup", true},
               {"qr", qr_svg(enrolment.uri)},
               {"secret", grouped(enrolment.secret)},
               {"uri", enrolment.uri},
               {"errors", site.error_texts(&v, r, errors)}};
  return page(site, r, v, status, std::move(data));
}

Response codes_page(Site& site, const Request& r, const Visitor& v,
                    const std::vector<std::string>& codes, bool first) {
  return page(site, r, v, 200, {{"has_codes", true}, {"codes", codes}, {"first", first}});
}

Response post_setup(Site& site, Request& r, const Visitor& v) {
  auto enrolment = site.two_factor().begin(v.account.id, v.account.email);
  if (!enrolment) return Site::redirect("/profile/two-factor");
  return setup_page(site, r, v, 200, *enrolment);
}

Response post_confirm(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  auto confirmed = site.two_factor().confirm(v.account.id, f.get("code"));
  if (auto* errors = std::get_if<domain::FieldErrors>(&confirmed)) {
    auto enrolment = site.two_factor().pending(v.account.id, v.account.email);
    if (!enrolment) {
      return site.redirect(r, "/profile/two-factor",
                           Flash::of("error", site.say(v, "error_totp_not_pending")));
    }
    return setup_page(site, r, v, 422, *enrolment, *errors);
  }
  log::info("web", "two-step sign-in on", {{"user", v.account.id}});
  return codes_page(site, r, v, std::get<std::vector<std::string>>(confirmed), true);
}

// New recovery codes and turning off both ask for the password again: a
// browser left signed in is not enough to weaken the account.
// `field` names the form's password field.
bool password_again(Site& site, const Form& f, const std::string& field, const Visitor& v,
                    domain::FieldErrors& errors) {
  if (site.accounts().check_password(v.account.email, f.get(field))) return true;
  errors.add(field, "error_password_wrong");
  return false;
}

Response post_new_codes(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  domain::FieldErrors errors;
  if (!password_again(site, f, "codes_password", v, errors)) {
    return status_page(site, r, v, 422, errors);
  }
  auto codes = site.two_factor().new_recovery_codes(v.account.id);
  if (codes.empty()) return Site::redirect("/profile/two-factor");
  log::info("web", "new recovery codes", {{"user", v.account.id}});
  return codes_page(site, r, v, codes, false);
}

Response post_off(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  domain::FieldErrors errors;
  if (!password_again(site, f, "off_password", v, errors)) {
    return status_page(site, r, v, 422, errors);
  }
  site.two_factor().turn_off(v.account.id, v.account.id);
  log::info("web", "two-step sign-in off", {{"user", v.account.id}});
  return site.redirect(r, "/profile/two-factor",
                       Flash::of("success", site.say(v, "two_factor_flash_off")));
}

Response post_forget_browsers(Site& site, Request& r, const Visitor& v) {
  const auto forgotten = site.two_factor().forget_trusted_browsers(v.account.id);
  return site.redirect(r, "/profile/two-factor",
                       Flash::of("success", site.say(v, "two_factor_flash_forgotten",
                                                     {{"count", std::to_string(forgotten)}})));
}

}  // namespace

void add_two_factor_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("GET", "/profile/two-factor", site.signed_in([s](Request& r, const Visitor& v) {
    return status_page(*s, r, v, 200);
  }),
             "Two-step sign-in");
  router.add("POST", "/profile/two-factor/setup",
             site.signed_in([s](Request& r, const Visitor& v) { return post_setup(*s, r, v); }),
             "Start setting up two-step sign-in: a new key and its QR code");
  router.add("POST", "/profile/two-factor/confirm",
             site.signed_in([s](Request& r, const Visitor& v) { return post_confirm(*s, r, v); }),
             "Turn two-step sign-in on with a first code");
  router.add("POST", "/profile/two-factor/codes",
             site.signed_in([s](Request& r, const Visitor& v) { return post_new_codes(*s, r, v); }),
             "Replace the recovery codes");
  router.add("POST", "/profile/two-factor/off",
             site.signed_in([s](Request& r, const Visitor& v) { return post_off(*s, r, v); }),
             "Turn two-step sign-in off");
  router.add(
      "POST", "/profile/two-factor/forget-browsers",
      site.signed_in([s](Request& r, const Visitor& v) { return post_forget_browsers(*s, r, v); }),
      "Ask for a code again in every trusted browser");
}

}  // namespace peto::web
