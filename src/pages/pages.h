// Core pages: the start page, the error pages and /healthz.
//
//   web::CoreDeps deps{.db = db, .templates_dir = "templates", .version = PETO_VERSION,
//                      .has_accounts = [&] { return accounts.any(); }};
//   web::add_core_routes(router, deps);
//
// add_core_routes adds the routes and installs the templated HTML error page
// on the router. Templates are read from `templates_dir` on first use (see
// templates.h). The Db is only borrowed: it must outlive the router.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "http/router.h"
#include "store/db.h"

namespace peto::web {

struct CoreDeps {
  store::Db* db = nullptr;              // nullptr: /healthz reports the database unreachable
  std::filesystem::path templates_dir;  // holds layout.mustache, home.mustache, error.mustache
  std::string version;                  // shown in the footer
  std::function<bool()> has_accounts;   // empty or false: the start page explains the first account
  Handler home;  // answers GET / instead of the start page (the dashboard), when set
};

// GET /        the start page (or deps.home)
// GET /healthz 200 {"status":"ok","database":"ok"} or 503 when `SELECT 1` fails
void add_core_routes(Router& router, const CoreDeps& deps);

// The /healthz answer for `db`. Never throws; a failure is logged at warning.
Response health(store::Db* db);

}  // namespace peto::web
