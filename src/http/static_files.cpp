#include "http/static_files.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>

namespace peto::web {

namespace {

namespace fs = std::filesystem;

// Static files are ours (stylesheet, icons): anything bigger is a mistake.
constexpr std::uintmax_t kMaxStaticFileBytes = 8 << 20;

bool safe_segment(const std::string& segment) {
  return !segment.empty() && segment.front() != '.' &&
         segment.find_first_of(std::string_view("/\\\0", 3)) == std::string::npos;
}

// True when `inner` is `outer` itself or lies below it (both canonical).
bool is_within(const fs::path& outer, const fs::path& inner) {
  auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end();
}

// The file a request names, or empty when it names none we may serve.
fs::path resolve(const fs::path& root, const Request& request) {
  if (request.segments.size() < 2) return {};
  fs::path file = root;
  for (std::size_t i = 1; i < request.segments.size(); ++i) {
    if (!safe_segment(request.segments[i])) return {};
    file /= request.segments[i];
  }
  std::error_code ec;
  fs::path real_root = fs::canonical(root, ec);
  if (ec) return {};
  fs::path real_file = fs::canonical(file, ec);
  if (ec || !is_within(real_root, real_file) || !fs::is_regular_file(real_file, ec)) return {};
  if (fs::file_size(real_file, ec) > kMaxStaticFileBytes || ec) return {};
  return real_file;
}

}  // namespace

bool is_static_path(const Request& request) {
  return !request.segments.empty() && request.segments.front() == "static";
}

Response serve_static(const fs::path& root, const Request& request, const Router& router) {
  if (request.method != "GET" && request.method != "HEAD") {
    Response r = router.error(request, 405, "Method not allowed", "Static files can only be read.");
    r.set_header("Allow", "GET, HEAD");
    return r;
  }
  fs::path file = resolve(root, request);
  std::ifstream in;
  if (!file.empty()) in.open(file, std::ios::binary);
  if (!in.is_open())
    return router.error(request, 404, "Not found", "There is no file at " + request.path + ".");
  std::ostringstream body;
  body << in.rdbuf();
  Response r;
  r.status = 200;
  r.set_header("Content-Type", content_type_for(file));
  r.set_header("Cache-Control", "public, max-age=3600");
  r.body = std::move(body).str();
  return r;
}

std::string content_type_for(const fs::path& file) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".webp", "image/webp"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
      {".webmanifest", "application/manifest+json"},
  };
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  for (const auto& [e, type] : kTypes) {
    if (ext == e) return type;
  }
  return "application/octet-stream";
}

}  // namespace peto::web
