// Uploads: files a person keeps in peto, stored under the media folder.
//
// This is the part the scheduler needs: the table with its checksum columns,
// and the check that compares a file with what was recorded. Documents
// (media/documents.h) build the rest (owners, versions, serving) on it.
//
// verified_at is 0 for an upload never checked, so "never checked first, then
// oldest first" is one ascending walk of the (verified_at, id) index.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "store/db.h"
#include "store/migrate.h"

namespace peto::media {

// A column that names files under the media folder, relative to it.
struct FileColumn {
  std::string table;
  std::string column;
};

struct Uploads {
  static std::vector<store::Migration> migrations();
  // Migration 10: the documents' own columns on uploads (owner, title, kind,
  // version chain, subject) and document_copies, one per (upload, store).
  static std::vector<store::Migration> document_migrations();
  // Migration 25: what a document peto typeset was made from (source_text,
  // the words as plain text; made_from, "cvs:<id>" or "letters:<id>").
  static std::vector<store::Migration> sent_migrations();
  static std::vector<FileColumn> file_columns() { return {{"uploads", "file"}}; }
};

// The files of `owner`'s uploads (every version of every document), as paths
// under `media_dir`.
std::vector<std::filesystem::path> owner_upload_files(store::Conn& conn,
                                                      const std::string& media_dir,
                                                      std::int64_t owner);

// Every file name the rows of `columns` hold (empty names left out).
std::set<std::string> named_files(store::Db& db, const std::vector<FileColumn>& columns);

enum class Damage { none, missing, changed };
const char* damage_name(Damage d);  // "", "missing", "changed"

struct FileFacts {
  std::int64_t size = 0;
  std::string sha256;  // hex
};

// Reads the file whole (streamed) and returns its size and SHA-256; nullopt
// when it is absent or unreadable. Never alters the file.
std::optional<FileFacts> read_facts(const std::string& path);

// Compares the file with the recorded figures; a figure not recorded is not
// checked. `out` receives what was read, when the file could be read.
Damage check_file(const std::string& path, std::optional<std::int64_t> size,
                  const std::optional<std::string>& sha256, FileFacts* out = nullptr);

}  // namespace peto::media
