#include "app/app.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string_view>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

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
  log::configure(
      config->log_level,
      config->log_format.value_or(::isatty(STDERR_FILENO) ? log::Format::text : log::Format::json));
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

namespace {

constexpr std::string_view kSqlitePrefix = "sqlite://";

std::string_view sqlite_path(const std::string& url) {
  std::string_view u = url;
  return u.substr(0, kSqlitePrefix.size()) == kSqlitePrefix ? u.substr(kSqlitePrefix.size())
                                                            : std::string_view();
}

}  // namespace

std::string local_base_url(std::string host, int port) {
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(port);
}

std::string App::database_name() const {
  if (std::string_view path = sqlite_path(config.database_url); !path.empty()) {
    std::error_code ec;
    auto full = std::filesystem::absolute(std::filesystem::path(path), ec);
    return ec ? std::string(path) : full.lexically_normal().string();
  }
  auto url = boost::urls::parse_uri(config.database_url);
  if (!url) return "PostgreSQL";
  boost::urls::url shown = *url;
  if (shown.has_password()) shown.set_password("***");
  return std::string(shown.buffer());
}

void App::say_database() const { std::cout << "database: " << database_name() << "\n"; }

int App::open_db(Reach reach) {
  const std::string missing = "peto: no peto database at " + database_name() +
                              " \u2014 run `peto migrate` or set PETO_DATA_DIR\n";
  std::string_view path = sqlite_path(config.database_url);
  std::error_code ec;
  if (reach != Reach::create && !path.empty() &&
      !std::filesystem::exists(std::filesystem::path(path), ec)) {
    std::cerr << missing;
    return 2;
  }
  bool has_schema = true;
  try {
    db = store::Db::open(config.database_url, 8);
    // A database without peto's tables: a PostgreSQL database made by hand,
    // or an empty file an older peto left behind. Read only: a refusal
    // writes nothing there.
    if (reach == Reach::existing) has_schema = store::any_migration_applied(*db->acquire());
  } catch (const store::Error& e) {
    std::cerr << "peto: cannot open the database: " << e.what() << "\n";
    return 1;
  }
  if (!has_schema) {
    std::cerr << missing;
    return 2;
  }
  return 0;
}

int App::open_migrated_db() {
  if (int rc = open_db(); rc != 0) return rc;
  auto applied = store::Migrator(*db, migrations()).apply();
  if (!applied) {
    std::cerr << "peto: " << applied.status().message() << "\n";
    return 1;
  }
  return 0;
}

int cmd_migrate(App& app, bool check) {
  if (int rc = app.open_db(check ? App::Reach::present : App::Reach::create); rc != 0) return rc;
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
  app.say_database();
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
    std::string url = local_base_url(app.config.listen_host, app.config.listen_port) + "/healthz";
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
