// Router: the route table, kept as data so it can be listed (OpenAPI, docs).
//
//   router.add("GET", "/api/v1/items/{id}", handler, "Read one item");
//   ...
//   Response r = router.dispatch(request);   // request.param("id") == "7"
//
// A pattern is a '/'-separated list of literal segments and `{name}`
// parameters; a parameter matches one non-empty decoded segment (so "%2F" in
// it is data, never a separator). When several routes match a path the most
// specific wins: at the first segment where they differ, a literal beats a
// parameter. A path no route matches is 404; a path that matches only with
// other methods is 405 with an `Allow` header. HEAD is answered by the GET
// route (the server drops the body). Errors are problem+json under /api/ and
// an HTML page elsewhere (see set_error_page).
//
// add() and set_error_page() are for start-up; once the server runs, the
// router is only read, from any number of threads at once.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/http.h"

namespace peto::web {

using Handler = std::function<Response(Request&)>;

// Run on the headers of a request that carries a body, before a byte of it
// is read: nullopt lets the body be read; a Response is sent instead, the
// body left unread and the connection closed.
using Admit = std::function<std::optional<Response>(const Request&)>;

// A handler with what its route admits (Site::signed_in: a page that needs a
// session reads no stranger's body).
struct Guarded {
  Handler handler;
  Admit admit = {};                // empty: every body is read
  std::size_t max_body_bytes = 0;  // 0: the server's Options::max_body_bytes
};

// Where a streamed route's multipart body is spooled (http/multipart.h).
// What Spool::admit decides on an upload's headers.
struct Admission {
  // Sent instead of reading the body (left unread; the connection closes).
  std::optional<Response> refusal = std::nullopt;
  // Whose upload it is (an account), for Server::Options::max_spools_per_holder;
  // "" is nobody's in particular.
  std::string holder = "";
};

struct Spool {
  std::string dir;            // a folder for the body files (made when missing)
  std::size_t max_bytes = 0;  // larger bodies are answered 413
  std::string too_large;      // the 413's detail
  // Run on the request's headers before a byte of the body is read. Empty:
  // every request is let in, nobody's.
  std::function<Admission(const Request&)> admit = {};
};

// Renders an HTML error page: status, title and a detail for the reader.
using ErrorPage = std::function<Response(const Request&, int status, const std::string& title,
                                         const std::string& detail)>;

struct Route {
  std::string method;   // upper case: "GET", "POST", ...
  std::string pattern;  // "/api/v1/items/{id}"
  Handler handler;
  std::string summary;                // one line for the OpenAPI document; may be empty
  std::vector<std::string> segments;  // pattern split on '/'; "{id}" kept as written
  nlohmann::json operation;           // its OpenAPI operation object; null when undocumented
  std::optional<Spool> spool;         // set by add_streamed
  // The largest body read into memory for it; 0 is the server's
  // Options::max_body_bytes. Checked on the headers, before the body is read.
  std::size_t max_body_bytes = 0;
  Admit admit = {};  // set by add() with a Guarded handler
};

class Router {
 public:
  Router();

  // Adds a route. Throws std::invalid_argument on a malformed pattern (not
  // starting with '/', an empty or unclosed `{}`, a repeated parameter name)
  // or a method+pattern pair that is already there: both are programming errors.
  void add(std::string method, std::string pattern, Handler handler, std::string summary = {});
  // The same for a handler with its admission and body limit.
  void add(std::string method, std::string pattern, Guarded guarded, std::string summary = {});
  // The same with the route's OpenAPI operation object (its "summary" is the
  // route's summary); openapi_document() lists it.
  void add_documented(std::string method, std::string pattern, Handler handler,
                      nlohmann::json operation, std::size_t max_body_bytes = 0);

  // A route whose multipart/form-data body the server spools to a file in
  // spool.dir instead of reading it into memory (http/multipart.h).
  void add_streamed(std::string method, std::string pattern, Handler handler, Spool spool,
                    std::string summary = {});
  // The same for a guarded handler: its admission is for bodies that are not
  // spooled (Spool::admit decides on those).
  void add_streamed(std::string method, std::string pattern, Guarded guarded, Spool spool,
                    std::string summary = {});
  // The route `method` and `segments` reach; nullptr for a 404 or 405.
  const Route* route_for(std::string_view method, const std::vector<std::string>& segments) const;

  // Finds the route and calls it; 404/405 as above. Exceptions from the
  // handler propagate (the server turns them into a logged 500).
  Response dispatch(Request& request) const;

  // An error answer in the right form for the request: problem+json under
  // /api/, the HTML error page elsewhere.
  Response error(const Request& request, int status, const std::string& title,
                 const std::string& detail) const;

  // Replaces the built-in plain HTML error page (pages.cpp installs the
  // templated one).
  void set_error_page(ErrorPage page) { error_page_ = std::move(page); }

  const std::vector<Route>& routes() const { return routes_; }

  // The path of `request` as the logs show it: a segment that a route's
  // `{token}` parameter takes (a calendar feed's or an invitation's secret) is
  // "…", whichever method the request used and whether or not the rest of the
  // path matches, so whoever reads the logs cannot use it. "" when the
  // request target was not a valid path.
  std::string path_for_log(const Request& request) const;

 private:
  std::vector<Route> routes_;
  ErrorPage error_page_;
};

// The plain built-in error page: a minimal, escaped HTML document.
Response plain_error_page(const Request& request, int status, const std::string& title,
                          const std::string& detail);

}  // namespace peto::web
