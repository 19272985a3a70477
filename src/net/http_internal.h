// Shared by the files of net::HttpClient (not a public header).
//
//   http.cpp           checking a request and its URLs, the destination policy,
//                      following redirects, the answers
//   http_exchange.cpp  one request/response with curl, pinned to an approved address
//   http_robots.cpp    robots.txt
#pragma once

#include <boost/url/string_view.hpp>
#include <chrono>
#include <string>
#include <variant>

#include "net/http.h"

namespace peto::net::detail {

using Answer = std::variant<HttpResponse, HttpError>;

inline std::string str(boost::urls::string_view s) { return std::string(s.data(), s.size()); }

inline HttpError fail(HttpError::Kind kind, std::string message) {
  return HttpError{kind, std::move(message)};
}

// "300 ms", "10 s".
inline std::string duration_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

// One URL, checked and taken apart: where a hop goes.
struct Target {
  std::string url;   // normalised: lower-case host, no fragment
  std::string host;  // for the resolver and messages; IPv6 without brackets
  bool is_ip = false;
  bool is_ipv6 = false;
  int port = 0;
  std::string origin;  // "https://host:443", to spot cross-origin redirects
};

// One request/response with curl, pinned to `ip`. No redirect is followed.
struct Exchange {
  const Target& target;
  const std::string& ip;
  const std::string& method;
  const HttpHeaders& headers;
  const std::string& body;
  const HttpRequest& request;
  std::chrono::milliseconds left;
  const ConnectTo& connect_to;
};

// Runs `x` once: no redirect is followed, a 3xx is an answer like any other.
Answer run_exchange(const Exchange& x);

}  // namespace peto::net::detail
