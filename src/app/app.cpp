#include "app/app.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "core/log.h"
#include "engine/heartbeat.h"

namespace peto::app {

namespace {

// Everything peto writes is for the account it runs as alone: from here on a
// new folder is 0700 and a new file 0600 (the database and its journal, kept
// pages, documents, backups, the secret key). A data folder an older install
// left open to others is closed, which closes everything in it.
void keep_files_private(const Config& config) {
  ::umask(077);
  struct stat st {};
  if (::stat(config.data_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) == 0) return;
  if (::chmod(config.data_dir.c_str(), 0700) == 0)
    log::info("app", "the data folder was open to other users; it is now 0700",
              {{"folder", config.data_dir}});
}

}  // namespace

std::optional<App> load(bool need_secret_key) {
  auto config = Config::from_env();
  if (!config) {
    std::cerr << "peto: " << config.status().message() << "\n";
    return std::nullopt;
  }
  log::configure(config->log_level, config->log_format);
  keep_files_private(*config);
  App app;
  app.config = std::move(*config);
  if (need_secret_key) {
    if (auto s = ensure_secret_key(app.config); !s) {
      std::cerr << "peto: " << s.message() << "\n";
      return std::nullopt;
    }
  }
  return app;
}

bool App::open_db() {
  try {
    db = store::Db::open(config.database_url, 8);
    return true;
  } catch (const store::Error& e) {
    std::cerr << "peto: cannot open the database: " << e.what() << "\n";
    return false;
  }
}

bool App::open_migrated_db() {
  if (!open_db()) return false;
  auto applied = store::Migrator(*db, migrations()).apply();
  if (!applied) {
    std::cerr << "peto: " << applied.status().message() << "\n";
    return false;
  }
  return true;
}

int cmd_migrate(App& app, bool check) {
  if (!app.open_db()) return 1;
  store::Migrator migrator(*app.db, migrations());
  auto st = migrator.state();
  if (!st) {
    std::cerr << "peto: " << st.status().message() << "\n";
    return 1;
  }
  if (check) {
    if (!st->unknown.empty()) {
      std::cout << "The database schema (version " << st->current
                << ") is newer than this peto (version " << st->latest << ").\n";
      return 1;
    }
    if (!st->pending.empty()) {
      std::cout << st->pending.size() << " migration(s) pending (schema version " << st->current
                << ", latest " << st->latest << ").\n";
      return 1;
    }
    std::cout << "Schema is up to date (version " << st->current << ").\n";
    return 0;
  }
  auto applied = migrator.apply();
  if (!applied) {
    std::cerr << "peto: " << applied.status().message() << "\n";
    return 1;
  }
  std::cout << (*applied ? "Applied " + std::to_string(*applied) + " migration(s); "
                         : std::string("Nothing to apply; "))
            << "schema version " << st->latest << ".\n";
  return 0;
}

namespace {
size_t discard(char*, size_t size, size_t n, void*) { return size * n; }
}  // namespace

int cmd_healthcheck(App& app, const std::string& what, int every_s) {
  if (what == "scheduler") {
    // A pass may take up to the lease's worth of time on top of the gap.
    Millis max_age = (2LL * std::max(every_s, 10) + 60) * 1000;
    auto at = engine::read_heartbeat(app.config.scheduler_heartbeat());
    if (!at) {
      std::cerr << "scheduler: unhealthy (no heartbeat at " << app.config.scheduler_heartbeat()
                << ")\n";
      return 1;
    }
    Millis age = app.clock->now_ms() - *at;
    if (age > max_age) {
      std::cerr << "scheduler: unhealthy (last pass finished " << age / 1000 << " s ago; allowed "
                << max_age / 1000 << " s)\n";
      return 1;
    }
    std::cout << "scheduler: healthy (last pass finished " << age / 1000 << " s ago)\n";
    return 0;
  }
  if (what == "worker") {
    // The worker writes at most once a minute (docs/RULES.md #1117); five minutes of
    // silence means it is stuck or gone.
    constexpr Millis kMaxAge = 5 * 60 * 1000;
    auto at = engine::read_heartbeat(app.config.worker_heartbeat());
    Millis age = at ? app.clock->now_ms() - *at : -1;
    if (!at || age > kMaxAge) {
      std::cerr << "worker: unhealthy ("
                << (at ? "last heartbeat " + std::to_string(age / 1000) + " s ago; allowed 300 s"
                       : "no heartbeat at " + app.config.worker_heartbeat())
                << ")\n";
      return 1;
    }
    std::cout << "worker: healthy (last heartbeat " << age / 1000 << " s ago)\n";
    return 0;
  }
  if (what == "web") {
    // The local probe of a container healthcheck: our own listener, so the
    // outgoing-destination policy (for users' webhooks) does not apply.
    std::string host = app.config.listen_host;
    if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
    if (host == "::") host = "::1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    std::string url = "http://" + host + ":" + std::to_string(app.config.listen_port) + "/healthz";
    CURL* curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 5L);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) {
      std::cerr << "web: unhealthy (" << url << ": " << curl_easy_strerror(rc) << ")\n";
      return 1;
    }
    if (status != 200) {
      std::cerr << "web: unhealthy (" << url << " answered " << status << ")\n";
      return 1;
    }
    std::cout << "web: healthy\n";
    return 0;
  }
  std::cerr << "peto: healthcheck: unknown part '" << what
            << "' (expected scheduler, worker or web)\n";
  return 2;
}

int cmd_version() {
  std::cout << "peto " << PETO_VERSION << "\n";
  return 0;
}

}  // namespace peto::app
