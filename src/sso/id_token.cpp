#include "sso/id_token.h"

#include <jwt.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <sodium.h>

#include <cstdlib>
#include <memory>
#include <optional>

namespace peto::sso {

namespace {

using nlohmann::json;

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Jwt = std::unique_ptr<jwt_t, Deleter<jwt_t, jwt_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Bn = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using ParamBuild = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;

struct FreeText {
  void operator()(char* p) const { std::free(p); }  // NOLINT: libjwt's malloc'd text
};

// libjwt hands out JSON text it allocated (with malloc: peto sets no other
// allocator); this takes it and frees it.
std::optional<json> owned_json(char* text) {
  if (text == nullptr) return std::nullopt;
  std::unique_ptr<char, FreeText> owned(text);
  auto parsed = json::parse(owned.get(), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

// `member` of `jwk`, base64url-decoded; nullopt when absent or not base64url.
std::optional<std::string> jwk_bytes(const json& jwk, const char* member) {
  auto it = jwk.find(member);
  if (it == jwk.end() || !it->is_string()) return std::nullopt;
  return from_base64url(it->get<std::string>());
}

Result<std::string> pem_of(const Pkey& key) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key.get()) != 1) {
    return Status::internal("could not write the key as PEM");
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

Result<std::string> key_from_params(const char* type, OSSL_PARAM_BLD* build) {
  Params params(OSSL_PARAM_BLD_to_param(build));
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return Status::invalid(std::string("the ") + type + " key of the provider is not usable");
  }
  return pem_of(Pkey(raw));
}

// The algorithm's key type, as a JWK names it; "" for an algorithm peto
// does not accept.
std::string key_type_of(const std::string& alg) {
  if (alg == "RS256") return "RSA";
  if (alg == "ES256") return "EC";
  return "";
}

bool fits(const json& jwk, const std::string& alg, const std::string& kid) {
  if (!jwk.is_object() || jwk.value("kty", "") != key_type_of(alg)) return false;
  if (alg == "ES256" && jwk.value("crv", "") != "P-256") return false;
  if (jwk.contains("use") && jwk.value("use", "") != "sig") return false;
  if (jwk.contains("alg") && jwk.value("alg", "") != alg) return false;
  return kid.empty() || jwk.value("kid", "") == kid;
}

bool has_audience(const json& claims, const std::string& client_id) {
  auto aud = claims.find("aud");
  if (aud == claims.end()) return false;
  if (aud->is_string()) return *aud == client_id;
  if (!aud->is_array()) return false;
  bool found = false;
  for (const auto& a : *aud) found = found || (a.is_string() && a == client_id);
  // Several audiences: the party it was issued to must be peto.
  if (found && aud->size() > 1) return claims.value("azp", "") == client_id;
  return found;
}

}  // namespace

std::string base64url(std::string_view bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING),
                  '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

std::optional<std::string> from_base64url(std::string_view text) {
  std::string out(text.size(), '\0');
  std::size_t size = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &size, nullptr,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    return std::nullopt;
  }
  out.resize(size);
  return out;
}

Result<std::string> pem_of_jwk(const json& jwk) {
  ParamBuild build(OSSL_PARAM_BLD_new());
  if (!build) return Status::internal("out of memory");
  const std::string kty = jwk.is_object() ? jwk.value("kty", "") : "";
  if (kty == "RSA") {
    auto n = jwk_bytes(jwk, "n");
    auto e = jwk_bytes(jwk, "e");
    if (!n || !e || n->empty() || e->empty()) return Status::invalid("an RSA key without n or e");
    Bn nb(BN_bin2bn(reinterpret_cast<const unsigned char*>(n->data()), static_cast<int>(n->size()),
                    nullptr));
    Bn eb(BN_bin2bn(reinterpret_cast<const unsigned char*>(e->data()), static_cast<int>(e->size()),
                    nullptr));
    if (!nb || !eb || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, nb.get()) != 1 ||
        OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, eb.get()) != 1) {
      return Status::invalid("an RSA key that cannot be read");
    }
    return key_from_params("RSA", build.get());
  }
  if (kty == "EC") {
    auto x = jwk_bytes(jwk, "x");
    auto y = jwk_bytes(jwk, "y");
    if (jwk.value("crv", "") != "P-256" || !x || !y || x->size() != 32 || y->size() != 32) {
      return Status::invalid("an EC key that is not a P-256 point");
    }
    // The uncompressed point: 0x04, x, y (SEC 1 §2.3.3).
    const std::string point = std::string(1, '\x04') + *x + *y;
    if (OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
            1 ||
        OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                         point.size()) != 1) {
      return Status::invalid("an EC key that cannot be read");
    }
    return key_from_params("EC", build.get());
  }
  return Status::invalid("a key of type '" + kty + "' (RSA or EC expected)");
}

