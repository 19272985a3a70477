// Reading a backup archive back (media/backups.h): the manifest and every
// entry checked against it, the names an archive may hold, and
// verify_backup. Restore and the check after writing read through here.
#include <archive.h>
#include <archive_entry.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/token.h"
#include "media/backup_internal.h"
#include "media/backups.h"

namespace peto::media {

namespace fs = std::filesystem;

namespace backup_detail {

namespace {

constexpr std::size_t kMaxManifest = 64 * 1024 * 1024;

class ArchiveReader {
 public:
  // The handle is owned from the start, so a refusal while opening frees it.
  explicit ArchiveReader(const std::string& path) : a_(archive_read_new()) {
    if (!a_) throw std::runtime_error("out of memory");
    archive_read_support_filter_gzip(a_.get());
    archive_read_support_format_tar(a_.get());
    if (archive_read_open_filename(a_.get(), path.c_str(), kChunk) != ARCHIVE_OK)
      bad_archive(error());
  }

  // The next entry, or null at the end.
  archive_entry* next() {
    archive_entry* e = nullptr;
    int rc = archive_read_next_header(a_.get(), &e);
    if (rc == ARCHIVE_EOF) return nullptr;
    if (rc != ARCHIVE_OK) bad_archive(error());
    return e;
  }

