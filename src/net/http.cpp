#include "net/http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/url.hpp>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "core/text.h"
#include "net/destination.h"
#include "net/pinned_socket.h"

namespace peto::net {
namespace {

using Clock = std::chrono::steady_clock;
using Answer = std::variant<HttpResponse, HttpError>;

constexpr std::size_t kMaxHeaderBytes = 64 << 10;
constexpr std::chrono::milliseconds kMaxConnectTime{10000};

std::string str(boost::urls::string_view s) { return std::string(s.data(), s.size()); }

using text::lower;
using text::trim;

HttpError fail(HttpError::Kind kind, std::string message) {
  return HttpError{kind, std::move(message)};
}

// "2 MiB", "64 KiB", "1000 bytes".
std::string size_text(std::size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= (1u << 10) && n % (1u << 10) == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

// "300 ms", "10 s".
std::string duration_text(std::chrono::milliseconds d) {
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

// What one exchange collects while curl runs.
struct Sink {
  std::size_t max_bytes = 0;
  std::string body;
  bool body_too_large = false;
  HttpHeaders headers;
  std::size_t header_bytes = 0;
  bool headers_too_large = false;
};

size_t write_body(char* data, size_t size, size_t n, void* userp) {
  auto* sink = static_cast<Sink*>(userp);
  std::size_t len = size * n;
  if (sink->body.size() + len > sink->max_bytes) {
    sink->body_too_large = true;
    return 0;  // anything but `len` aborts the transfer
  }
  sink->body.append(data, len);
  return len;
}

size_t write_header(char* data, size_t size, size_t n, void* userp) {
  auto* sink = static_cast<Sink*>(userp);
  std::size_t len = size * n;
  sink->header_bytes += len;
  if (sink->header_bytes > kMaxHeaderBytes) {
    sink->headers_too_large = true;
    return 0;
  }
  std::string_view line(data, len);
  if (line.starts_with("HTTP/")) {  // a new response (after a 1xx): its headers only
    sink->headers.clear();
    return len;
  }
  if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {  // obsolete folding
    if (!sink->headers.empty()) sink->headers.back().second += " " + std::string(trim(line));
    return len;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return len;  // the blank line ending them
  sink->headers.emplace_back(lower(trim(line.substr(0, colon))),
                             std::string(trim(line.substr(colon + 1))));
  return len;
}

struct CurlFree {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using CurlHandle = std::unique_ptr<CURL, CurlFree>;
using CurlList = std::unique_ptr<curl_slist, CurlFree>;

void append(CurlList& list, const std::string& line) {
  curl_slist* next = curl_slist_append(list.get(), line.c_str());
  if (next == nullptr) throw std::bad_alloc();
  list.release();
  list.reset(next);
}

bool is_tls_error(CURLcode c) {
  switch (c) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

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

Answer run_exchange(const Exchange& x) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });

  CurlHandle h(curl_easy_init());
  if (!h) throw std::bad_alloc();
  CURL* c = h.get();

  // Where the socket really goes: the approved address, or the test's stand-in.
  std::string connect_ip = x.ip;
  int connect_port = x.target.port;
  CurlList connect_to;
  if (x.connect_to) {
    if (auto to = x.connect_to(x.ip, x.target.port)) {
      std::tie(connect_ip, connect_port) = *to;
      bool v6 = connect_ip.find(':') != std::string::npos;
      append(connect_to, "::" + (v6 ? "[" + connect_ip + "]" : connect_ip) + ":" +
                             std::to_string(connect_port));
    }
  }
  PinnedSocket expected;
  if (!expected.set(connect_ip, connect_port))
    return fail(HttpError::Kind::other, "'" + connect_ip + "' is not an address to connect to.");

  // The pin: curl finds the host's address here and never asks DNS.
  CurlList resolve;
  if (!x.target.is_ip) {
    std::string pinned = x.ip.find(':') != std::string::npos ? "[" + x.ip + "]" : x.ip;
    std::string port = std::to_string(x.target.port);
    append(resolve, x.target.host + ":" + port + ":" + pinned);
    if (x.target.host.ends_with('.'))
      append(resolve,
             x.target.host.substr(0, x.target.host.size() - 1) + ":" + port + ":" + pinned);
  }

  CurlList headers;
  for (const auto& [name, value] : x.headers) append(headers, name + ": " + value);
  append(headers, "Expect:");  // no 100-continue round trip for large bodies

  Sink sink;
  sink.max_bytes = x.request.max_bytes;
  char error_text[CURL_ERROR_SIZE] = {0};
  long left_ms = std::max<long>(1, static_cast<long>(x.left.count()));

  curl_easy_setopt(c, CURLOPT_URL, x.target.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   std::min<long>(left_ms, static_cast<long>(kMaxConnectTime.count())));
  if (resolve) curl_easy_setopt(c, CURLOPT_RESOLVE, resolve.get());
  if (connect_to) curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to.get());
  expected.install(c);
  curl_easy_setopt(c, CURLOPT_USERAGENT, x.request.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &write_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(x.request.max_bytes));
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);

  // A body streamed from a file (HttpRequest::body_file).
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  const bool from_file = !x.request.body_file.empty() && x.method != "GET" && x.method != "HEAD";
  if (from_file) {
    file.reset(std::fopen(x.request.body_file.c_str(), "rb"));
    std::error_code ec;
    auto size = std::filesystem::file_size(x.request.body_file, ec);
    if (!file || ec) return fail(HttpError::Kind::other, "The file to send could not be read.");
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READDATA, file.get());
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
    if (x.method != "PUT") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, x.method.c_str());
  } else if (x.method == "GET" && x.body.empty()) {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else if (x.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    if (x.method != "POST") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, x.method.c_str());
    if (x.method == "POST" || !x.body.empty()) {
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, x.body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(x.body.size()));
    }
  }

  CURLcode rc = curl_easy_perform(c);
  const std::string& host = x.target.host;
  if (sink.body_too_large || rc == CURLE_FILESIZE_EXCEEDED)
    return fail(HttpError::Kind::too_large, "The answer from " + host + " is larger than the " +
                                                size_text(x.request.max_bytes) +
                                                " limit; peto stopped reading it.");
  if (sink.headers_too_large)
    return fail(HttpError::Kind::too_large, "The headers of the answer from " + host +
                                                " are larger than " + size_text(kMaxHeaderBytes) +
                                                "; peto stopped reading them.");
  if (expected.refused)
    return fail(HttpError::Kind::refused_destination,
                "peto refused to connect to " + host + " at an address it had not checked.");
  if (rc != CURLE_OK) {
    std::string detail = error_text[0] != 0 ? error_text : curl_easy_strerror(rc);
    if (rc == CURLE_OPERATION_TIMEDOUT)
      return fail(HttpError::Kind::timeout,
                  host + " did not answer within " + duration_text(x.request.timeout) + ".");
    if (rc == CURLE_COULDNT_CONNECT)
      return fail(HttpError::Kind::connect,
                  "Could not connect to " + host + " (" + x.ip + "): " + detail + ".");
    if (rc == CURLE_COULDNT_RESOLVE_HOST)
      return fail(HttpError::Kind::dns, "Could not find the address of " + host + ": " + detail);
    if (is_tls_error(rc))
      return fail(HttpError::Kind::tls,
                  "The secure connection to " + host + " failed: " + detail + ".");
    if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT)
      return fail(HttpError::Kind::bad_url, "curl cannot use '" + x.target.url + "': " + detail);
    return fail(HttpError::Kind::other, "The request to " + host + " failed: " + detail + ".");
  }
  HttpResponse r;
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  r.status = static_cast<int>(status);
  r.headers = std::move(sink.headers);
  r.body = std::move(sink.body);
  r.final_url = x.target.url;
  r.connected_ip = x.ip;
  return r;
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

