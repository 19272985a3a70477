// Request and Response: the HTTP values handlers see, free of Boost.Beast.
//
// The server parses the wire format into a Request (path and query decoded by
// Boost.URL, path parameters filled in by the router) and serialises the
// Response a handler returns. Handlers build responses with the helpers below:
//
//   return Response::json(200, {{"id", 7}});
//   return Response::problem(404, "Not found", "There is no listing 7.");
//
// Every response leaving the server passes through add_security_headers, so a
// handler cannot forget them. Header names compare case-insensitively; values
// are kept as given. Requests and responses are plain values: no locking, one
// thread at a time.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace peto::web {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive lookup; nullptr when absent. The first match wins.
const std::string* find_header(const Headers& headers, std::string_view name);
// Replaces every header called `name` with one carrying `value`.
void set_header(Headers& headers, std::string_view name, std::string value);
// A Content-Disposition value ("attachment" or "inline") naming the file:
// an ASCII fallback and the UTF-8 name (RFC 6266, RFC 8187).
std::string content_disposition(std::string_view type, std::string_view name);

struct Request {
  std::string method;                 // as sent, e.g. "GET"
  std::string target;                 // raw request target, e.g. "/api/v1/items/7?x=1"
  std::string path;                   // decoded path, e.g. "/api/v1/items/7"
  std::vector<std::string> segments;  // decoded path segments: {"api","v1","items","7"}
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  Headers headers;
  std::string body;
  // A multipart upload to a streamed route (http/multipart.h): the raw body,
  // spooled to this file, which the server removes after the handler; body
  // is then empty.
  std::string body_file;
  std::string remote_address;                      // peer IP, no port
  std::string scheme = "http";                     // as the client used it (http/client_address.h)
  std::map<std::string, std::string> path_params;  // filled by Router

  // Parses an origin-form target ("/path?query") into target, path, segments
  // and query. Status::invalid for anything else (absolute form, bad escapes).
  Status set_target(std::string_view raw);

  const std::string* header(std::string_view name) const { return find_header(headers, name); }
  // The first value of query parameter `name` ("" for "?name"), if present.
  std::optional<std::string> query_param(std::string_view name) const;
  // The path parameter the route pattern named `name` ("" if the route has none).
  const std::string& param(const std::string& name) const;
  // True for paths under /api/, which answer errors as problem+json.
  bool is_api() const;
};

struct Response {
  int status = 200;
  Headers headers;
  std::string body;
  // When set, the server sends this file as the body instead (streamed from
  // disk); `body` is ignored. A file that cannot be opened then is a 404.
  std::string body_file;

  static Response json(int status, const nlohmann::json& body);
  static Response html(int status, std::string body);
  static Response text(int status, std::string body);
  // application/problem+json (RFC 9457). `detail` is shown to the client:
  // never put internal error text in it.
  static Response problem(int status, std::string title, std::string detail);

  const std::string* header(std::string_view name) const { return find_header(headers, name); }
  void set_header(std::string_view name, std::string value) {
    web::set_header(headers, name, std::move(value));
  }
  bool is_html() const;
};

// The CSP every HTML page carries: same-origin everything, no framing, no
// inline script or style (templates must not use either).
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

// Adds nosniff, Referrer-Policy and X-Frame-Options to every response and the
// CSP to HTML ones. Headers a handler already set are left alone.
void add_security_headers(Response& response);

// Where to send the browser after a form: `wanted` when it is a path on this
// site ("/applications/7?tab=notes"), else `fallback`. Only what
// Boost.URL reads as an origin-form target (a path and query, no scheme, host
// or fragment; no space, control character or backslash, so nothing a browser
// would strip or turn into "//") that starts with one "/" and is at most
// 2048 bytes. The sign-in form's `next` and every `return_to` pass through it.
std::string safe_return(std::string_view wanted, std::string_view fallback);

// The standard reason phrase for `status` ("Not Found"), "" if unknown.
std::string_view reason_phrase(int status);

}  // namespace peto::web
