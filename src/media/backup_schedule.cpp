// The scheduled backup and what keeps backups in order (media/backups.h):
// the schedule's slots and its claim in backup_state, the global backup lock,
// the removal of what interrupted backups left, and retention.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include "core/log.h"
#include "core/token.h"
#include "core/utf8.h"
#include "media/backups.h"
#include "store/cache.h"

namespace peto::media {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxError = 500;
constexpr const char* kInterruptedError =
    "The backup was interrupted: it did not finish within 6 hours of starting.";

// The global lock (docs/SPEC.md §6, Backup and restore), released when this goes out of scope.
class BackupLock {
 public:
  BackupLock(store::Db& db, const Clock& clock) : cache_(db, clock), token_(random_token()) {
    held_ = cache_.add(kBackupLockKey, token_, kStale);
  }
  BackupLock(const BackupLock&) = delete;
  BackupLock& operator=(const BackupLock&) = delete;
  ~BackupLock() {
    if (!held_) return;
    try {
      cache_.delete_if(kBackupLockKey, token_);
    } catch (const std::exception& e) {
      log::warn("backup", "could not release the backup lock", {{"error", e.what()}});
    }
  }
  bool held() const { return held_; }

  // How long the lock lasts, and after which a run's leftovers are stale.
  static constexpr std::chrono::hours kStale{6};

 private:
  store::Cache cache_;
  std::string token_;
  bool held_ = false;
};

void record_failure(store::Db& db, const std::string& error) {
  db.query(
      "UPDATE backup_state SET last_run_ok = 0, last_error = ?, failures = failures + 1"
      " WHERE id = 1",
      {utf8_cut(error, kMaxError)});
}

}  // namespace

BackupRecord last_backup(store::Db& db) {
  BackupRecord out;
  auto rows = db.query("SELECT last_ok_at, last_run_ok, last_error FROM backup_state WHERE id = 1");
  if (rows.empty()) return out;
  out.last_ok_at = rows[0].opt_int("last_ok_at");
  out.last_failed = rows[0].opt_int("last_run_ok").value_or(1) == 0;
  if (out.last_failed) out.last_error = rows[0].text("last_error");
  return out;
}

std::optional<Millis> last_backup_slot(const Config& config, Millis now) {
  constexpr Millis kHour = 3'600'000;
  constexpr Millis kDay = 24 * kHour;
  if (config.backup_schedule != "daily" && config.backup_schedule != "weekly") return std::nullopt;
  Millis slot = (now / kDay) * kDay + config.backup_hour * kHour;
  if (slot > now) slot -= kDay;
  if (config.backup_schedule == "weekly") {
    // 1970-01-01 was a Thursday: weekday 3 counting from Monday.
    Millis weekday = (slot / kDay + 3) % 7;
    slot -= ((weekday - config.backup_weekday + 7) % 7) * kDay;
  }
  return slot;
}

ScheduledStart start_scheduled_backup(const Config& config, store::Db& db, const Clock& clock,
                                      const std::function<bool()>& enqueue) {
  Millis now = clock.now_ms();
  auto slot = last_backup_slot(config, now);
  if (!slot) return ScheduledStart::off;
  // A run claimed long ago that never recorded an outcome was killed (the
  // process stopped, the machine went down): it counts as a failure.
  constexpr Millis kInterrupted =
      std::chrono::duration_cast<std::chrono::milliseconds>(BackupLock::kStale).count();
  auto marked = db.query(
      "UPDATE backup_state SET last_run_ok = 0, last_error = ?, failures = failures + 1"
      " WHERE id = 1 AND last_run_ok IS NULL AND last_run_at IS NOT NULL AND last_run_at < ?",
      {std::string(kInterruptedError), now - kInterrupted});
  if (marked.affected == 1) log::warn("backup", "the last scheduled backup was interrupted");
  auto rows = db.query("SELECT last_run_at FROM backup_state WHERE id = 1");
  if (rows.empty()) return ScheduledStart::not_due;
  auto last = rows[0].opt_int("last_run_at");
  if (last && *last >= *slot) return ScheduledStart::not_due;
  auto claimed = last ? db.query(
                            "UPDATE backup_state SET last_run_at = ?, last_run_ok = NULL"
                            " WHERE id = 1 AND last_run_at = ?",
                            {now, *last})
                      : db.query(
                            "UPDATE backup_state SET last_run_at = ?, last_run_ok = NULL"
                            " WHERE id = 1 AND last_run_at IS NULL",
                            {now});
  if (claimed.affected != 1) return ScheduledStart::claimed_elsewhere;
  if (enqueue) {
    try {
      if (enqueue()) return ScheduledStart::enqueued;
    } catch (const std::exception& e) {
      log::warn("backup", "could not queue the scheduled backup; running it here",
                {{"error", e.what()}});
    }
  }
  return run_scheduled_backup(config, db, clock) ? ScheduledStart::ran : ScheduledStart::failed;
}

