// Sign-in through an OpenID Connect provider (Authentik, Keycloak, Kanidm,
// Google …), configured by PETO_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET,
// _SCOPES, _AUTO_REGISTER and _NAME.
//
//   sso::Oidc oidc(db, clock, config);
//   auto go = oidc.start(redirect_uri, "/board");    // 303 to go->location; cookie go->state
//   …the provider sends the browser back with ?code=…&state=…
//   auto who = oidc.finish(state, cookie_state, code, redirect_uri);
//   auto account = oidc.account_for(*who);            // or the reason there is none
//
// The authorization code flow with PKCE (S256), a `state` bound to the
// browser by a cookie and kept (hashed) in the database for ten minutes,
// used once, and a `nonce` the ID token must carry. The provider's discovery
// document and keys are fetched through net::HttpClient (private addresses
// allowed: the administrator chose the provider) and kept an hour; the
// keys are fetched again when a token names one peto does not have. The ID
// token is checked by sso/id_token.h.
//
// Who a verified identity is: the account linked to its (issuer, subject),
// never the e-mail address alone. The first time, an existing account is
// linked only when the provider says `email_verified: true` (a JSON true, not
// a string) for that account's address; otherwise, with
// PETO_OIDC_AUTO_REGISTER and a verified address, a new account without a
// password is made. Linking and registering are security events. State is in
// the Db (and a cache of public documents): thread-safe, any node can finish
// a sign-in another started.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "domain/accounts.h"
#include "net/http.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::sso {

inline constexpr std::int64_t kLoginMinutes = 10;

struct Identity {
  std::string subject;
  std::string email;  // "" when the provider gave none
  bool email_verified = false;
  std::string next;  // where the sign-in was going
};

class Oidc {
 public:
  Oidc(store::Db& db, const Clock& clock, const Config& config,
       net::HttpClient http = net::HttpClient());
  static std::vector<store::Migration> migrations();

  bool enabled() const { return !config_.oidc_issuer.empty(); }
  // "Sign in with …": PETO_OIDC_NAME, or "" for the page's own words.
  const std::string& name() const { return config_.oidc_name; }

  struct Start {
    std::string location;  // the provider's authorization address
    std::string state;     // for the browser's cookie
  };
  // Status::unavailable when the provider cannot be reached or its discovery
  // document is unusable.
  Result<Start> start(const std::string& redirect_uri, const std::string& next);

  // `state` from the address, `browser_state` from the cookie. Status::invalid
  // for a state that is not this browser's, unknown, expired or used (a
  // replay), a code the provider refuses, or an ID token that fails a check;
  // Status::unavailable when the provider cannot be reached.
  Result<Identity> finish(const std::string& state, const std::string& browser_state,
                          const std::string& code, const std::string& redirect_uri);

  // The account the identity signs in, or the catalogue key that says why
  // none: "error_oidc_no_account", "error_oidc_unverified",
  // "error_oidc_inactive".
  std::variant<domain::Account, std::string> account_for(const Identity& identity);

 private:
  Result<nlohmann::json> fetch_json(const std::string& url);
  Result<nlohmann::json> discovery();
  Result<nlohmann::json> keys(bool fresh);

  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
  net::HttpClient http_;
  std::mutex mutex_;  // guards the two cached documents
  std::optional<nlohmann::json> discovery_;
  std::string discovery_issuer_;  // the issuer it is of (the configuration may change in tests)
  std::int64_t discovery_at_ = 0;
  std::optional<nlohmann::json> keys_;
  std::int64_t keys_at_ = 0;
};

}  // namespace peto::sso
