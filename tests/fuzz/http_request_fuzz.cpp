// Fuzzes what peto does with the bytes of an HTTP request: Beast's parser
// with the limits the server sets (http/server_session.cpp), then, for a request that
// came out whole, the server's own path: the Request peto builds (target,
// path, segments and query decoded), the static files, and every route of the
// web app and the API (add_site_routes, add_api_routes, /metrics) on a real,
// migrated SQLite file: route matching, 404/405, cookies, sessions, CSRF
// checks (form and multipart bodies), Bearer tokens, query strings.
//
// The input may name a live session and API token: "@SESSION@" in it is
// replaced by a signed-in session's cookie value and "@TOKEN@" by an API
// token's secret, so the signed-in pages and the API's routes are reached
// too. A page's writes need the CSRF token as well, which the input cannot
// know; an API write with the live token is not sent (it could make the
// server fetch pages from the network: captures).
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/api.h"
#include "api/metrics.h"
#include "core/config.h"
#include "domain/api_tokens.h"
#include "http/server.h"
#include "http/static_files.h"
#include "pages/routes.h"
#include "pages/site.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using namespace peto;

struct App {
  App() : w(fuzz::world()) {
    const std::filesystem::path source = PETO_SOURCE_DIR;
    config.data_dir = (w.dir / "data").string();
    web::SiteDeps deps;
    deps.db = w.db.get();
    deps.clock = &w.clock;
    deps.config = &config;
    deps.templates_dir = source / "templates";
    deps.locales_dir = source / "locales";
    site = std::make_unique<web::Site>(deps);
    if (!site->load()) fuzz::broken("the templates or the catalogue do not load");
    web::CoreDeps core;
    core.db = w.db.get();
    core.templates_dir = source / "templates";
    core.version = "fuzz";
    core.has_accounts = [this] { return site->accounts().any(); };
    web::add_site_routes(router, *site, core);
    web::add_api_routes(router, *site);
    web::add_metrics_route(router, {w.db.get(), &w.clock});
    static_dir = source / "static";
    owner = w.new_account();
    domain::ApiTokens tokens(*w.db, w.clock);
    auto made = tokens.create(owner, "fuzz", domain::all_scopes());
    if (!std::holds_alternative<domain::NewToken>(made)) fuzz::broken("cannot make an API token");
    token = std::get<domain::NewToken>(made).secret;
  }

  // A live session: opened again when the last one has signed out or expired.
  const std::string& session() {
    if (session_token.empty() || !site->accounts().session(session_token))
      session_token = site->accounts().open_session(owner).token;
    return session_token;
  }

  fuzz::World& w;
  Config config;
  std::unique_ptr<web::Site> site;
  web::Router router;
  std::filesystem::path static_dir;
  std::int64_t owner = 0;
  std::string token;
  std::string session_token;
};

void replace_all(std::string& s, std::string_view from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// As Session::request_from and Session::answer build it.
web::Request request_from(const http::request<http::string_body>& msg) {
  web::Request request;
  request.method = std::string(msg.method_string());
  request.remote_address = "127.0.0.1";
  for (const auto& field : msg)
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  request.body = msg.body();
  return request;
}

// The answer peto sends must be one it can send.
void check(const web::Response& r) {
  if (r.status < 100 || r.status > 599) fuzz::broken("a status out of range");
  if (r.status >= 500) fuzz::broken("a request answered with a server error");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static App app;
  // Each request a little later, so rate-limit windows and sessions move on.
  app.w.clock.advance(std::chrono::seconds(7));

  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.find("@SESSION@") != std::string::npos) replace_all(bytes, "@SESSION@", app.session());
  replace_all(bytes, "@TOKEN@", app.token);

  const web::Server::Options limits;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser.body_limit(limits.max_body_bytes);
  parser.eager(true);
  // The bytes as the reads of a connection hand them over, then its end.
  std::string_view rest = bytes;
  while (!parser.is_done()) {
    beast::error_code ec;
    std::size_t n = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    rest.remove_prefix(n);
    if (ec == http::error::need_more && n > 0 && !rest.empty()) continue;
    if (ec == http::error::need_more) {
      parser.put_eof(ec);
      break;
    }
    if (ec || n == 0) break;
  }
  if (!parser.is_done()) return 0;

  http::request<http::string_body> msg = parser.release();
  web::Request request = request_from(msg);
  const bool reading = request.method == "GET" || request.method == "HEAD";
  if (!reading && bytes.find(app.token) != std::string::npos) return 0;
  if (!request.set_target(msg.target())) return 0;  // the server answers 400 itself
  web::Response response;
  try {
    response = web::is_static_path(request) ? web::serve_static(app.static_dir, request, app.router)
                                            : app.router.dispatch(request);
  } catch (const std::exception& e) {
    // The server would log it and answer 500: a request must not get there.
    std::fprintf(stderr, "handler threw: %s\n", e.what());
    fuzz::broken("a request made a handler throw");
  }
  web::add_security_headers(response);
  // PETO_FUZZ_SHOW=1: each request's answer on stderr, to see what the seeds reach.
  static const bool show = std::getenv("PETO_FUZZ_SHOW") != nullptr;
  if (show)
    std::fprintf(stderr, "%s %s -> %d\n", request.method.c_str(), request.path.c_str(),
                 response.status);
  check(response);
  return 0;
}
