// `peto backup` and `peto restore` (media/backups.h does the work).
#include <filesystem>
#include <iostream>

#include "app/app.h"
#include "media/backups.h"

namespace peto::app {

namespace {

void progress_line(const std::string& line) { std::cerr << "peto: " << line << "…" << std::endl; }

}  // namespace

int cmd_backup(App& app, const std::string& out_dir) {
  std::error_code ec;
  if (!out_dir.empty() && std::filesystem::exists(out_dir, ec) &&
      !std::filesystem::is_directory(out_dir, ec)) {
    std::cerr << "peto: --out: " << out_dir << " is not a folder\n";
    return 2;
  }
  if (int rc = app.open_db(); rc != 0) return rc;
  auto written =
      media::write_backup_locked(app.config, *app.db, out_dir, *app.clock, progress_line);
  if (!written && written.status().code() == Status::Code::conflict) {
    std::cerr << "peto: Another backup is running.\n";
    return 1;
  }
  if (!written) {
    std::cerr << "peto: " << written.status().message() << "\n";
    return 1;
  }
  std::cout << "backup written and verified:\n" << *written << std::endl;
  return 0;
}

int cmd_restore(App& app, const std::string& file, bool allow_newer, bool force) {
  media::RestoreOptions o;
  o.allow_newer = allow_newer;
  o.force = force;
  o.migrations = migrations();
  o.progress = progress_line;
  auto restored = media::restore_backup(app.config, file, o);
  if (!restored) {
    const Status& s = restored.status();
    std::cerr << "peto: " << s.message() << "\n";
    bool bad_input = s.code() == Status::Code::invalid || s.code() == Status::Code::conflict;
    return bad_input ? 2 : 1;
  }
  std::cout << "restored " << restored->engine << " database (schema version "
            << restored->schema_version << ") and " << restored->files
            << (restored->files == 1 ? " file" : " files") << " from " << file << "\n";
  if (restored->unmigrated)
    std::cout << "the schema is newer than this peto's: it was left as the archive had it; run "
                 "the newer peto on this instance\n";
  else if (restored->migrated > 0)
    std::cout << "applied " << restored->migrated << " migrations\n";
  if (restored->stray_paths > 0)
    std::cout << restored->stray_paths
              << " file paths in the archive led outside peto's folders; they were cleared and "
                 "those files count as missing\n";
  if (restored->secret_key && !app.config.secret_key.empty())
    std::cout << "the archive's secret key was written to the data folder, but PETO_SECRET_KEY "
                 "is set and takes precedence; sealed connection secrets need the key the backup "
                 "was made with\n";
  return 0;
}

}  // namespace peto::app
