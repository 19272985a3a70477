#include "sso/oidc.h"

#include <sodium.h>

#include "core/log.h"
#include "core/token.h"
#include "net/percent.h"
#include "sso/id_token.h"

namespace peto::sso {

namespace {

using nlohmann::json;

constexpr std::int64_t kDocumentsKeptMs = 3600 * 1000;  // discovery and keys: an hour
constexpr std::size_t kMaxDocumentBytes = 512 * 1024;

std::string form_value(const std::string& name, const std::string& value) {
  return name + "=" + net::percent_encode(value);
}

// The PKCE challenge of a verifier (RFC 7636 §4.2, S256).
std::string challenge_of(const std::string& verifier) {
  std::string digest(crypto_hash_sha256_BYTES, '\0');
  crypto_hash_sha256(reinterpret_cast<unsigned char*>(digest.data()),
                     reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size());
  return base64url(digest);
}

std::string random_url_token(std::size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  return base64url(raw);
}

}  // namespace

Oidc::Oidc(store::Db& db, const Clock& clock, const Config& config, net::HttpClient http)
    : db_(db), clock_(clock), config_(config), http_(std::move(http)) {}

std::vector<store::Migration> Oidc::migrations() {
  // oidc_logins: sign-ins on their way through the provider, by the SHA-256
  // (hex) of their state; gone when used or ten minutes old.
  // oidc_identities: who an (issuer, subject) is here.
  const std::string tables =
      "CREATE TABLE oidc_logins (state_hash TEXT PRIMARY KEY, nonce TEXT NOT NULL,"
      " verifier TEXT NOT NULL, next TEXT NOT NULL, expires_at BIGINT NOT NULL);"
      "CREATE TABLE oidc_identities (issuer TEXT NOT NULL, subject TEXT NOT NULL,"
      " user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
      " email TEXT NOT NULL DEFAULT '', created_at BIGINT NOT NULL,"
      " last_used_at BIGINT NOT NULL, PRIMARY KEY (issuer, subject));"
      "CREATE INDEX oidc_identities_user ON oidc_identities (user_id);";
  return {{22, "single sign-on", tables, tables}};
}

Result<json> Oidc::fetch_json(const std::string& url) {
  net::HttpRequest request;
  request.url = url;
  request.headers = {{"Accept", "application/json"}};
  request.max_bytes = kMaxDocumentBytes;
  request.allow_private = true;  // the administrator's own provider, often on the LAN
  auto answer = http_.send(request);
  if (auto* e = std::get_if<net::HttpError>(&answer)) return Status::unavailable(e->message);
  const auto& r = std::get<net::HttpResponse>(answer);
  if (r.status != 200) {
    return Status::unavailable(url + " answered HTTP " + std::to_string(r.status));
  }
  auto parsed = json::parse(r.body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Status::unavailable(url + " is not a JSON object");
  }
  return parsed;
}

Result<json> Oidc::discovery() {
  const std::int64_t now = clock_.now_ms();
  {
    std::lock_guard lock(mutex_);
    if (discovery_ && discovery_issuer_ == config_.oidc_issuer &&
        now - discovery_at_ < kDocumentsKeptMs) {
      return *discovery_;
    }
  }
  std::string base = config_.oidc_issuer;
  while (!base.empty() && base.back() == '/') base.pop_back();
  auto document = fetch_json(base + "/.well-known/openid-configuration");
  if (!document) return document;
  // OpenID Connect Discovery §4.3: the document is the issuer's own.
  if (document->value("issuer", "") != config_.oidc_issuer) {
    return Status::unavailable("the provider's discovery document names the issuer '" +
                               document->value("issuer", "") + "', not '" + config_.oidc_issuer +
                               "'");
  }
  for (const char* field : {"authorization_endpoint", "token_endpoint", "jwks_uri"}) {
    if (!(*document)[field].is_string()) {
      return Status::unavailable(std::string("the provider's discovery document has no ") + field);
    }
  }
  std::lock_guard lock(mutex_);
  discovery_ = *document;
  discovery_issuer_ = config_.oidc_issuer;
  discovery_at_ = now;
  keys_.reset();  // the keys of whichever issuer was there before
  return *document;
}

Result<json> Oidc::keys(bool fresh) {
  const std::int64_t now = clock_.now_ms();
  {
    std::lock_guard lock(mutex_);
    if (!fresh && keys_ && now - keys_at_ < kDocumentsKeptMs) return *keys_;
  }
  auto document = discovery();
  if (!document) return document;
  auto jwks = fetch_json((*document)["jwks_uri"].get<std::string>());
  if (!jwks) return jwks;
  std::lock_guard lock(mutex_);
  keys_ = *jwks;
  keys_at_ = now;
  return *jwks;
}

Result<Oidc::Start> Oidc::start(const std::string& redirect_uri, const std::string& next) {
  auto document = discovery();
  if (!document) return document.status();
  const std::string state = random_url_token(32);
  const std::string nonce = random_url_token(32);
  const std::string verifier = random_url_token(48);  // 64 characters (RFC 7636: 43–128)
  const std::int64_t now = clock_.now_ms();
  db_.write([&](store::Conn& c) {
    c.query("DELETE FROM oidc_logins WHERE expires_at <= ?", {now});
    c.query(
        "INSERT INTO oidc_logins (state_hash, nonce, verifier, next, expires_at)"
        " VALUES (?, ?, ?, ?, ?)",
        {sha256_hex(state), nonce, verifier, next, now + kLoginMinutes * 60 * 1000});
  });
  std::string location = (*document)["authorization_endpoint"].get<std::string>();
  location += location.find('?') == std::string::npos ? "?" : "&";
  location +=
      form_value("response_type", "code") + "&" + form_value("client_id", config_.oidc_client_id) +
      "&" + form_value("redirect_uri", redirect_uri) + "&" +
      form_value("scope", config_.oidc_scopes) + "&" + form_value("state", state) + "&" +
      form_value("nonce", nonce) + "&" + form_value("code_challenge", challenge_of(verifier)) +
      "&" + form_value("code_challenge_method", "S256");
  return Start{location, state};
}

Result<Identity> Oidc::finish(const std::string& state, const std::string& browser_state,
                              const std::string& code, const std::string& redirect_uri) {
  // The state must be the one this browser was given, and unused: a link
  // from elsewhere, or the same answer sent twice, signs nobody in.
  if (state.empty() || state.size() != browser_state.size() ||
      sodium_memcmp(state.data(), browser_state.data(), state.size()) != 0) {
    return Status::invalid("the sign-in was not started in this browser (state)");
  }
  const std::int64_t now = clock_.now_ms();
  auto login = db_.write([&](store::Conn& c) {
    return c.query(
        "DELETE FROM oidc_logins WHERE state_hash = ? AND expires_at > ?"
        " RETURNING nonce, verifier, next",
        {sha256_hex(state), now});
  });
  if (login.empty()) return Status::invalid("the sign-in is unknown, used or too old (state)");
  if (code.empty()) return Status::invalid("the provider sent no code");

  auto document = discovery();
  if (!document) return document.status();
  net::HttpRequest request;
  request.method = "POST";
  request.url = (*document)["token_endpoint"].get<std::string>();
  // RFC 6749 §2.3.1: the client's id and secret form-encoded, then Basic.
  request.headers = {
      {"Content-Type", "application/x-www-form-urlencoded"},
      {"Accept", "application/json"},
      {"Authorization", "Basic " + base64(net::percent_encode(config_.oidc_client_id) + ":" +
                                          net::percent_encode(config_.oidc_client_secret))}};
  request.body = form_value("grant_type", "authorization_code") + "&" + form_value("code", code) +
                 "&" + form_value("redirect_uri", redirect_uri) + "&" +
                 form_value("code_verifier", login[0].text("verifier"));
  request.max_bytes = kMaxDocumentBytes;
  request.allow_private = true;
  auto answer = http_.send(request);
  if (auto* e = std::get_if<net::HttpError>(&answer)) return Status::unavailable(e->message);
  const auto& r = std::get<net::HttpResponse>(answer);
  auto tokens = json::parse(r.body, nullptr, false);
  if (r.status != 200 || !tokens.is_object() || !tokens["id_token"].is_string()) {
    std::string why = tokens.is_object() ? tokens.value("error", "") : "";
    return Status::invalid("the provider refused the code (HTTP " + std::to_string(r.status) +
                           (why.empty() ? "" : ", " + why) + ")");
  }
  const std::string id_token = tokens["id_token"].get<std::string>();
  const IdTokenCheck check{.issuer = config_.oidc_issuer,
                           .client_id = config_.oidc_client_id,
                           .nonce = login[0].text("nonce"),
                           .now_s = now / 1000};
  auto jwks = keys(false);
  if (!jwks) return jwks.status();
  auto claims = verify_id_token(id_token, *jwks, check);
  if (!claims && claims.status().code() == Status::Code::not_found) {
    // A key peto has not seen: the provider may have rotated them.
    jwks = keys(true);
    if (!jwks) return jwks.status();
    claims = verify_id_token(id_token, *jwks, check);
  }
  if (!claims) return Status::invalid(claims.status().message());
  Identity who;
  who.subject = (*claims)["sub"].get<std::string>();
  who.email = claims->value("email", "");
  // Only a JSON true: "true" as a string, or no claim, is not the provider
  // vouching for the address.
  auto verified = claims->find("email_verified");
  who.email_verified = verified != claims->end() && verified->is_boolean() && verified->get<bool>();
  who.next = login[0].text("next");
  return who;
}

std::variant<domain::Account, std::string> Oidc::account_for(const Identity& identity) {
  domain::Accounts accounts(db_, clock_);
  const std::int64_t now = clock_.now_ms();
  const std::string& issuer = config_.oidc_issuer;
  auto linked = db_.query("SELECT user_id FROM oidc_identities WHERE issuer = ? AND subject = ?",
                          {issuer, identity.subject});
  if (!linked.empty()) {
    auto account = accounts.find(linked[0].int_at(0));
    if (!account || !account->active) return std::string("error_oidc_inactive");
    db_.write([&](store::Conn& c) {
      c.query(
          "UPDATE oidc_identities SET last_used_at = ?, email = ? WHERE issuer = ? AND subject = ?",
          {now, identity.email, issuer, identity.subject});
    });
    return *account;
  }
  auto folded = domain::normalise_email(identity.email);
  auto existing = folded ? accounts.find_by_email(*folded) : std::nullopt;
  if (!identity.email_verified || !folded) {
    // Nothing to go on but an address the provider does not vouch for.
    return std::string(existing || config_.oidc_auto_register ? "error_oidc_unverified"
                                                              : "error_oidc_no_account");
  }
  if (existing && !existing->active) return std::string("error_oidc_inactive");
  if (!existing && !config_.oidc_auto_register) return std::string("error_oidc_no_account");
  try {
    return db_.write([&](store::Conn& c) -> std::variant<domain::Account, std::string> {
      domain::Account account;
      if (existing) {
        account = *existing;
      } else {
        auto made = accounts.create_without_password_in(c, *folded);
        if (!std::holds_alternative<domain::Account>(made))
          return std::string("error_oidc_no_account");
        account = std::get<domain::Account>(made);
      }
      c.query(
          "INSERT INTO oidc_identities (issuer, subject, user_id, email, created_at, last_used_at)"
          " VALUES (?, ?, ?, ?, ?, ?)",
          {issuer, identity.subject, account.id, *folded, now, now});
      domain::record_account_event(c, now, account.id, account.id,
                                   existing ? "oidc_linked" : "oidc_registered", issuer);
      log::info("sso", existing ? "identity linked" : "account registered", {{"user", account.id}});
      return account;
    });
  } catch (const store::Error& e) {
    // The same identity's first sign-in twice at once: the other one linked it.
    if (e.kind() != store::Error::Kind::constraint) throw;
    return account_for(identity);
  }
}

}  // namespace peto::sso
