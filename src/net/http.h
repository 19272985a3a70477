// HttpClient: peto's one outgoing HTTP client, guarded by the destination policy.
//
//   net::HttpClient client;
//   net::HttpRequest req{.method = "POST", .url = hook_url, .body = json};
//   req.allow_private = config.allow_private_destinations;   // never for captures
//   auto answer = client.send(req);
//   if (auto* e = std::get_if<net::HttpError>(&answer)) { ... e->message ... }
//
// Every request peto makes to the outside world goes through send(). What it
// guarantees:
//   - Only http:// and https:// URLs, without userinfo, with a plain host name
//     (letters, digits, '-', '.', '_'; IDNs in punycode) or an IP literal.
//     Legacy numeric hosts ("2130706433", "0x7f.1") are refused.
//   - The host is resolved once, by the Resolver; EVERY resolved address must
//     pass the DestinationPolicy (notify/destination.h) or nothing is sent. The
//     connection is then pinned to the first address (CURLOPT_RESOLVE), so
//     curl never resolves the name again: the checked address is the connected
//     address (no DNS rebinding), while TLS still verifies the host name. A
//     socket callback refuses any connection to another address, as a second
//     lock on the same door.
//   - Redirects are never followed by curl. With max_redirects > 0 send()
//     follows Location itself, resolving and checking every hop as above; 303
//     (and 301/302 after a POST) turn into a GET without a body; on a hop to
//     another origin the Authorization, Cookie and Proxy-Authorization headers
//     are dropped (other headers go along: keep max_redirects at 0 when a
//     secret travels in another header). With max_redirects = 0 a 3xx is
//     simply the answer.
//   - The whole exchange (every hop) fits in `timeout`; the body in
//     `max_bytes` (the transfer is cut off beyond it); the response headers in
//     64 KiB. No proxy from the environment, no compressed bodies, no signals.
//
// The Resolver's time counts against `timeout`, but getaddrinfo cannot be
// interrupted: a very slow DNS server can make a send overrun it.
//
// An HttpClient holds no connection and no state between sends (one curl easy
// handle per send); send() is const and safe to call from many threads at once
// as long as its Resolver and ConnectTo are.
//
// What callers choose: webhooks keep max_redirects = 0 and the 10 s timeout
// (docs/SPEC.md §6) and take allow_private from the configuration, re-checked at every
// delivery simply by sending through here; captures use 10 s, 2 MB, 3
// redirects and allow_private = false always.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace peto::net {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  HttpHeaders headers;  // sent as given; names and values must not contain CR or LF
  std::string body;
  // A file whose bytes are the body instead, read from disk as they are sent
  // (a store's upload); `body` must then be empty. Not sent on a redirect
  // that turns the request into a GET.
  std::string body_file;
  std::chrono::milliseconds timeout{10000};  // the whole exchange, every redirect included
  std::size_t max_bytes = 2 << 20;           // response body limit
  int max_redirects = 0;                     // 0 = redirects are answers, never followed
  bool allow_private = false;                // PETO_ALLOW_PRIVATE_DESTINATIONS; never for captures
  std::string user_agent = "peto/" PETO_VERSION;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // of the final response; names in lower case, in order received
  std::string body;
  std::string final_url;     // the URL that gave this answer (after redirects)
  std::string connected_ip;  // the approved address the connection was pinned to

  // The first value of header `name` (any case), nullptr when absent.
  const std::string* header(std::string_view name) const;
};

struct HttpError {
  enum class Kind {
    bad_url,              // not http(s), userinfo, unreadable URL or Location, bad header
    refused_destination,  // an address the policy refuses
    dns,                  // the name did not resolve
    connect,              // no connection could be made
    timeout,              // the exchange took longer than HttpRequest::timeout
    too_large,            // the body passed max_bytes (or the headers 64 KiB)
    too_many_redirects,   // more than max_redirects redirects
    tls,                  // certificate or handshake failure
    other,
  };
  Kind kind = Kind::other;
  std::string message;  // a clear sentence for the person: what went wrong, for which host
};

// "bad_url", "refused_destination", … for logs and tests.
std::string_view kind_name(HttpError::Kind kind);

// A name → addresses seam: tests map names; production uses getaddrinfo.
// Returns the addresses as text ("93.184.216.34", "2606:2800::1"); empty when
// the name does not resolve.
using Resolver = std::function<std::vector<std::string>(const std::string& host)>;
// getaddrinfo (AF_UNSPEC, TCP), every address it gives, in its order.
Resolver system_resolver();

// Test seam only: where to really connect for an approved (ip, port), applied
// after the policy check (CURLOPT_CONNECT_TO). nullopt = connect to the
// approved address itself. Production: none.
using ConnectTo =
    std::function<std::optional<std::pair<std::string, int>>(const std::string& ip, int port)>;

class HttpClient {
 public:
  explicit HttpClient(Resolver resolver = system_resolver(), ConnectTo connect_to = {});

  std::variant<HttpResponse, HttpError> send(const HttpRequest& request) const;

 private:
  Resolver resolver_;
  ConnectTo connect_to_;
};

// robots.txt (RFC 9309), for captures.
//
// robots_url("https://jobs.example:8443/a/b?x=1") == "https://jobs.example:8443/robots.txt";
// robots_target(same) == "/a/b?x=1", the string robots_allows matches.
// Both return "" for a URL that is not absolute http(s).
std::string robots_url(std::string_view page_url);
std::string robots_target(std::string_view page_url);

// Whether `robots_txt` lets `user_agent` (its product token: "peto" of
// "peto/0.1.0", case-insensitive) fetch `path` ("/a/b?x=1"). The groups naming
// the agent (merged) apply, else the `*` groups, else everything is allowed.
// Within them the longest matching Allow/Disallow pattern wins, Allow on a
// tie; `*` matches any run of characters and a final `$` anchors the end; an
// empty Disallow allows everything. /robots.txt itself is always allowed. Only
// the first 500 KiB are read. What an unreachable robots.txt means (4xx: all
// allowed, 5xx or none: all refused) is the caller's decision.
bool robots_allows(std::string_view robots_txt, std::string_view user_agent, std::string_view path);

}  // namespace peto::net
