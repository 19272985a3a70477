#include "http/router.h"

#include "core/text.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace peto::web {

namespace {

bool is_param(const std::string& segment) {
  return segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
}

std::string param_name(const std::string& segment) { return segment.substr(1, segment.size() - 2); }

// "/" -> {}, "/a/{id}" -> {"a", "{id}"}: the same shape Boost.URL gives a path.
std::vector<std::string> split_pattern(const std::string& pattern) {
  if (pattern.empty() || pattern.front() != '/') {
    throw std::invalid_argument("route pattern must start with '/': " + pattern);
  }
  std::vector<std::string> out;
  if (pattern == "/") return out;
  std::size_t start = 1;
  while (true) {
    std::size_t slash = pattern.find('/', start);
    out.push_back(pattern.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

void check_segments(const std::string& pattern, const std::vector<std::string>& segments) {
  std::set<std::string> names;
  for (const auto& s : segments) {
    bool has_brace = s.find_first_of("{}") != std::string::npos;
    if (!has_brace) continue;
    if (!is_param(s) || s.size() == 2 || s.find_first_of("{}", 1) != s.size() - 1) {
      throw std::invalid_argument("malformed parameter '" + s + "' in route " + pattern);
    }
    if (!names.insert(param_name(s)).second) {
      throw std::invalid_argument("repeated parameter '" + s + "' in route " + pattern);
    }
  }
}

bool matches(const Route& route, const std::vector<std::string>& path) {
  if (route.segments.size() != path.size()) return false;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::string& want = route.segments[i];
    if (is_param(want) ? path[i].empty() : want != path[i]) return false;
  }
  return true;
}

// True when `a` should win over `b` for the same path: at the first segment
// where one is literal and the other a parameter, the literal wins.
bool more_specific(const Route& a, const Route& b) {
  for (std::size_t i = 0; i < a.segments.size() && i < b.segments.size(); ++i) {
    bool pa = is_param(a.segments[i]);
    bool pb = is_param(b.segments[i]);
    if (pa != pb) return !pa;
  }
  return false;
}

const Route* best_for(const std::vector<const Route*>& candidates, std::string_view method) {
  const Route* best = nullptr;
  for (const Route* r : candidates) {
    if (r->method != method) continue;
    if (best == nullptr || more_specific(*r, *best)) best = r;
  }
  return best;
}

std::string allow_header(const std::vector<const Route*>& candidates) {
  std::set<std::string> methods;
  for (const Route* r : candidates) methods.insert(r->method);
  if (methods.count("GET") != 0) methods.insert("HEAD");
  std::string out;
  for (const auto& m : methods) out += (out.empty() ? "" : ", ") + m;
  return out;
}

}  // namespace

Router::Router() : error_page_(plain_error_page) {}

void Router::add(std::string method, std::string pattern, Handler handler, std::string summary) {
  if (method.empty() ||
      !std::all_of(method.begin(), method.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    throw std::invalid_argument("route method must be upper case: " + method);
  }
  auto segments = split_pattern(pattern);
  check_segments(pattern, segments);
  for (const auto& r : routes_) {
    if (r.method == method && r.pattern == pattern) {
      throw std::invalid_argument("route added twice: " + method + " " + pattern);
    }
  }
  routes_.push_back(Route{std::move(method), std::move(pattern), std::move(handler),
                          std::move(summary), std::move(segments), nullptr, std::nullopt});
}

void Router::add_streamed(std::string method, std::string pattern, Handler handler, Spool spool,
                          std::string summary) {
  add(std::move(method), std::move(pattern), std::move(handler), std::move(summary));
  routes_.back().spool = std::move(spool);
}

void Router::add(std::string method, std::string pattern, Guarded guarded, std::string summary) {
  add(std::move(method), std::move(pattern), std::move(guarded.handler), std::move(summary));
  routes_.back().admit = std::move(guarded.admit);
  routes_.back().max_body_bytes = guarded.max_body_bytes;
}

void Router::add_streamed(std::string method, std::string pattern, Guarded guarded, Spool spool,
                          std::string summary) {
  add(std::move(method), std::move(pattern), std::move(guarded), std::move(summary));
  routes_.back().spool = std::move(spool);
}

const Route* Router::route_for(std::string_view method,
                               const std::vector<std::string>& segments) const {
  std::vector<const Route*> candidates;
  for (const auto& r : routes_) {
    if (matches(r, segments)) candidates.push_back(&r);
  }
  return best_for(candidates, method);
}

void Router::add_documented(std::string method, std::string pattern, Handler handler,
                            nlohmann::json operation, std::size_t max_body_bytes) {
  std::string summary = operation.value("summary", "");
  add(std::move(method), std::move(pattern), std::move(handler), std::move(summary));
  routes_.back().operation = std::move(operation);
  routes_.back().max_body_bytes = max_body_bytes;
}

Response Router::dispatch(Request& request) const {
  std::vector<const Route*> candidates;
  for (const auto& r : routes_) {
    if (matches(r, request.segments)) candidates.push_back(&r);
  }
  if (candidates.empty()) {
    return error(request, 404, "Not found", "There is nothing at " + request.path + ".");
  }
  const Route* route = best_for(candidates, request.method);
  if (route == nullptr && request.method == "HEAD") route = best_for(candidates, "GET");
  if (route == nullptr) {
    Response r = error(request, 405, "Method not allowed",
                       request.method + " is not allowed on " + request.path + ".");
    r.set_header("Allow", allow_header(candidates));
    return r;
  }
  request.path_params.clear();
  for (std::size_t i = 0; i < route->segments.size(); ++i) {
    if (is_param(route->segments[i])) {
      request.path_params[param_name(route->segments[i])] = request.segments[i];
    }
  }
  return route->handler(request);
}

std::string Router::path_for_log(const Request& request) const {
  if (request.path.empty()) return "";
  const std::vector<std::string>& path = request.segments;
  std::vector<bool> secret(path.size(), false);
  for (const Route& route : routes_) {
    // A {token} hides its segment once every segment before it matches.
    for (std::size_t i = 0; i < route.segments.size() && i < path.size(); ++i) {
      const std::string& want = route.segments[i];
      if (want == "{token}" && !path[i].empty()) secret[i] = true;
      if (is_param(want) ? path[i].empty() : want != path[i]) break;
    }
  }
  if (path.empty()) return "/";
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) out += "/" + (secret[i] ? "…" : path[i]);
  return out;
}

Response Router::error(const Request& request, int status, const std::string& title,
                       const std::string& detail) const {
  if (request.is_api()) return Response::problem(status, title, detail);
  return error_page_(request, status, title, detail);
}

Response plain_error_page(const Request&, int status, const std::string& title,
                          const std::string& detail) {
  std::string body = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                     text::escape_markup(title) +
                     " · peto</title><link rel=\"stylesheet\" href=\"/static/peto.css\">"
                     "</head><body><main id=\"main\"><h1>" +
                     text::escape_markup(title) + "</h1><p>" + text::escape_markup(detail) +
                     "</p><p><a href=\"/\">Back to the start page</a></p></main></body></html>\n";
  return Response::html(status, std::move(body));
}

}  // namespace peto::web
