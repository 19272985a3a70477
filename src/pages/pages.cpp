#include "pages/pages.h"

#include <memory>

#include "core/log.h"
#include "pages/templates.h"

namespace peto::web {

namespace {

// The layout's data every page shares; a page adds its own keys.
nlohmann::json page_data(std::string title) {
  return {{"title", std::move(title)}, {"has_nav", false}, {"nav", nlohmann::json::array()}};
}

// Error pages use the templates, and fall back to the plain page when the
// templates themselves are what failed, so an error never hides an error.
ErrorPage templated_error_page(std::shared_ptr<const Templates> templates) {
  return [templates = std::move(templates)](const Request& request, int status,
                                            const std::string& title, const std::string& detail) {
    try {
      nlohmann::json data = page_data(title);
      data["status"] = status;
      data["detail"] = detail;
      return Response::html(status, templates->render_page("error", data));
    } catch (const std::exception& e) {
      log::error("web", "error page failed", {{"error", e.what()}});
      return plain_error_page(request, status, title, detail);
    }
  };
}

Response home(const Templates& templates, const CoreDeps& deps) {
  nlohmann::json data = page_data("Welcome");
  data["has_accounts"] = deps.has_accounts ? deps.has_accounts() : false;
  Response r = Response::html(200, templates.render_page("home", data));
  r.set_header("Cache-Control", "no-cache");
  return r;
}

}  // namespace

// `SELECT 1` answers whether the database can run a statement now. A Db
// that cannot connect throws within its connect timeout, so this never hangs
// longer than that.
Response health(store::Db* db) {
  Response r = Response::json(503, {{"status", "unavailable"}, {"database", "unreachable"}});
  try {
    if (db != nullptr) {
      store::ping(*db);
      r = Response::json(200, {{"status", "ok"}, {"database", "ok"}});
    }
  } catch (const std::exception& e) {
    log::warn("web", "health check: database unreachable", {{"error", e.what()}});
  }
  r.set_header("Cache-Control", "no-store");
  return r;
}

void add_core_routes(Router& router, const CoreDeps& deps) {
  auto templates = std::make_shared<Templates>(
      deps.templates_dir, nlohmann::json{{"product", "peto"}, {"version", deps.version}});
  router.set_error_page(templated_error_page(templates));
  if (deps.home)
    router.add("GET", "/", deps.home, "Dashboard");
  else
    router.add(
        "GET", "/", [templates, deps](Request&) { return home(*templates, deps); }, "Start page");
  store::Db* db = deps.db;
  router.add(
      "GET", "/healthz", [db](Request&) { return health(db); },
      "Liveness and database reachability");
}

}  // namespace peto::web
