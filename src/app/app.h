// App: the configured parts one command needs, and the commands themselves.
//
// main.cpp parses flags and calls exactly one function here. Each returns the
// process exit code: 0 success, 1 failure (with a message on stderr), 2 bad
// input (one line naming what was wrong).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::app {

// Every migration of every module, in order (app/schema.cpp).
std::vector<store::Migration> migrations();

struct App {
  Config config;
  const Clock* clock = &system_clock();
  std::unique_ptr<store::Db> db;  // opened by open_db()

  // Whether a command may make the database: `up`, `serve`, `migrate` and
  // `demo` set one up (create); `migrate --check` reads one that is there,
  // with or without tables (present); every other command works on a peto
  // database (existing), so run from the wrong folder it says so instead of
  // starting an empty one.
  enum class Reach { existing, present, create };
  // Opens the database named by the config. 0, or the exit code with the
  // reason printed: 2 when there is no SQLite file (existing, present) or no
  // peto tables in it (existing), 1 when it cannot be opened.
  int open_db(Reach reach = Reach::existing);
  // open_db(existing), then applies pending migrations; 0 or the exit code,
  // with the reason printed.
  int open_migrated_db();
  // The database, for a person: the SQLite file's absolute path, or the
  // PostgreSQL URL without its password.
  std::string database_name() const;
  // Prints "database: <database_name()>" on stdout: every command that
  // writes says where it wrote.
  void say_database() const;
};

// http://HOST:PORT of a listener on `host`, as a browser on this machine
// reaches it (a wildcard address becomes loopback).
std::string local_base_url(std::string host, int port);

// Reads the environment, sets up logging; on a bad value prints one line and
// returns nullopt (the caller exits 2).
std::optional<App> load(bool need_secret_key);

struct ScheduleOptions {
  bool loop = false;
  int every_s = 300;        // floors at 10
  int sync_budget_s = 120;  // 0 = no limit
  bool json = false;
};

struct WorkOptions {
  bool once = false;
  double every_s = 2.0;  // first idle wait; backs off to a ceiling
  std::string queue = "default";
  int concurrency = 4;
};

class StopSignals;
// The worker of `peto work` and `peto up`; returns once stopped. False when a
// task was still running after the grace period (the process must end now).
bool worker_loop(App& app, const WorkOptions& o, StopSignals& signals);
// The scheduler loop of `peto schedule --loop` and `peto up`; returns once a
// stop is asked for.
void scheduler_loop(App& app, const ScheduleOptions& o, StopSignals& signals);

int cmd_migrate(App& app, bool check);
int cmd_schedule(App& app, const ScheduleOptions& o);
int cmd_work(App& app, const WorkOptions& o);
int cmd_serve(App& app, const std::string& listen_override);
int cmd_up(App& app);
int cmd_healthcheck(App& app, const std::string& what, int every_s);
int cmd_version();
// The password for `email`: asked twice, without echo, when `in` is the
// standard input of a terminal; else the first line of `in` if `from_stdin`
// (--password-stdin). Nothing, with the reason printed, otherwise.
std::optional<std::string> read_password(std::istream& in, bool from_stdin,
                                         const std::string& email);
// `peto user create`: the password as read_password reads it.
int cmd_user_create(App& app, const std::string& email, bool admin, bool password_stdin,
                    std::istream& password_in);
// `peto user list`: one tab-separated line per account.
int cmd_user_list(App& app);
// `peto user set-password`: every session of the account ends.
int cmd_user_set_password(App& app, const std::string& email, bool password_stdin,
                          std::istream& password_in);
// `peto user activate` / `deactivate`.
int cmd_user_set_active(App& app, const std::string& email, bool active);
// `peto user recover`: prints a recovery link (as the invite's) alone on the
// last line.
int cmd_user_recover(App& app, const std::string& email);
// `peto user reset-two-factor`: two-step sign-in off, for a person who lost
// their authenticator and their recovery codes.
int cmd_user_reset_two_factor(App& app, const std::string& email);
// `peto user delete`: the account and everything in it (purge/accounts.h);
// refused without `yes`.
int cmd_user_delete(App& app, const std::string& email, bool yes);
// `peto invite create`: prints the invite link (a path unless PETO_PUBLIC_URL
// is set) alone on the last line.
int cmd_invite_create(App& app, const std::string& by_email, const std::string& bound_email);
// `peto token create`: prints the new secret alone on the last line (it is
// shown only this once). Unknown or inactive account, bad scope or name: 2.
int cmd_token_create(App& app, const std::string& user_email, const std::string& name,
                     const std::vector<std::string>& scopes);
// `peto token list`: one line per live token, newest first.
int cmd_token_list(App& app, const std::string& user_email);
// `peto token revoke`: 2 when the account has no such live token.
int cmd_token_revoke(App& app, const std::string& user_email, std::int64_t id);
// `peto demo`: an account with a realistic job search in it (app/demo.cpp).
// load_demo fills `owner`'s empty account through the domain API, dated
// around `clock`'s now; it throws std::logic_error if the domain refuses it.
void load_demo(store::Db& db, const Clock& clock, std::int64_t owner);
int cmd_demo(App& app, const std::string& email, bool password_stdin, std::istream& password_in);

// `peto verify-media` (app/media_commands.cpp): checks every upload now and
// lists missing, changed and stray files; 1 when any is damaged.
int cmd_verify_media(App& app);
// `peto prune-media`: lists files no row names; deletes them with `remove`.
int cmd_prune_media(App& app, bool remove);
// `peto export` / `peto import` (app/transfer.cpp).
int cmd_export(App& app, const std::string& user_email, const std::string& out);
int cmd_import(App& app, const std::string& file, const std::string& user_email, bool force);
// `peto backup` / `peto restore` (app/backup.cpp). out_dir "" = PETO_BACKUP_DIR.
int cmd_backup(App& app, const std::string& out_dir);
int cmd_restore(App& app, const std::string& file, bool allow_newer, bool force);

}  // namespace peto::app
