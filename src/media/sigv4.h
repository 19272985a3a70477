// AWS Signature Version 4, as S3-compatible stores take it (written from
// AWS's published description: canonical request, string to sign, derived
// signing key). HMAC-SHA256 and SHA-256 come from libsodium.
//
//   sigv4::Request req{"PUT", "/bucket/42-cv.pdf", "",
//                      {{"host", "s3.example"}, {"x-amz-content-sha256", hash},
//                       {"x-amz-date", "20260101T090000Z"}},
//                      hash};
//   std::string auth = sigv4::authorization(req, {key_id, secret, "eu-west-1", "s3"},
//                                           "20260101T090000Z");
//
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace peto::media::sigv4 {

struct Request {
  std::string method;
  std::string canonical_uri;    // already URI-encoded ("/test.txt")
  std::string canonical_query;  // already sorted and encoded; "" for none
  // Headers to sign: names in lower case, values as sent (trimmed here).
  std::map<std::string, std::string> headers;
  std::string payload_hash;  // hex SHA-256 of the body (x-amz-content-sha256)
};

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string region;   // "us-east-1"
  std::string service;  // "s3"
};

// The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string hmac_sha256(std::string_view key, std::string_view data);

// RFC 3986 unreserved characters kept, everything else %XX (upper case);
// '/' kept when `keep_slash` (an object key in a path).
std::string uri_encode(std::string_view text, bool keep_slash);

// "20130524T000000Z" for a time.
std::string amz_date(Millis at);

std::string signed_headers(const Request& r);  // "host;x-amz-date"
std::string canonical_request(const Request& r);
// "20130524/us-east-1/s3/aws4_request"
std::string scope(const Credentials& c, std::string_view date_time);
std::string string_to_sign(const Request& r, const Credentials& c, std::string_view date_time);
// Hex signature of the string to sign with the key derived from the secret.
std::string signature(const Request& r, const Credentials& c, std::string_view date_time);
// The Authorization header's value.
std::string authorization(const Request& r, const Credentials& c, std::string_view date_time);

}  // namespace peto::media::sigv4
