// Export and import of one person's data (docs/SPEC.md §6, §7): a zip of JSON and files.
//
//   auto made = media::write_export(db, clock, config.media_dir(), owner, "/tmp/me.zip");
//   auto done = media::import_archive(db, clock, config.media_dir(), owner, "/tmp/me.zip",
//                                     ImportLimits::from(config), /*force=*/false);
//   if (!done) say(done.status().message());   // nothing was written
//
// The archive holds `peto.json` and the documents' files under `media/`:
//
//   {"format": "peto-export", "version": 1, "exported_at": <UTC ms>,
//    "account": {"email": …},                      (for the reader; never imported)
//    "profile": {language, time_zone, quiet_after_days, closing_notice_days},
//    "companies": [...], "contacts": [...], "listings": [...], "applications": [...],
//    "reminders": [...], "interviews": [...], "offers": [...], "notes": [...], "tags": [...],
//    "application_tags": [{application_id, tag_id}],
//    "application_events": [...], "captures": [...], "listing_events": [...],
//    "documents": [{id, title, kind, filename, content_type, language, notes, version,
//                   replaces, subject_kind, subject_id, sha256, size, file, …}],
//    "saved_views": [{kind, name, query}]}   (a list an older archive lacks reads as empty)
//
// Every record carries its own `id`: the archive's numbering, which the
// importer maps to new ids (references between records, a timeline entry's
// interview_id and upload_id, a document's `replaces` and subject). A record
// has its kind's fields (domain/kinds.h), created_at and updated_at, and the
// scheduler's marks that keep an old reminder or listing from being
// announced a second time. Connections are not in the archive: their secrets
// are sealed with this instance's key and cannot travel, so they are made
// again by hand. Kept capture pages (a cache) are not in it either.
//
// Import reads everything before it writes anything: the format and version,
// every zip entry (no absolute or escaping path, no backslash, no link, no
// entry the JSON does not name, sizes counted while reading against the
// limits, never trusted from the header), every file's size and SHA-256, and
// every record through the same validation typed-in data meets
// (domain::Records::create_in). The records go in one transaction; the files
// are unpacked to temporary names (mode 0600), their types read from their
// bytes as an upload's are (media/sniff.h: a type off the list is refused),
// and take their own names before the transaction, so that no row ever names
// a file that is not there. On any refusal the transaction rolls back and the
// unpacked files are removed, so the account and the media folder are as they
// were; after a crash, the orphan sweep removes the files no row names.
// Import creates records and never merges them, except companies and tags,
// which are matched by name. An account that already has records needs `force`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::media {

inline constexpr const char* kExportFormat = "peto-export";
// 2: the career record and CVs ("career", "cvs"); version 1 archives are read too.
inline constexpr int kExportVersion = 2;
inline constexpr const char* kExportJson = "peto.json";
inline constexpr Millis kExportKeepMs = 24LL * 3600 * 1000;  // an archive is kept a day

struct ExportArchives {
  // Migration 11: export_archives, the finished archives kept for a day.
  static std::vector<store::Migration> migrations();
  // Whether a row names `file` (a name in the exports folder).
  static bool records_file(store::Db& db, const std::string& file);
};

// How far an export has got: records read, then files packed.
struct ExportProgress {
  std::int64_t records_done = 0;
  std::int64_t records_total = 0;
  std::int64_t files_done = 0;
  std::int64_t files_total = 0;
};
using ExportProgressFn = std::function<void(const ExportProgress&)>;

struct ExportFacts {
  std::int64_t records = 0;
  std::int64_t files = 0;
  std::int64_t bytes = 0;  // the archive's size
};

// Writes `owner`'s archive to `out_path` (through `out_path`.part, renamed
// when complete, so a half-written archive never has the real name).
// `progress` is called now and then. An error Status when a file cannot be
// written; a document whose file is missing is exported without it.
Result<ExportFacts> write_export(store::Db& db, const Clock& clock, const std::string& media_dir,
                                 std::int64_t owner, const std::string& out_path,
                                 const ExportProgressFn& progress = {});

