// Backup and restore of the whole instance (docs/SPEC.md §6), and the scheduled
// backup that runs after the pass, outside its lease (docs/SPEC.md §6, Backup and restore).
//
// An archive is a .tar.gz holding, in this order:
//   manifest.json  format "peto-backup", version 1, the engine, the schema
//                  version, when and by which peto it was made, and every
//                  other entry with its size and SHA-256;
//   db/peto.db     SQLite: a consistent copy made with the online backup API;
//   db/<t>.copy    PostgreSQL: each table as COPY text, all read in one
//                  REPEATABLE READ snapshot, in an order that satisfies the
//                  foreign keys (the manifest lists tables, columns and the
//                  identity sequences' values);
//   media/…, pages/…  the uploaded files and kept capture pages;
//   secret_key     only when the key lives in the data folder (PETO_SECRET_KEY
//                  unset): the sealed connection secrets need it.
// The backups folder itself, exports and temp files never travel.
//
// An archive is written under a temp name, read back in full (every entry
// against the manifest; a SQLite copy must pass PRAGMA integrity_check), and
// only then named peto-backup-YYYYMMDD-HHMMSS[-n].tar.gz.
//
// Restore reads and checks the whole archive into a staging folder before it
// changes anything, refuses the other engine, entries that escape (absolute,
// `..`, links, folders, anything the manifest does not list), a schema newer
// than this peto (see RestoreOptions::allow_newer) and a non-empty instance
// unless forced; then puts the database in place (SQLite: the file, renamed
// over; PostgreSQL: one transaction that recreates the schema up to the
// archive's version and COPYs the rows in), moves the files in, and applies
// the remaining migrations.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::media {

// Receives a line of progress for people waiting on a long command.
using Progress = std::function<void(const std::string&)>;

// The task kind of a scheduled backup run by the worker.
inline constexpr const char* kScheduledBackupTask = "backup.scheduled";
// The cache key of the global backup lock (6 h, a token value).
inline constexpr const char* kBackupLockKey = "peto:backup:running";

// Writes a verified archive into `out_dir` (created if needed); returns its
// path. The manifest records the schema version of the data (the highest
// applied migration), so that a restore can tell whether it may migrate.
Result<std::string> write_backup(const Config& config, store::Db& db, const std::string& out_dir,
                                 const Clock& clock, const Progress& progress = {});

// `peto backup`: write_backup under the global backup lock the scheduled run
// takes (one backup at a time); Status::conflict "Another backup is running."
// when it is held. Temp entries an interrupted backup left in the folder are
// removed first.
Result<std::string> write_backup_locked(const Config& config, store::Db& db,
                                        const std::string& out_dir, const Clock& clock,
                                        const Progress& progress = {});

// Removes the temp entries (.peto-backup-*) in `dir` last written more than
// 6 h ago: the leftovers of a backup that was killed. Call with the lock held.
// Returns how many were removed.
int remove_stale_backup_temps(const std::string& dir);

// Reads `archive` through and checks it as restore would, writing nothing
// that stays; returns its manifest.
Result<nlohmann::json> verify_backup(const std::string& archive);

struct RestoreOptions {
  // Allow an archive whose schema is newer than this peto. SQLite: the file is
  // put in place unmigrated, for a newer peto to run on (this one refuses to).
  // PostgreSQL: cannot be honoured (this peto cannot create tables it does not
  // know), so the archive is still refused.
  bool allow_newer = false;
  // Replace a non-empty instance (its database and files are lost).
  bool force = false;
  // Every migration this peto knows (app::migrations()).
  std::vector<store::Migration> migrations;
  Progress progress;
};

struct Restored {
  std::string engine;
  int schema_version = 0;   // the archive's
  int migrated = 0;         // migrations applied after it
  bool unmigrated = false;  // --allow-newer left it as the archive had it
  bool secret_key = false;  // the data folder's key came from the archive
  std::int64_t files = 0;
  // Rows whose file path led outside its folder (core/stored_path.h): their
  // path is cleared and an upload is marked missing. A backup peto made has none.
  std::int64_t stray_paths = 0;
};

// Restores `archive` into the instance `config` names (the database must not
// be open elsewhere in this process; stop peto's server, scheduler and worker
// first). Refusals are Status::invalid (bad archive) or conflict (not empty,
// other engine, newer schema), with nothing changed.
Result<Restored> restore_backup(const Config& config, const std::string& archive,
                                const RestoreOptions& options);

// The schedule (docs/SPEC.md §6, Backup and restore): the most recent slot at or before `now`
// (daily: backup_hour:00 UTC; weekly: that hour on backup_weekday), or
// nullopt when the schedule is off.
std::optional<Millis> last_backup_slot(const Config& config, Millis now);

enum class ScheduledStart { off, not_due, claimed_elsewhere, enqueued, ran, failed };

// After the pass: a claimed run with no outcome after 6 h (last_run_ok null)
// is first recorded as failed ("interrupted"). Then, when due (last_run_at
// null or before the last slot), claims
// the run with a conditional UPDATE on the value read; then `enqueue` (if
// given, and it returns true) hands it to the worker, else it runs here.
ScheduledStart start_scheduled_backup(const Config& config, store::Db& db, const Clock& clock,
                                      const std::function<bool()>& enqueue = {});

// One scheduled run: takes the global lock, writes the backup, records the
// outcome in backup_state and, on success, applies retention.
Status run_scheduled_backup(const Config& config, store::Db& db, const Clock& clock);

// Keeps the newest `keep` peto-backup-*.tar.gz in `dir` and deletes the rest;
// uploaded archives (peto-upload-*) and other files are never touched.
// Returns how many were deleted.
int prune_backups(const std::string& dir, int keep);

// What the last scheduled backup did, from backup_state: when one last
// succeeded (nullopt: never) and, when the latest run failed, why.
struct BackupRecord {
  std::optional<Millis> last_ok_at;
  bool last_failed = false;
  std::string last_error;
};
BackupRecord last_backup(store::Db& db);

struct Backups {
  // Migration 12: backup_state, one row: the schedule's claim (last_run_at)
  // and the outcome of the last run.
  static std::vector<store::Migration> migrations();
};

}  // namespace peto::media