Status run_scheduled_backup(const Config& config, store::Db& db, const Clock& clock) {
  BackupLock lock(db, clock);
  if (!lock.held()) {
    const std::string busy = "Another backup was already running.";
    record_failure(db, busy);
    log::warn("backup", "scheduled backup skipped: another backup was already running");
    return Status::conflict(busy);
  }
  Status out;
  try {
    remove_stale_backup_temps(config.backups_dir());
    auto written = write_backup(config, db, config.backups_dir(), clock);
    if (written) {
      db.query(
          "UPDATE backup_state SET last_run_ok = 1, last_ok_at = ?, last_error = '' WHERE id = 1",
          {clock.now_ms()});
      int removed = prune_backups(config.backups_dir(), config.backup_keep);
      log::info("backup", "scheduled backup written",
                {{"path", *written}, {"old_backups_deleted", removed}});
    } else {
      out = written.status();
    }
  } catch (const std::exception& e) {
    out = Status::internal(e.what());
  }
  if (!out) {
    log::error("backup", "the scheduled backup failed", {{"error", out.message()}});
    try {
      record_failure(db, out.message());
    } catch (const std::exception& e) {
      log::error("backup", "could not record the failed backup", {{"error", e.what()}});
    }
  }
  return out;
}

Result<std::string> write_backup_locked(const Config& config, store::Db& db,
                                        const std::string& out_dir, const Clock& clock,
                                        const Progress& progress) {
  BackupLock lock(db, clock);
  if (!lock.held()) return Status::conflict("Another backup is running.");
  remove_stale_backup_temps(out_dir.empty() ? config.backups_dir() : out_dir);
  return write_backup(config, db, out_dir, clock, progress);
}

int remove_stale_backup_temps(const std::string& dir) {
  const auto cutoff = fs::file_time_type::clock::now() - BackupLock::kStale;
  int removed = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (it->path().filename().string().rfind(".peto-backup-", 0) != 0) continue;
    std::error_code tec;
    auto written = fs::last_write_time(it->path(), tec);
    if (tec || written > cutoff) continue;
    if (fs::remove_all(it->path(), tec) > 0 && !tec) {
      ++removed;
      log::info("backup", "removed what an interrupted backup left",
                {{"path", it->path().string()}});
    }
  }
  return removed;
}

int prune_backups(const std::string& dir, int keep) {
  static const std::regex name_re(R"(peto-backup-(\d{8}-\d{6})(?:-(\d+))?\.tar\.gz)");
  struct Found {
    std::string stamp;
    int n;
    fs::path path;
  };
  std::vector<Found> found;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::smatch m;
    std::string name = it->path().filename().string();
    if (!it->is_regular_file() || !std::regex_match(name, m, name_re)) continue;
    found.push_back({m[1], m[2].matched ? std::stoi(m[2]) : 1, it->path()});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.stamp != b.stamp ? a.stamp > b.stamp : a.n > b.n;
  });
  int removed = 0;
  for (std::size_t i = static_cast<std::size_t>(std::max(keep, 1)); i < found.size(); ++i)
    if (fs::remove(found[i].path, ec)) ++removed;
  return removed;
}

std::vector<store::Migration> Backups::migrations() {
  return {{12, "backup state",
           "CREATE TABLE backup_state (id INTEGER PRIMARY KEY CHECK (id = 1),"
           " last_run_at BIGINT, last_run_ok INTEGER, last_ok_at BIGINT,"
           " last_error TEXT NOT NULL DEFAULT '', failures INTEGER NOT NULL DEFAULT 0);"
           "INSERT INTO backup_state (id) VALUES (1);",
           ""}};
}

}  // namespace peto::media
