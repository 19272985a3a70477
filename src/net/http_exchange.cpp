// One HTTP exchange with curl (net::HttpClient): the easy handle and its
// options, the pin to the approved address, the limits on what is read, and
// curl's errors turned into HttpErrors.
#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "core/text.h"
#include "net/http_internal.h"
#include "net/pinned_socket.h"

namespace peto::net::detail {
namespace {

constexpr std::size_t kMaxHeaderBytes = 64 << 10;
constexpr std::chrono::milliseconds kMaxConnectTime{10000};

using text::lower;
using text::trim;

// "2 MiB", "64 KiB", "1000 bytes".
std::string size_text(std::size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= (1u << 10) && n % (1u << 10) == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
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
  // `next` is the whole list, one line longer: it takes the nodes over.
  static_cast<void>(list.release());
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

// Where an exchange's socket goes: the host name pinned to the approved
// address, and the socket callback that refuses any other.
struct Pins {
  CurlList connect_to;  // the test's stand-in (ConnectTo), if it gave one
  CurlList resolve;     // host:port:address, so curl never asks DNS
  PinnedSocket expected;
};

std::optional<HttpError> pin(const Exchange& x, Pins& pins) {
  // Where the socket really goes: the approved address, or the test's stand-in.
  std::string connect_ip = x.ip;
  int connect_port = x.target.port;
  if (x.connect_to) {
    if (auto to = x.connect_to(x.ip, x.target.port)) {
      std::tie(connect_ip, connect_port) = *to;
      bool v6 = connect_ip.find(':') != std::string::npos;
      append(pins.connect_to, "::" + (v6 ? "[" + connect_ip + "]" : connect_ip) + ":" +
                                  std::to_string(connect_port));
    }
  }
  if (!pins.expected.set(connect_ip, connect_port))
    return fail(HttpError::Kind::other, "'" + connect_ip + "' is not an address to connect to.");

  // The pin: curl finds the host's address here and never asks DNS.
  if (!x.target.is_ip) {
    std::string pinned = x.ip.find(':') != std::string::npos ? "[" + x.ip + "]" : x.ip;
    std::string port = std::to_string(x.target.port);
    append(pins.resolve, x.target.host + ":" + port + ":" + pinned);
    if (x.target.host.ends_with('.'))
      append(pins.resolve,
             x.target.host.substr(0, x.target.host.size() - 1) + ":" + port + ":" + pinned);
  }
  return std::nullopt;
}

// Everything but the method and the body: the URL, the pin, the limits, the
// headers and where the answer goes.
void set_options(CURL* c, const Exchange& x, Pins& pins, const CurlList& headers, Sink& sink,
                 char* error_text) {
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
  if (pins.resolve) curl_easy_setopt(c, CURLOPT_RESOLVE, pins.resolve.get());
  if (pins.connect_to) curl_easy_setopt(c, CURLOPT_CONNECT_TO, pins.connect_to.get());
  pins.expected.install(c);
  curl_easy_setopt(c, CURLOPT_USERAGENT, x.request.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &write_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(x.request.max_bytes));
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
}

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// The method and the body: streamed from a file (HttpRequest::body_file,
// opened into `file`), none, or x.body.
std::optional<HttpError> set_body(CURL* c, const Exchange& x, File& file) {
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
  return std::nullopt;
}

// What a finished transfer went wrong with, in words for the person; nullopt
// when it brought an answer.
std::optional<HttpError> transfer_error(const Exchange& x, CURLcode rc, const Sink& sink,
                                        const Pins& pins, const char* error_text) {
  const std::string& host = x.target.host;
  if (sink.body_too_large || rc == CURLE_FILESIZE_EXCEEDED)
    return fail(HttpError::Kind::too_large, "The answer from " + host + " is larger than the " +
                                                size_text(x.request.max_bytes) +
                                                " limit; peto stopped reading it.");
  if (sink.headers_too_large)
    return fail(HttpError::Kind::too_large, "The headers of the answer from " + host +
                                                " are larger than " + size_text(kMaxHeaderBytes) +
                                                "; peto stopped reading them.");
  if (pins.expected.refused)
    return fail(HttpError::Kind::refused_destination,
                "peto refused to connect to " + host + " at an address it had not checked.");
  if (rc == CURLE_OK) return std::nullopt;
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

}  // namespace

Answer run_exchange(const Exchange& x) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });

  CurlHandle h(curl_easy_init());
  if (!h) throw std::bad_alloc();
  CURL* c = h.get();

  Pins pins;
  if (auto bad = pin(x, pins)) return *bad;

  CurlList headers;
  for (const auto& [name, value] : x.headers) append(headers, name + ": " + value);
  append(headers, "Expect:");  // no 100-continue round trip for large bodies

  Sink sink;
  sink.max_bytes = x.request.max_bytes;
  char error_text[CURL_ERROR_SIZE] = {0};
  set_options(c, x, pins, headers, sink, error_text);
  File file(nullptr, &std::fclose);
  if (auto bad = set_body(c, x, file)) return *bad;

  CURLcode rc = curl_easy_perform(c);
  if (auto bad = transfer_error(x, rc, sink, pins, error_text)) return *bad;
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

}  // namespace peto::net::detail
