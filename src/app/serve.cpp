// `peto serve` and `peto up`: the long-running roles of one process.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

#include "api/api.h"
#include "api/metrics.h"
#include "app/app.h"
#include "app/signals.h"
#include "core/log.h"
#include "http/router.h"
#include "http/server.h"
#include "pages/pages.h"
#include "pages/routes.h"

namespace peto::app {

namespace {

// The open-file limit raised to its ceiling, and how many connections fit in
// it beside the database, uploads and logs: at most Options' default.
int connections_that_fit(int wanted) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return wanted;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  constexpr rlim_t kOtherFiles = 128;
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= static_cast<rlim_t>(wanted) + kOtherFiles)
    return wanted;
  return std::max(16, static_cast<int>(lim.rlim_cur) - static_cast<int>(kOtherFiles));
}

// Templates and static files: next to the binary's source tree in a build,
// or PETO_ASSETS_DIR when installed elsewhere.
std::filesystem::path assets_dir() {
  if (const char* dir = std::getenv("PETO_ASSETS_DIR")) return dir;
  return PETO_SOURCE_DIR;
}

int serve_until_stopped(App& app, StopSignals& signals) {
  web::Router router;
  web::CoreDeps deps;
  deps.db = app.db.get();
  deps.templates_dir = assets_dir() / "templates";
  deps.version = PETO_VERSION;
  web::SiteDeps site_deps;
  site_deps.db = app.db.get();
  site_deps.clock = app.clock;
  site_deps.config = &app.config;
  site_deps.templates_dir = assets_dir() / "templates";
  site_deps.locales_dir = assets_dir() / "locales";
  web::Site site(site_deps);
  if (Status s = site.load(); !s) {
    std::cerr << "peto: " << s.message() << "\n";
    return 1;
  }
  // Before `peto migrate` there is no users table: the start page then
  // explains the first account, as on a fresh database.
  deps.has_accounts = [&site] {
    try {
      return site.accounts().any();
    } catch (const std::exception&) {
      return false;
    }
  };
  web::add_site_routes(router, site, deps);
  web::add_api_routes(router, site);
  web::add_metrics_route(router, {app.db.get(), app.clock});

  web::Server::Options opts;
  opts.host = app.config.listen_host;
  opts.port = app.config.listen_port;
  opts.threads = 4;
  // Forms read into memory keep the default (a few hundred KiB at most);
  // uploads stream to disk under their route's own limit (PETO_UPLOAD_MAX_MB).
  opts.trusted_proxies = app.config.trusted_proxies;
  opts.max_connections = connections_that_fit(opts.max_connections);
  opts.static_dir = assets_dir() / "static";
  web::Server server(opts, router);
  if (Status s = server.start(); !s) {
    std::cerr << "peto: " << s.message() << "\n";
    return 1;
  }
  const auto unhook = signals.on_stop([&server] { server.stop(); });
  log::info("web", "listening",
            {{"address", app.config.listen_host + ":" + std::to_string(server.port())},
             {"database", app.db->describe()}});
  if (::isatty(STDERR_FILENO)) {
    const std::string url = app.config.public_url.empty()
                                ? local_base_url(app.config.listen_host, server.port())
                                : app.config.public_url;
    std::error_code ec;
    std::cerr << "peto is serving " << url << "\n  data folder: "
              << std::filesystem::absolute(app.config.data_dir, ec).lexically_normal().string()
              << "\n  database: " << app.database_name() << "\n  stop it with Ctrl-C\n"
              << std::flush;
  }
  server.run();
  log::info("web", "stopped");
  return 0;
}

}  // namespace

int cmd_serve(App& app, const std::string& listen_override) {
  if (!listen_override.empty()) {
    std::string value = listen_override;
    auto parsed = Config::from_env([&](const char* name) -> const char* {
      if (std::string(name) == "PETO_LISTEN") return value.c_str();
      return nullptr;
    });
    if (!parsed) {
      std::cerr << "peto: --listen: " << parsed.status().message() << "\n";
      return 2;
    }
    app.config.listen_host = parsed->listen_host;
    app.config.listen_port = parsed->listen_port;
  }
  StopSignals signals;
  if (int rc = app.open_db(App::Reach::create); rc != 0) return rc;
  store::Migrator migrator(*app.db, migrations());
  auto st = migrator.state();
  if (st && !st->pending.empty())
    log::warn("web", "the database has pending migrations; run `peto migrate`",
              {{"pending", st->pending.size()}});
  return serve_until_stopped(app, signals);
}

int cmd_up(App& app) {
  StopSignals signals;
  if (int rc = app.open_db(App::Reach::create); rc != 0) return rc;
  store::Migrator migrator(*app.db, migrations());
  auto applied = migrator.apply();
  if (!applied) {
    std::cerr << "peto: " << applied.status().message() << "\n";
    return 1;
  }
  ScheduleOptions schedule;
  schedule.loop = true;
  std::thread scheduler([&] { scheduler_loop(app, schedule, signals); });
  bool worker_clean = true;
  std::thread worker([&] { worker_clean = worker_loop(app, WorkOptions{}, signals); });
  int code = serve_until_stopped(app, signals);
  signals.request_stop();
  scheduler.join();
  worker.join();
  if (!worker_clean) std::_Exit(code);  // a task handler is still running: end now
  return code;
}

}  // namespace peto::app
