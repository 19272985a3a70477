// net::HttpClient: the checks on a request and its URLs, the destination
// policy on every resolved address, redirects followed hop by hop, and the
// answers. One exchange with curl is in http_exchange.cpp, robots.txt in
// http_robots.cpp.
#include "net/http.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/url.hpp>
#include <cstring>
#include <memory>

#include "core/text.h"
#include "net/destination.h"
#include "net/http_internal.h"

namespace peto::net {
namespace {

using Clock = std::chrono::steady_clock;
using detail::Answer;
using detail::duration_text;
using detail::Exchange;
using detail::fail;
using detail::run_exchange;
using detail::str;
using detail::Target;
using text::lower;

bool plain_host_name(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  });
}

// A host name that the C library (and curl) would read as an IPv4 address in
// a legacy form: "2130706433", "0x7f.1", "127.1".
bool legacy_numeric_host(const std::string& host) {
  in_addr a{};
  return inet_aton(host.c_str(), &a) != 0;
}

std::variant<Target, HttpError> parse_target(std::string_view text) {
  auto parsed = boost::urls::parse_uri(boost::urls::string_view(text.data(), text.size()));
  if (!parsed)
    return fail(HttpError::Kind::bad_url,
                "'" + std::string(text) + "' is not a valid web address.");
  boost::urls::url u = *parsed;
  std::string scheme = lower(str(u.scheme()));
  if (scheme != "http" && scheme != "https")
    return fail(HttpError::Kind::bad_url,
                "peto only sends to http:// and https:// addresses, not " + scheme + "://.");
  if (u.has_userinfo())
    return fail(HttpError::Kind::bad_url,
                "The address must not carry a user name or password (the part before '@'); "
                "put credentials in the connection's settings instead.");
  Target t;
  switch (u.host_type()) {
    case boost::urls::host_type::ipv4:
      t.host = str(u.host_address());
      t.is_ip = true;
      break;
    case boost::urls::host_type::ipv6:
      t.host = str(u.host_address());
      t.is_ip = t.is_ipv6 = true;
      break;
    case boost::urls::host_type::name:
      t.host = lower(str(u.encoded_host()));
      if (!plain_host_name(t.host))
        return fail(HttpError::Kind::bad_url,
                    "'" + std::string(text) +
                        "' has a host name peto cannot use; write international names in "
                        "their xn-- (punycode) form.");
      if (legacy_numeric_host(t.host))
        return fail(HttpError::Kind::bad_url, "'" + t.host +
                                                  "' is an IP address in an unusual form; write it "
                                                  "as four decimal numbers (a.b.c.d).");
      u.set_encoded_host(t.host);
      break;
    default:
      return fail(HttpError::Kind::bad_url, "'" + std::string(text) + "' has no usable host.");
  }
  t.port = scheme == "https" ? 443 : 80;
  if (u.has_port() && !u.port().empty()) {
    std::string p = str(u.port());
    if (p.size() > 5 || std::stoi(p) < 1 || std::stoi(p) > 65535)
      return fail(HttpError::Kind::bad_url, "'" + std::string(text) + "' has an invalid port.");
    t.port = std::stoi(p);
  }
  u.normalize_scheme();
  u.remove_fragment();
  t.url = str(u.buffer());
  t.origin =
      scheme + "://" + (t.is_ipv6 ? "[" + t.host + "]" : t.host) + ":" + std::to_string(t.port);
  return t;
}

// Resolves the target's host and checks every address. The first address,
// approved, is the one the connection is pinned to.
std::variant<std::string, HttpError> approve(const Target& t, const Resolver& resolver,
                                             bool allow_private) {
  std::vector<std::string> addresses;
  if (t.is_ip) {
    addresses.push_back(t.host);
  } else {
    try {
      addresses = resolver(t.host);
    } catch (const std::exception& e) {
      return fail(HttpError::Kind::dns, "Could not look up " + t.host + ": " + e.what());
    }
    if (addresses.empty())
      return fail(HttpError::Kind::dns,
                  "Could not find the address of " + t.host + "; check the name.");
  }
  DestinationPolicy policy{allow_private};
  for (const auto& a : addresses) {
    if (Status s = policy.check(a); !s) {
      std::string why =
          t.is_ip ? s.message() : t.host + " resolves to " + a + ", and " + s.message();
      return fail(HttpError::Kind::refused_destination, why + ".");
    }
  }
  return addresses.front();
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    auto u = static_cast<unsigned char>(ch);
    return u > 32 && u < 127 && std::strchr("\"(),/:;<=>?@[\\]{}", ch) == nullptr;
  });
}

