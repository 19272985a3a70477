// What the parts of backup and restore share (internal to media/):
// backups.cpp writes an archive, backup_read.cpp reads and checks one,
// backup_restore.cpp puts one in place and backup_schedule.cpp runs backups
// on the schedule under the global lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/status.h"
#include "media/backups.h"

namespace peto::media::backup_detail {

inline constexpr int kFormatVersion = 1;
inline constexpr std::size_t kChunk = 64 * 1024;
// The folders of the data folder that travel, as archive prefixes.
inline const std::vector<std::string> kFileFolders = {"media", "pages"};

// A refusal of the archive or of the instance, with what to tell the person.
struct Refused : std::runtime_error {
  Status status;
  explicit Refused(Status s) : std::runtime_error(s.message()), status(std::move(s)) {}
};

[[noreturn]] inline void bad_archive(const std::string& why) {
  throw Refused(Status::invalid("the archive is damaged or not a peto backup: " + why));
}

// An entry's size and SHA-256 (lower-case hex), as the manifest lists them.
struct FileSum {
  std::uint64_t size = 0;
  std::string sha256;
};

// Removes a folder tree when it goes out of scope (unless kept).
struct Scratch {
  std::filesystem::path path;
  bool keep = false;
  explicit Scratch(std::filesystem::path p) : path(std::move(p)) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (keep) return;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// A table or column name peto may quote into SQL as it is.
bool safe_identifier(const std::string& s);

inline std::string quoted(const std::string& ident) { return "\"" + ident + "\""; }

// An archive path peto writes and accepts: manifest.json, secret_key,
// db/peto.db, db/<table>.copy, or a relative path of plain components under
// one of kFileFolders.
bool safe_entry(const std::string& p);

// Reads the whole archive: the manifest (first), then every entry checked
// against it. `on_manifest` may refuse before anything is extracted. Entries
// are written under `into` when `extract_all`; the SQLite copy always is (it
// is opened for PRAGMA integrity_check). Refusals throw Refused.
nlohmann::json read_archive(const std::string& path, const std::filesystem::path& into,
                            bool extract_all,
                            const std::function<void(const nlohmann::json&)>& on_manifest,
                            const Progress& progress);

}  // namespace peto::media::backup_detail
