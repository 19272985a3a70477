#include "http/http.h"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <cctype>

#include "core/utf8.h"

namespace peto::web {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) {
      return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

const std::string* find_header(const Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (iequals(k, name)) return &v;
  }
  return nullptr;
}

void set_header(Headers& headers, std::string_view name, std::string value) {
  std::erase_if(headers, [&](const auto& h) { return iequals(h.first, name); });
  headers.emplace_back(std::string(name), std::move(value));
}

// Boost.URL does the decoding, so "%2F" inside a segment stays inside that
// segment instead of becoming a separator (the router and the static file
// handler rely on that).
Status Request::set_target(std::string_view raw) {
  auto parsed = boost::urls::parse_origin_form(raw);
  if (!parsed) return Status::invalid("request target is not a valid path: " + std::string(raw));
  const boost::urls::url_view& url = *parsed;
  target = std::string(raw);
  path = url.path();
  segments.clear();
  for (auto segment : url.segments()) segments.push_back(segment);
  // "/a/" has a trailing empty segment in the URL grammar; "/" has none.
  query.clear();
  for (auto p : url.params()) query.emplace_back(p.key, p.has_value ? p.value : std::string());
  // What reaches the pages and the database is text: "%C3" alone is not.
  bool text = utf8_valid(path);
  for (const auto& [k, v] : query) text = text && utf8_valid(k) && utf8_valid(v);
  if (!text) return Status::invalid("request target is not UTF-8 once decoded");
  return Status::ok();
}

std::string safe_return(std::string_view wanted, std::string_view fallback) {
  constexpr std::size_t kLongest = 2048;
  const bool local = !wanted.empty() && wanted.size() <= kLongest && wanted[0] == '/' &&
                     !wanted.starts_with("//") && boost::urls::parse_origin_form(wanted);
  return std::string(local ? wanted : fallback);
}

std::optional<std::string> Request::query_param(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return v;
  }
  return std::nullopt;
}

const std::string& Request::param(const std::string& name) const {
  static const std::string empty;
  auto it = path_params.find(name);
  return it == path_params.end() ? empty : it->second;
}

bool Request::is_api() const { return path == "/api" || path.starts_with("/api/"); }

Response Response::json(int status, const nlohmann::json& body) {
  Response r;
  r.status = status;
  r.set_header("Content-Type", "application/json");
  // Replace invalid UTF-8 rather than throw: a response must always go out.
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

Response Response::html(int status, std::string body) {
  Response r;
  r.status = status;
  r.set_header("Content-Type", "text/html; charset=utf-8");
  r.body = std::move(body);
  return r;
}

Response Response::text(int status, std::string body) {
  Response r;
  r.status = status;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.body = std::move(body);
  return r;
}

Response Response::problem(int status, std::string title, std::string detail) {
  nlohmann::json body = {{"type", "about:blank"}, {"title", std::move(title)}, {"status", status}};
  if (!detail.empty()) body["detail"] = std::move(detail);
  Response r = json(status, body);
  r.set_header("Content-Type", "application/problem+json");
  return r;
}

bool Response::is_html() const {
  const std::string* type = header("Content-Type");
  return type != nullptr && type->starts_with("text/html");
}

void add_security_headers(Response& response) {
  auto add = [&](std::string_view name, std::string_view value) {
    if (response.header(name) == nullptr) response.headers.emplace_back(name, value);
  };
  add("X-Content-Type-Options", "nosniff");
  add("Referrer-Policy", "same-origin");
  add("X-Frame-Options", "DENY");
  if (response.is_html()) add("Content-Security-Policy", kContentSecurityPolicy);
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 412:
      return "Precondition Failed";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 428:
      return "Precondition Required";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

std::string content_disposition(std::string_view type, std::string_view name) {
  std::string ascii;
  for (unsigned char c : name)
    ascii +=
        (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '%') ? static_cast<char>(c) : '_';
  static const char* hex = "0123456789ABCDEF";
  std::string encoded;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      encoded += static_cast<char>(c);
    } else {
      encoded += '%';
      encoded += hex[c >> 4];
      encoded += hex[c & 15];
    }
  }
  return std::string(type) + "; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
}

}  // namespace peto::web