  // Reads the current entry's data, chunk by chunk.
  void read(const std::function<void(std::string_view)>& sink) {
    std::string buf(kChunk, '\0');
    for (;;) {
      la_ssize_t n = archive_read_data(a_.get(), buf.data(), buf.size());
      if (n < 0) bad_archive(error());
      if (n == 0) return;
      sink(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    }
  }

 private:
  std::string error() {
    const char* e = archive_error_string(a_.get());
    return e ? e : "unreadable";
  }
  struct Free {
    void operator()(archive* a) const { archive_read_free(a); }
  };
  std::unique_ptr<archive, Free> a_;
};

// Checks what the manifest says about itself and its entries.
void check_manifest(const nlohmann::json& m) {
  if (!m.is_object() || m.value("format", "") != "peto-backup")
    bad_archive("its manifest is not a peto backup's");
  if (!m.contains("version") || !m["version"].is_number_integer() || m["version"] != kFormatVersion)
    bad_archive("unknown backup format version (this peto reads version 1)");
  std::string engine = m.value("engine", "");
  if (engine != "sqlite" && engine != "postgres") bad_archive("unknown database engine");
  if (!m.contains("schema_version") || !m["schema_version"].is_number_integer())
    bad_archive("the manifest has no schema version");
  if (!m.contains("files") || !m["files"].is_array()) bad_archive("the manifest lists no files");
  std::set<std::string> seen;
  static const std::regex hex64("[0-9a-f]{64}");
  for (const auto& f : m["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("size") ||
        !f["size"].is_number_unsigned() || !f.contains("sha256") || !f["sha256"].is_string() ||
        !std::regex_match(f["sha256"].get<std::string>(), hex64))
      bad_archive("a file entry of the manifest is malformed");
    std::string p = f["path"];
    if (!safe_entry(p) || p == "manifest.json")
      bad_archive("the entry '" + p + "' would be written outside the data folder");
    if (!seen.insert(p).second) bad_archive("the entry '" + p + "' is listed twice");
  }
  if (engine == "sqlite" && !seen.count("db/peto.db")) bad_archive("the database copy is missing");
  if (engine == "postgres") {
    if (!m.contains("tables") || !m["tables"].is_array() || !m.contains("sequences") ||
        !m["sequences"].is_array())
      bad_archive("the manifest lists no tables");
    for (const auto& t : m["tables"]) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string() ||
          !safe_identifier(t["name"]) || !t.contains("columns") || !t["columns"].is_array() ||
          t.value("file", "") != "db/" + t["name"].get<std::string>() + ".copy" ||
          !seen.count(t.value("file", "")))
        bad_archive("a table entry of the manifest is malformed");
      for (const auto& c : t["columns"])
        if (!c.is_string() || !safe_identifier(c)) bad_archive("a column name is malformed");
    }
    for (const auto& s : m["sequences"])
      if (!s.is_object() || !s.contains("table") || !s["table"].is_string() ||
          !safe_identifier(s["table"]) || !s.contains("column") || !s["column"].is_string() ||
          !safe_identifier(s["column"]) || !s.contains("value") ||
          !s["value"].is_number_integer() || !s.contains("is_called") ||
          !s["is_called"].is_boolean())
        bad_archive("a sequence entry of the manifest is malformed");
  }
}

// The first entry, which must be manifest.json, parsed and checked.
nlohmann::json read_manifest(ArchiveReader& reader) {
  archive_entry* e = reader.next();
  if (!e) bad_archive("it is empty");
  if (std::string(archive_entry_pathname(e) ? archive_entry_pathname(e) : "") != "manifest.json" ||
      archive_entry_filetype(e) != AE_IFREG)
    bad_archive("it does not start with manifest.json");
  std::string text;
  reader.read([&](std::string_view d) {
    if (text.size() + d.size() > kMaxManifest) bad_archive("the manifest is too large");
    text.append(d);
  });
  nlohmann::json manifest = nlohmann::json::parse(text, nullptr, false);
  if (manifest.is_discarded()) bad_archive("the manifest is not JSON");
  check_manifest(manifest);
  return manifest;
}

// What will be written must fit where it goes, before any of it is.
void check_space(const std::map<std::string, FileSum>& expected, const fs::path& into,
                 bool extract_all) {
  std::uint64_t needed = 0;
  for (const auto& [name, sum] : expected)
    if (extract_all || name == "db/peto.db")
      needed = sum.size > UINT64_MAX - needed ? UINT64_MAX : needed + sum.size;
  if (needed == 0) return;
  fs::path where = into;
  std::error_code ec;
  while (!fs::exists(where, ec) && where.has_parent_path() && where != where.parent_path())
    where = where.parent_path();
  fs::space_info space = fs::space(where, ec);
  if (ec) throw std::runtime_error("cannot tell the free space of " + where.string());
  if (needed > space.available)
    throw Refused(Status::unavailable(
        "not enough free space: the archive holds " + std::to_string(needed) + " bytes and " +
        std::to_string(space.available) + " are free in " + where.string()));
}

// The entries after the manifest, each checked against it (and written under
// `into` when kept); every entry the manifest lists must be there once.
void read_entries(ArchiveReader& reader, const std::map<std::string, FileSum>& expected,
                  const fs::path& into, bool extract_all, const Progress& progress) {
  std::set<std::string> found;
  while (archive_entry* e = reader.next()) {
    std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    if (archive_entry_hardlink(e) || archive_entry_symlink(e) ||
        archive_entry_filetype(e) != AE_IFREG)
      bad_archive("the entry '" + name + "' is a link or a folder");
    if (!safe_entry(name) || name == "manifest.json")
      bad_archive("the entry '" + name + "' would be written outside the data folder");
    auto it = expected.find(name);
    if (it == expected.end()) bad_archive("the entry '" + name + "' is not in the manifest");
    if (!found.insert(name).second) bad_archive("the entry '" + name + "' appears twice");
    const std::uint64_t declared = it->second.size;
    auto too_large = [&] {
      bad_archive("the entry '" + name + "' is larger than its manifest size");
    };
    if (archive_entry_size_is_set(e) && archive_entry_size(e) >= 0 &&
        static_cast<std::uint64_t>(archive_entry_size(e)) > declared)
      too_large();
    bool keep = extract_all || name == "db/peto.db";
    std::ofstream out;
    fs::path target = into / name;
    if (keep) {
      fs::create_directories(target.parent_path());
      out.open(target, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error("cannot write " + target.string());
    }
    Sha256 sha;
    std::uint64_t size = 0;
    reader.read([&](std::string_view d) {
      if (d.size() > declared - size) too_large();
      sha.update(d);
      size += d.size();
      if (keep && !out.write(d.data(), static_cast<std::streamsize>(d.size())))
        throw std::runtime_error("cannot write " + target.string());
    });
    if (keep) {
      out.close();
      if (!out) throw std::runtime_error("cannot write " + target.string());
    }
    if (size != it->second.size || sha.hex_digest() != it->second.sha256)
      bad_archive("the entry '" + name + "' does not match its checksum");
    if (progress && name.rfind("db/", 0) == 0) progress("checked " + name);
  }
  for (const auto& [name, sum] : expected)
    if (!found.count(name)) bad_archive("the entry '" + name + "' is missing");
}

// The SQLite copy extracted under `into` must pass PRAGMA integrity_check.
void check_sqlite_copy(const fs::path& into) {
  fs::path db = into / "db" / "peto.db";
  sqlite3* h = nullptr;
  std::string result;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      result = t ? t : "";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  if (result != "ok") bad_archive("the database copy fails its integrity check");
}

}  // namespace

bool safe_identifier(const std::string& s) {
  static const std::regex re("[a-z_][a-z0-9_]{0,62}");
  return std::regex_match(s, re);
}

bool safe_entry(const std::string& p) {
  if (p == "manifest.json" || p == "secret_key" || p == "db/peto.db") return true;
  if (p.rfind("db/", 0) == 0) {
    std::string rest = p.substr(3);
    return rest.size() > 5 && rest.ends_with(".copy") &&
           safe_identifier(rest.substr(0, rest.size() - 5));
  }
  if (p.empty() || p.front() == '/' || p.find('\\') != std::string::npos ||
      p.find('\0') != std::string::npos)
    return false;
  auto slash = p.find('/');
  if (slash == std::string::npos) return false;
  if (std::find(kFileFolders.begin(), kFileFolders.end(), p.substr(0, slash)) == kFileFolders.end())
    return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    std::string part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

nlohmann::json read_archive(const std::string& path, const fs::path& into, bool extract_all,
                            const std::function<void(const nlohmann::json&)>& on_manifest,
                            const Progress& progress) {
  ArchiveReader reader(path);
  nlohmann::json manifest = read_manifest(reader);
  if (on_manifest) on_manifest(manifest);

  std::map<std::string, FileSum> expected;
  for (const auto& f : manifest["files"])
    expected[f["path"].get<std::string>()] = {f["size"].get<std::uint64_t>(), f["sha256"]};
  check_space(expected, into, extract_all);
  read_entries(reader, expected, into, extract_all, progress);
  if (manifest["engine"] == "sqlite") check_sqlite_copy(into);
  return manifest;
}

}  // namespace backup_detail

Result<nlohmann::json> verify_backup(const std::string& archive) {
  using backup_detail::Refused;
  backup_detail::Scratch scratch(fs::temp_directory_path() / ("peto-verify-" + random_token(6)));
  try {
    return backup_detail::read_archive(archive, scratch.path, false, {}, {});
  } catch (const Refused& r) {
    return r.status;
  } catch (const std::exception& e) {
    return Status::unavailable(e.what());
  }
}

}  // namespace peto::media