struct ImportLimits {
  std::int64_t max_total_bytes = 4LL << 30;  // every entry unpacked, together
  std::int64_t max_file_bytes = 25LL << 20;  // one document (PETO_UPLOAD_MAX_MB)
  std::int64_t max_json_bytes = 64LL << 20;  // peto.json
  std::int64_t max_json_values = 2000000;    // peto.json's values, keys included
  std::int64_t max_ratio = 100;              // unpacked : packed, past the first MiB
  std::int64_t max_entries = 100000;
  static ImportLimits from(const Config& config);
};

struct ImportFacts {
  std::int64_t records = 0;
  std::int64_t files = 0;
  std::int64_t companies_matched = 0;  // existing companies the archive's were matched to
  std::int64_t tags_matched = 0;       // and existing tags
};

// Imports the archive at `zip_path` into `owner`'s account (see the header
// comment). Status::invalid (one line saying what is wrong) for an archive
// that is refused, Status::conflict for an account with records and no
// `force`; nothing is written then. Database failures throw store::Error,
// after the files unpacked so far are removed.
Result<ImportFacts> import_archive(store::Db& db, const Clock& clock, const std::string& media_dir,
                                   std::int64_t owner, const std::string& zip_path,
                                   const ImportLimits& limits, bool force);

// The archives the person may download, and the upkeep that forgets them.
struct ExportArchive {
  std::int64_t id = 0;
  std::optional<std::int64_t> task_id;
  std::string file;      // relative to the exports folder
  std::string filename;  // offered to the browser
  std::int64_t size = 0;
  Millis created_at = 0;
  Millis expires_at = 0;
};
// Records a finished archive (expires kExportKeepMs after `now`).
std::int64_t record_archive(store::Db& db, std::int64_t owner, std::optional<std::int64_t> task_id,
                            const std::string& file, const std::string& filename, std::int64_t size,
                            Millis now);
// `owner`'s archives not yet expired at `now`, newest first.
std::vector<ExportArchive> list_archives(store::Db& db, std::int64_t owner, Millis now);
// One of `owner`'s archives not yet expired; nullopt for another's.
std::optional<ExportArchive> find_archive(store::Db& db, std::int64_t owner, std::int64_t id,
                                          Millis now);
// The files of every archive of `owner`'s, expired or not, as paths under
// `exports_dir`.
std::vector<std::filesystem::path> owner_archive_files(store::Conn& conn,
                                                       const std::string& exports_dir,
                                                       std::int64_t owner);
// Deletes the archives expired at `now`, row and file; returns how many.
std::int64_t reap_archives(store::Db& db, const std::string& exports_dir, Millis now);

// The export errand ("Packing up your data"): the archive is written to
// Config::exports_dir() and recorded for a day.
inline constexpr const char* kExportTask = "export";

// Starts `owner`'s export: queued as an errand when a worker runs
// (Config::background_work), else written at once. Returns the errand's
// task id (an export already waiting or running is returned rather than a
// second one), or 0 when it was written inline. An error Status when the
// inline export failed.
Result<std::int64_t> start_export(store::Db& db, const Clock& clock, const Config& config,
                                  std::int64_t owner);
// The errand's body, run by the worker (app/work.cpp). Progress is kept in
// the cache for export_state(); the archive is recorded with the task id.
Result<std::string> run_export_task(store::Db& db, const Clock& clock, const Config& config,
                                    std::int64_t task_id, std::optional<std::int64_t> owner);

// The person's latest export errand, for its page.
struct ExportState {
  std::int64_t task_id = 0;
  std::string state;  // available, running, done, failed, cancelled
  std::string error;
  ExportProgress progress;
};
std::optional<ExportState> export_state(store::Db& db, const Clock& clock, std::int64_t owner);

}  // namespace peto::media
