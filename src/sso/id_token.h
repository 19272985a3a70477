// An OpenID Connect ID token, checked: its signature against the provider's
// published keys (JWKS) with libjwt, and the claims that say it is for peto,
// now, and this sign-in (OpenID Connect Core §3.1.3.7).
//
//   IdTokenCheck check{.issuer = "https://id.example", .client_id = "peto",
//                      .nonce = nonce, .now_s = clock.now_ms() / 1000};
//   Result<nlohmann::json> claims = verify_id_token(token, jwks, check);
//
// Only RS256 and ES256 are accepted; the algorithm named in the token's header
// must also fit the key's type (an RSA key for RS256, a P-256 EC key for
// ES256), so neither "none" nor an HMAC signed with a public key gets through.
// The key is the JWKS entry of the header's `kid` (or the one key of that type
// when the token names none), turned into a PEM public key with OpenSSL. The
// claims then: `iss` exactly the issuer, `aud` the client id (with `azp` the
// client id when there are several audiences), `exp` not passed and `iat` not
// in the future (both with one minute of clock skew), `nonce` the one this
// sign-in sent, and a `sub`. The messages say what failed, for the log; the
// person is told only that the provider's answer could not be trusted.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace peto::sso {

struct IdTokenCheck {
  std::string issuer;
  std::string client_id;
  std::string nonce;
  std::int64_t now_s = 0;  // Unix seconds
};

inline constexpr std::int64_t kClockSkewSeconds = 60;

// The token's claims when everything holds. Status::not_found when no key of
// the JWKS fits (the caller may fetch the keys again: the provider may have
// rotated them); Status::invalid for anything else.
Result<nlohmann::json> verify_id_token(const std::string& token, const nlohmann::json& jwks,
                                       const IdTokenCheck& check);

// A JWK (RSA, or EC on P-256) as a PEM public key; Status::invalid when it
// is neither or malformed.
Result<std::string> pem_of_jwk(const nlohmann::json& jwk);

// Base64url without padding (RFC 4648 §5), as JOSE and PKCE write it.
std::string base64url(std::string_view bytes);
std::optional<std::string> from_base64url(std::string_view text);

}  // namespace peto::sso
