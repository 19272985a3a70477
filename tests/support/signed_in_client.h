// SignedInClient: one signed-in person talking to a running test server.
//
//   SignedInClient ana(web.port(), site.accounts(), "ana@example.com");
//   auto page = ana.get("/profile");
//   auto saved = ana.post_form("/profile", {{"time_zone", "Europe/Lisbon"}, ...});
//
// The constructor creates the account through domain::Accounts when it does
// not exist yet (the first one is the admin), signs in through the sign-in
// form (post_signed_out_form),
// keeps the session cookie, and scrapes the CSRF token from a page's hidden
// `name="csrf"` input; post_form adds it. Sign-in counts against the sign-in
// rate limit (10 a minute from 127.0.0.1): a test that signs in more people
// advances its FakeClock a minute, or uses SignedInClient::with_session,
// which opens the session directly. Password hashing must be cheap in tests:
// call domain::set_password_cost(domain::PasswordCost::test) first.
#pragma once

#include <strings.h>

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "domain/accounts.h"
#include "tests/support/http_client.h"

namespace peto::testing {

using FormFields = std::vector<std::pair<std::string, std::string>>;

// application/x-www-form-urlencoded
inline std::string form_body(const FormFields& fields) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const auto& [k, v] : fields) {
    if (!out.empty()) out += '&';
    for (const std::string* s : {&k, &v}) {
      for (unsigned char c : *s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
          out += static_cast<char>(c);
        } else if (c == ' ') {
          out += '+';
        } else {
          out += '%';
          out += hex[c >> 4];
          out += hex[c & 15];
        }
      }
      if (s == &k) out += '=';
    }
  }
  return out;
}

// The value of the first `name="csrf"` hidden input in `html`, "" if none.
inline std::string scrape_csrf(const std::string& html) {
  const std::string marker = "name=\"csrf\" value=\"";
  std::size_t at = html.find(marker);
  if (at == std::string::npos) return {};
  at += marker.size();
  return html.substr(at, html.find('"', at) - at);
}

// The value of the cookie `name` a response sets, "" if none.
inline std::string cookie_of(const ClientResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k.size() != 10 || strncasecmp(k.c_str(), "set-cookie", 10) != 0) continue;
    if (v.rfind(name + "=", 0) != 0) continue;
    return v.substr(name.size() + 1, v.find(';') - name.size() - 1);
  }
  return {};
}

// The value of the `peto_session` cookie a response sets, "" if none.
inline std::string session_cookie_of(const ClientResponse& r) {
  return cookie_of(r, "peto_session");
}

// A signed-out visitor's form (sign-in, an invitation) as a browser sends it:
// GET `page` for its `peto_form` cookie and `csrf` field, then POST `fields`
// to `action` (default: `page`) with both. `cookie` adds to the Cookie header.
inline ClientResponse post_signed_out_form(std::uint16_t port, const std::string& page,
                                           FormFields fields, const std::string& action = "",
                                           const std::string& cookie = "") {
  auto form = http_request(port, "GET", page);
  const std::string token = cookie_of(form, "peto_form");
  fields.emplace_back("csrf", scrape_csrf(form.body));
  std::string cookies = "peto_form=" + token;
  if (!cookie.empty()) cookies += "; " + cookie;
  return http_request(port, "POST", action.empty() ? page : action, form_body(fields),
                      {{"Content-Type", "application/x-www-form-urlencoded"}, {"Cookie", cookies}});
}

class SignedInClient {
 public:
  static constexpr const char* kPassword = "a long enough password";

  SignedInClient(std::uint16_t port, domain::Accounts& accounts, const std::string& email,
                 const std::string& password = kPassword, bool admin = false)
      : port_(port) {
    account_ = ensure_account(accounts, email, password, admin);
    auto r = post_signed_out_form(port_, "/signin", {{"email", email}, {"password", password}});
    if (r.status != 303) {
      throw std::runtime_error("sign-in of " + email + " answered " + std::to_string(r.status));
    }
    cookie_ = session_cookie_of(r);
    refresh_csrf();
  }

  // Signs in without POST /signin (no rate limit): the session is opened directly.
  static SignedInClient with_session(std::uint16_t port, domain::Accounts& accounts,
                                     const std::string& email, bool admin = false) {
    SignedInClient c(port);
    c.account_ = ensure_account(accounts, email, kPassword, admin);
    auto s = accounts.open_session(c.account_.id);
    c.cookie_ = s.token;
    c.csrf_ = s.csrf_token;
    return c;
  }

  ClientResponse get(const std::string& path) const {
    return http_request(port_, "GET", path, "", headers());
  }

  ClientResponse post_form(const std::string& path, FormFields fields) const {
    fields.emplace_back("csrf", csrf_);
    auto h = headers();
    h.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    return http_request(port_, "POST", path, form_body(fields), h);
  }

  // A request exactly as given (no csrf added), with the session cookie.
  ClientResponse request(const std::string& method, const std::string& path,
                         const std::string& body = "",
                         std::vector<std::pair<std::string, std::string>> extra = {}) const {
    auto h = headers();
    for (auto& e : extra) h.push_back(std::move(e));
    return http_request(port_, method, path, body, h);
  }

  // Reads the CSRF token again from /profile (every signed-in page has it).
  void refresh_csrf() {
    auto page = get("/profile");
    csrf_ = scrape_csrf(page.body);
    if (csrf_.empty()) throw std::runtime_error("no csrf field on /profile");
  }

  const domain::Account& account() const { return account_; }
  const std::string& cookie() const { return cookie_; }
  const std::string& csrf() const { return csrf_; }

 private:
  explicit SignedInClient(std::uint16_t port) : port_(port) {}

  static domain::Account ensure_account(domain::Accounts& accounts, const std::string& email,
                                        const std::string& password, bool admin) {
    if (auto existing = accounts.find_by_email(email)) return *existing;
    auto made = accounts.create(email, password, admin);
    if (!std::holds_alternative<domain::Account>(made)) {
      throw std::runtime_error("could not create the account " + email);
    }
    return std::get<domain::Account>(made);
  }

  std::vector<std::pair<std::string, std::string>> headers() const {
    return {{"Cookie", "peto_session=" + cookie_}};
  }

  std::uint16_t port_;
  domain::Account account_;
  std::string cookie_;
  std::string csrf_;
};

}  // namespace peto::testing