Result<json> verify_id_token(const std::string& token, const json& jwks,
                             const IdTokenCheck& check) {
  // The header first, unverified, only to choose the key.
  jwt_t* raw = nullptr;
  if (jwt_decode(&raw, token.c_str(), nullptr, 0) != 0 || raw == nullptr) {
    return Status::invalid("the ID token is not a JWT");
  }
  Jwt unverified(raw);
  auto header = owned_json(jwt_get_headers_json(unverified.get(), nullptr));
  if (!header) return Status::invalid("the ID token has no readable header");
  const std::string alg = header->value("alg", "");
  if (key_type_of(alg).empty()) {
    return Status::invalid("the ID token is signed with '" + alg + "' (RS256 or ES256 expected)");
  }
  const std::string kid = header->value("kid", "");
  const json* key = nullptr;
  if (jwks.contains("keys") && jwks["keys"].is_array()) {
    for (const auto& k : jwks["keys"]) {
      if (!fits(k, alg, kid)) continue;
      // Without a kid, only one key may fit: no guessing between several.
      if (key != nullptr) return Status::invalid("several keys fit an ID token that names none");
      key = &k;
    }
  }
  if (key == nullptr) {
    return Status::not_found("no " + alg + " key '" + kid + "' among the provider's keys");
  }
  auto pem = pem_of_jwk(*key);
  if (!pem) return pem.status();

  raw = nullptr;
  if (jwt_decode(&raw, token.c_str(), reinterpret_cast<const unsigned char*>(pem->data()),
                 static_cast<int>(pem->size())) != 0 ||
      raw == nullptr) {
    return Status::invalid("the ID token's signature does not verify");
  }
  Jwt verified(raw);
  const jwt_alg_t used = jwt_get_alg(verified.get());
  if (used != (alg == "RS256" ? JWT_ALG_RS256 : JWT_ALG_ES256)) {
    return Status::invalid("the ID token was verified with another algorithm than it names");
  }
  auto claims = owned_json(jwt_get_grants_json(verified.get(), nullptr));
  if (!claims) return Status::invalid("the ID token's claims are not a JSON object");

  if (!claims->contains("iss") || (*claims)["iss"] != check.issuer) {
    return Status::invalid("the ID token is from another issuer");
  }
  if (!has_audience(*claims, check.client_id)) {
    return Status::invalid("the ID token is for another client");
  }
  auto exp = claims->find("exp");
  if (exp == claims->end() || !exp->is_number() ||
      exp->get<double>() + kClockSkewSeconds <= static_cast<double>(check.now_s)) {
    return Status::invalid("the ID token has expired");
  }
  auto iat = claims->find("iat");
  if (iat != claims->end() &&
      (!iat->is_number() ||
       iat->get<double>() > static_cast<double>(check.now_s + kClockSkewSeconds))) {
    return Status::invalid("the ID token was issued in the future");
  }
  if (claims->value("nonce", "") != check.nonce || check.nonce.empty()) {
    return Status::invalid("the ID token is not for this sign-in (nonce)");
  }
  auto sub = claims->find("sub");
  if (sub == claims->end() || !sub->is_string() || sub->get<std::string>().empty()) {
    return Status::invalid("the ID token names nobody (sub)");
  }
  return std::move(*claims);
}

}  // namespace peto::sso