std::optional<HttpError> check_request(const HttpRequest& r) {
  if (!is_token(r.method))
    return fail(HttpError::Kind::bad_url, "'" + r.method + "' is not an HTTP method.");
  for (const auto& [name, value] : r.headers) {
    if (!is_token(name) || value.find_first_of("\r\n") != std::string::npos ||
        value.find('\0') != std::string::npos)
      return fail(HttpError::Kind::bad_url, "The header '" + name + "' cannot be sent as given.");
  }
  if (r.user_agent.find_first_of("\r\n") != std::string::npos)
    return fail(HttpError::Kind::bad_url, "The user agent cannot be sent as given.");
  if (!r.body_file.empty() && !r.body.empty())
    return fail(HttpError::Kind::other, "A request has either a body or a body file, not both.");
  if (r.max_redirects < 0 || r.timeout.count() <= 0)
    return fail(HttpError::Kind::other, "max_redirects and timeout must not be negative.");
  return std::nullopt;
}

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// Location resolved against the URL that answered with it.
std::variant<std::string, HttpError> next_url(const std::string& current,
                                              const std::string& location,
                                              const std::string& host) {
  auto base = boost::urls::parse_uri(current);
  auto ref = boost::urls::parse_uri_reference(location);
  boost::urls::url dest;
  if (!base || !ref || !boost::urls::resolve(*base, *ref, dest))
    return fail(HttpError::Kind::bad_url,
                host + " redirected to '" + location + "', which is not a valid web address.");
  return str(dest.buffer());
}

void drop_headers(HttpHeaders& headers, std::initializer_list<std::string_view> names) {
  std::erase_if(headers, [&](const auto& h) {
    std::string n = lower(h.first);
    return std::find(names.begin(), names.end(), n) != names.end();
  });
}

}  // namespace

const std::string* HttpResponse::header(std::string_view name) const {
  std::string wanted = lower(name);
  for (const auto& [n, v] : headers)
    if (n == wanted) return &v;
  return nullptr;
}

std::string_view kind_name(HttpError::Kind kind) {
  switch (kind) {
    case HttpError::Kind::bad_url:
      return "bad_url";
    case HttpError::Kind::refused_destination:
      return "refused_destination";
    case HttpError::Kind::dns:
      return "dns";
    case HttpError::Kind::connect:
      return "connect";
    case HttpError::Kind::timeout:
      return "timeout";
    case HttpError::Kind::too_large:
      return "too_large";
    case HttpError::Kind::too_many_redirects:
      return "too_many_redirects";
    case HttpError::Kind::tls:
      return "tls";
    case HttpError::Kind::other:
      return "other";
  }
  return "other";
}

Resolver system_resolver() {
  return [](const std::string& host) {
    std::vector<std::string> out;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return out;
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> hold(found, &freeaddrinfo);
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
      char text[INET6_ADDRSTRLEN] = {0};
      const void* src = nullptr;
      if (a->ai_family == AF_INET) src = &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr;
      if (a->ai_family == AF_INET6) src = &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr;
      if (src == nullptr || inet_ntop(a->ai_family, src, text, sizeof(text)) == nullptr) continue;
      if (std::find(out.begin(), out.end(), text) == out.end()) out.emplace_back(text);
    }
    return out;
  };
}

HttpClient::HttpClient(Resolver resolver, ConnectTo connect_to)
    : resolver_(std::move(resolver)), connect_to_(std::move(connect_to)) {}

Answer HttpClient::send(const HttpRequest& request) const {
  if (auto bad = check_request(request)) return *bad;
  const auto deadline = Clock::now() + request.timeout;
  std::string method = request.method;
  std::string body = request.body;
  HttpHeaders headers = request.headers;
  std::string url = request.url;
  std::string previous_origin;
  for (int hop = 0;; ++hop) {
    auto target = parse_target(url);
    if (auto* e = std::get_if<HttpError>(&target)) return *e;
    const Target& t = std::get<Target>(target);
    if (!previous_origin.empty() && t.origin != previous_origin)
      drop_headers(headers, {"authorization", "cookie", "proxy-authorization"});
    previous_origin = t.origin;

    auto ip = approve(t, resolver_, request.allow_private);
    if (auto* e = std::get_if<HttpError>(&ip)) return *e;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      return fail(HttpError::Kind::timeout,
                  t.host + " did not answer within " + duration_text(request.timeout) + ".");

    Answer answer = run_exchange(
        Exchange{t, std::get<std::string>(ip), method, headers, body, request, left, connect_to_});
    auto* r = std::get_if<HttpResponse>(&answer);
    if (r == nullptr || request.max_redirects == 0 || !is_redirect(r->status)) return answer;
    const std::string* location = r->header("location");
    if (location == nullptr) return answer;
    if (hop >= request.max_redirects)
      return fail(HttpError::Kind::too_many_redirects, t.host + " redirected more than " +
                                                           std::to_string(request.max_redirects) +
                                                           " times; peto stopped following.");

    auto next = next_url(t.url, *location, t.host);
    if (auto* e = std::get_if<HttpError>(&next)) return *e;
    url = std::get<std::string>(next);
    bool to_get = r->status == 303 || ((r->status == 301 || r->status == 302) && method == "POST");
    if (to_get && method != "HEAD") {
      method = "GET";
      body.clear();
      drop_headers(headers, {"content-type", "content-length", "content-encoding"});
    }
  }
}

}  // namespace peto::net