// ---------------------------------------------------------------- robots.txt

namespace {

// Lower-case product token: "peto" of "Peto/0.1 (+https://…)".
std::string product_token(std::string_view agent) {
  agent = trim(agent);
  auto end = agent.find_first_of("/ \t");
  return lower(agent.substr(0, end));
}

bool unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One spelling per path: %xx of an unreserved character decoded, other
// escapes in upper case, raw non-ASCII bytes escaped.
std::string normalise_path(std::string_view s) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  auto escape = [&](unsigned char byte) {
    out += '%';
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      auto v = static_cast<unsigned char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      if (unreserved(v)) {
        out += static_cast<char>(v);
      } else {
        escape(v);
      }
      i += 2;
    } else if (c >= 0x80) {
      escape(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Glob match of `pattern` ('*' = any run) against the start of `path`; a
// final '$' makes it match the whole path.
bool pattern_matches(std::string_view pattern, std::string_view path) {
  bool anchored = pattern.ends_with('$');
  if (anchored) pattern.remove_suffix(1);
  std::size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  while (s < path.size()) {
    if (p == pattern.size() && !anchored) return true;
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

struct RobotsRule {
  bool allow = false;
  std::string pattern;
};

struct RobotsGroup {
  std::vector<std::string> agents;  // lower-case product tokens, or "*"
  std::vector<RobotsRule> rules;
};

std::vector<RobotsGroup> parse_robots(std::string_view text) {
  constexpr std::size_t kMaxRobotsBytes = 500 << 10;
  if (text.size() > kMaxRobotsBytes) text = text.substr(0, kMaxRobotsBytes);
  std::vector<RobotsGroup> groups;
  bool reading_agents = false;  // the previous record was a user-agent line
  while (!text.empty()) {
    auto eol = text.find_first_of("\r\n");
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    line = line.substr(0, line.find('#'));
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = lower(trim(line.substr(0, colon)));
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "user-agent") {
      if (!reading_agents) groups.emplace_back();
      groups.back().agents.push_back(value == "*" ? "*" : product_token(value));
      reading_agents = true;
    } else if (key == "allow" || key == "disallow") {
      reading_agents = false;
      if (groups.empty() || value.empty()) continue;  // an empty rule allows everything
      groups.back().rules.push_back({key == "allow", normalise_path(value)});
    }
  }
  return groups;
}

}  // namespace

bool robots_allows(std::string_view robots_txt, std::string_view user_agent,
                   std::string_view path) {
  std::string target = normalise_path(path.empty() ? "/" : path);
  if (target == "/robots.txt") return true;
  auto groups = parse_robots(robots_txt);
  std::string token = product_token(user_agent);
  auto rules_for = [&](const std::string& agent) {
    std::vector<const RobotsRule*> rules;
    for (const auto& g : groups)
      if (std::find(g.agents.begin(), g.agents.end(), agent) != g.agents.end())
        for (const auto& r : g.rules) rules.push_back(&r);
    return rules;
  };
  bool named = std::any_of(groups.begin(), groups.end(), [&](const RobotsGroup& g) {
    return std::find(g.agents.begin(), g.agents.end(), token) != g.agents.end();
  });
  auto rules = rules_for(named && !token.empty() ? token : "*");
  std::size_t best = 0;
  bool allowed = true;
  bool matched = false;
  for (const RobotsRule* r : rules) {
    if (!pattern_matches(r->pattern, target)) continue;
    std::size_t len = r->pattern.size();
    if (!matched || len > best || (len == best && r->allow)) {
      best = len;
      allowed = r->allow;
      matched = true;
    }
  }
  return allowed;
}

std::string robots_url(std::string_view page_url) {
  auto u = boost::urls::parse_uri(boost::urls::string_view(page_url.data(), page_url.size()));
  if (!u || !u->has_authority() || u->encoded_host().empty()) return "";
  std::string scheme = lower(str(u->scheme()));
  if (scheme != "http" && scheme != "https") return "";
  std::string out = scheme + "://" + lower(str(u->encoded_host()));
  if (u->has_port() && !u->port().empty()) out += ":" + str(u->port());
  return out + "/robots.txt";
}

std::string robots_target(std::string_view page_url) {
  auto u = boost::urls::parse_uri(boost::urls::string_view(page_url.data(), page_url.size()));
  if (!u || !u->has_authority()) return "";
  std::string scheme = lower(str(u->scheme()));
  if (scheme != "http" && scheme != "https") return "";
  std::string out = u->encoded_path().empty() ? "/" : str(u->encoded_path());
  if (u->has_query()) out += "?" + str(u->encoded_query());
  return out;
}

}  // namespace peto::net
