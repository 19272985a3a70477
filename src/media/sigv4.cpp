#include "media/sigv4.h"

#include <sodium.h>

#include <ctime>

#include "core/token.h"
#include "net/percent.h"

namespace peto::media::sigv4 {

namespace {

std::string trimmed(const std::string& v) {
  // Leading and trailing spaces dropped, inner runs of spaces made one.
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string hmac_sha256(std::string_view key, std::string_view data) {
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(key.data()),
                              key.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(data.data()),
                                data.size());
  unsigned char out[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&state, out);
  return std::string(reinterpret_cast<const char*>(out), sizeof out);
}

std::string uri_encode(std::string_view text, bool keep_slash) {
  return net::percent_encode(text, keep_slash);
}

std::string amz_date(Millis at) {
  std::time_t t = static_cast<std::time_t>(at / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string signed_headers(const Request& r) {
  std::string out;
  for (const auto& [name, _] : r.headers) out += (out.empty() ? "" : ";") + name;
  return out;
}

std::string canonical_request(const Request& r) {
  std::string out = r.method + "\n" + r.canonical_uri + "\n" + r.canonical_query + "\n";
  for (const auto& [name, value] : r.headers) out += name + ":" + trimmed(value) + "\n";
  out += "\n" + signed_headers(r) + "\n" + r.payload_hash;
  return out;
}

std::string scope(const Credentials& c, std::string_view date_time) {
  return std::string(date_time.substr(0, 8)) + "/" + c.region + "/" + c.service + "/aws4_request";
}

std::string string_to_sign(const Request& r, const Credentials& c, std::string_view date_time) {
  return "AWS4-HMAC-SHA256\n" + std::string(date_time) + "\n" + scope(c, date_time) + "\n" +
         sha256_hex(canonical_request(r));
}

std::string signature(const Request& r, const Credentials& c, std::string_view date_time) {
  std::string key = hmac_sha256("AWS4" + c.secret_access_key, date_time.substr(0, 8));
  key = hmac_sha256(key, c.region);
  key = hmac_sha256(key, c.service);
  key = hmac_sha256(key, "aws4_request");
  return to_hex(hmac_sha256(key, string_to_sign(r, c, date_time)));
}

std::string authorization(const Request& r, const Credentials& c, std::string_view date_time) {
  return "AWS4-HMAC-SHA256 Credential=" + c.access_key_id + "/" + scope(c, date_time) +
         ", SignedHeaders=" + signed_headers(r) + ", Signature=" + signature(r, c, date_time);
}

}  // namespace peto::media::sigv4
