#include "media/backups.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/log.h"
#include "core/token.h"
#include "core/utf8.h"
#include "store/cache.h"

namespace peto::media {

namespace fs = std::filesystem;

namespace {

constexpr int kFormatVersion = 1;
constexpr std::size_t kChunk = 64 * 1024;
constexpr std::size_t kMaxManifest = 64 * 1024 * 1024;
constexpr std::size_t kMaxError = 500;
constexpr const char* kInterruptedError =
    "The backup was interrupted: it did not finish within 6 hours of starting.";
// The same number store/migrate.cpp locks on: a restore and a `peto up`
// migrating at once take turns.
constexpr long long kMigrateLockId = 0x7065746f;
// The folders of the data folder that travel, as archive prefixes.
const std::vector<std::string> kFileFolders = {"media", "pages"};

// A refusal of the archive or of the instance, with what to tell the person.
struct Refused : std::runtime_error {
  Status status;
  explicit Refused(Status s) : std::runtime_error(s.message()), status(std::move(s)) {}
};

[[noreturn]] void bad_archive(const std::string& why) {
  throw Refused(Status::invalid("the archive is damaged or not a peto backup: " + why));
}

struct FileSum {
  std::uint64_t size = 0;
  std::string sha256;
};

FileSum sum_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  Sha256 sha;
  FileSum out;
  std::string buf(kChunk, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    auto n = static_cast<std::size_t>(in.gcount());
    sha.update(std::string_view(buf.data(), n));
    out.size += n;
  }
  if (in.bad()) throw std::runtime_error("cannot read " + path.string());
  out.sha256 = sha.hex_digest();
  return out;
}

// Removes a folder tree when it goes out of scope (unless kept).
struct Scratch {
  fs::path path;
  bool keep = false;
  explicit Scratch(fs::path p) : path(std::move(p)) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (keep) return;
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool safe_identifier(const std::string& s) {
  static const std::regex re("[a-z_][a-z0-9_]{0,62}");
  return std::regex_match(s, re);
}

std::string quoted(const std::string& ident) { return "\"" + ident + "\""; }

// An archive path peto writes and accepts: manifest.json, secret_key,
// db/peto.db, db/<table>.copy, or a relative path of plain components under
// one of kFileFolders.
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

std::string sqlite_path(const Config& config) {
  const std::string& url = config.database_url;
  if (url.empty()) return config.data_dir + "/peto.db";
  return url.rfind("sqlite://", 0) == 0 ? url.substr(9) : std::string();
}

std::string engine_of(const Config& config) {
  return sqlite_path(config).empty() ? "postgres" : "sqlite";
}

// ---- writing -------------------------------------------------------------

class ArchiveWriter {
 public:
  // The handle is owned from the start, so a failure while opening frees it.
  explicit ArchiveWriter(const fs::path& path) : a_(archive_write_new()) {
    if (!a_ || archive_write_add_filter_gzip(a_.get()) != ARCHIVE_OK ||
        archive_write_set_format_pax_restricted(a_.get()) != ARCHIVE_OK ||
        archive_write_open_filename(a_.get(), path.c_str()) != ARCHIVE_OK)
      fail("cannot create " + path.string());
  }

  void add_bytes(const std::string& name, std::string_view data, Millis mtime) {
    header(name, data.size(), mtime);
    if (!data.empty() && archive_write_data(a_.get(), data.data(), data.size()) < 0)
      fail("cannot write " + name);
  }

  void add_file(const std::string& name, const fs::path& src, std::uint64_t size, Millis mtime) {
    header(name, size, mtime);
    std::ifstream in(src, std::ios::binary);
    if (!in) fail("cannot read " + src.string());
    std::string buf(kChunk, '\0');
    std::uint64_t done = 0;
    while (in && done < size) {
      in.read(buf.data(),
              static_cast<std::streamsize>(std::min<std::uint64_t>(kChunk, size - done)));
      auto n = static_cast<std::size_t>(in.gcount());
      if (n == 0) break;
      if (archive_write_data(a_.get(), buf.data(), n) < 0) fail("cannot write " + name);
      done += n;
    }
    if (done != size) fail(src.string() + " changed while it was being archived");
  }

  void close() {
    if (archive_write_close(a_.get()) != ARCHIVE_OK) fail("cannot finish the archive");
    a_.reset();
  }

 private:
  void header(const std::string& name, std::uint64_t size, Millis mtime) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(size));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0600);
    archive_entry_set_mtime(e, static_cast<time_t>(mtime / 1000), 0);
    int rc = archive_write_header(a_.get(), e);
    archive_entry_free(e);
    if (rc != ARCHIVE_OK) fail("cannot write " + name);
  }
  [[noreturn]] void fail(const std::string& what) {
    const char* error = a_ ? archive_error_string(a_.get()) : nullptr;
    std::string why = error ? error : "";
    throw std::runtime_error(what + (why.empty() ? "" : ": " + why));
  }
  struct Free {
    void operator()(archive* a) const { archive_write_free(a); }
  };
  std::unique_ptr<archive, Free> a_;
};

// The tables of the current schema in an order that satisfies their foreign
// keys (a table after every table it refers to; self-references are checked
// at the end of each COPY statement, so they do not count).
std::vector<std::string> ordered_tables(store::Conn& conn) {
  std::vector<std::string> names;
  for (const auto& r :
       conn.query("SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
                  " AND relkind = 'r' ORDER BY relname"))
    names.push_back(r.text(0));
  std::map<std::string, std::set<std::string>> needs;
  for (const auto& r :
       conn.query("SELECT a.relname, b.relname FROM pg_constraint k"
                  " JOIN pg_class a ON a.oid = k.conrelid JOIN pg_class b ON b.oid = k.confrelid"
                  " WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace"))
    if (r.text(0) != r.text(1)) needs[r.text(0)].insert(r.text(1));
  std::vector<std::string> out;
  std::set<std::string> placed;
  while (out.size() < names.size()) {
    bool progressed = false;
    for (const auto& n : names) {
      if (placed.count(n)) continue;
      bool ready = true;
      for (const auto& d : needs[n])
        if (!placed.count(d) && std::find(names.begin(), names.end(), d) != names.end())
          ready = false;
      if (!ready) continue;
      out.push_back(n);
      placed.insert(n);
      progressed = true;
    }
    if (!progressed) throw std::runtime_error("the tables' foreign keys form a cycle");
  }
  return out;
}

struct Staged {
  std::string name;  // archive path
  fs::path source;
  FileSum sum;
};

// Dumps the database into `dir` (db/…); fills the manifest's engine part.
std::vector<Staged> dump_database(store::Db& db, const fs::path& dir, nlohmann::json& manifest) {
  std::vector<Staged> out;
  fs::create_directories(dir / "db");
  auto conn = db.acquire();
  const char* has_schema =
      db.dialect() == store::Dialect::sqlite
          ? "SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_migrations'"
          : "SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema()"
            " AND tablename = 'schema_migrations'";
  if (conn->query(has_schema)[0].int_at(0) == 0)
    throw std::runtime_error("the database holds no peto schema yet: nothing to back up");
  if (db.dialect() == store::Dialect::sqlite) {
    fs::path file = dir / "db" / "peto.db";
    conn->backup_to(file.string());
    // The schema version of the copy, read from the copy itself.
    auto copy = store::Db::open("sqlite://" + file.string(), 1);
    manifest["schema_version"] =
        copy->query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")[0].int_at(0);
    copy.reset();
    for (const char* extra : {"-wal", "-shm"}) {
      std::error_code ec;
      fs::remove(file.string() + extra, ec);
    }
    out.push_back({"db/peto.db", file, sum_file(file)});
    return out;
  }
  store::with_read(*conn, [&](store::Conn& c) {
    manifest["schema_version"] =
        c.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")[0].int_at(0);
    nlohmann::json tables = nlohmann::json::array();
    for (const auto& table : ordered_tables(c)) {
      if (!safe_identifier(table)) throw std::runtime_error("unexpected table name " + table);
      std::vector<std::string> columns;
      for (const auto& r :
           c.query("SELECT column_name FROM information_schema.columns WHERE table_schema ="
                   " current_schema() AND table_name = ? AND is_generated = 'NEVER'"
                   " ORDER BY ordinal_position",
                   {table}))
        columns.push_back(r.text(0));
      std::string list;
      for (const auto& col : columns) {
        if (!safe_identifier(col)) throw std::runtime_error("unexpected column name " + col);
        list += (list.empty() ? "" : ", ") + quoted(col);
      }
      std::string name = "db/" + table + ".copy";
      fs::path file = dir / name;
      std::ofstream f(file, std::ios::binary);
      Sha256 sha;
      FileSum sum;
      c.copy_out("COPY " + quoted(table) + " (" + list + ") TO STDOUT", [&](std::string_view d) {
        f.write(d.data(), static_cast<std::streamsize>(d.size()));
        if (!f) throw std::runtime_error("cannot write " + file.string());
        sha.update(d);
        sum.size += d.size();
      });
      f.close();
      if (!f) throw std::runtime_error("cannot write " + file.string());
      sum.sha256 = sha.hex_digest();
      out.push_back({name, file, sum});
      tables.push_back({{"name", table}, {"columns", columns}, {"file", name}});
    }
    nlohmann::json sequences = nlohmann::json::array();
    for (const auto& r : c.query(
             "SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name),"
             " column_name) FROM information_schema.columns WHERE table_schema = current_schema()"
             " AND is_identity = 'YES' ORDER BY table_name, column_name")) {
      if (r.is_null(2)) continue;
      auto v = c.query("SELECT last_value, is_called FROM " + r.text(2));
      std::string called = v[0].text(1);
      sequences.push_back({{"table", r.text(0)},
                           {"column", r.text(1)},
                           {"value", v[0].int_at(0)},
                           {"is_called", called == "t" || called == "1" || called == "true"}});
    }
    manifest["tables"] = tables;
    manifest["sequences"] = sequences;
  });
  return out;
}

// Makes `to` the same file as `from`: a hard link, or a copy when they are on
// different filesystems (or links are not possible there). False when `from`
// is gone.
bool link_or_copy(const fs::path& from, const fs::path& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return true;
  int err = errno;
  if (err == ENOENT) return false;
  if (err != EXDEV && err != EPERM && err != EMLINK && err != ENOTSUP)
    throw fs::filesystem_error("cannot link", from, to,
                               std::error_code(err, std::generic_category()));
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec == std::errc::no_such_file_or_directory && !fs::exists(from)) {
    fs::remove(to, ec);
    return false;
  }
  if (ec) throw fs::filesystem_error("cannot copy", from, to, ec);
  return true;
}

// Links every regular file under `dir` (archive prefix `prefix`) into
// `scratch`. A file or folder removed meanwhile (a document deleted, a page
// expired) is simply left out.
void link_tree(const fs::path& dir, const std::string& prefix, const fs::path& scratch,
               std::vector<Staged>& out) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec == std::errc::no_such_file_or_directory) return;
  if (ec) throw fs::filesystem_error("cannot read", dir, ec);
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw fs::filesystem_error("cannot read", dir, ec);
    fs::file_status st = it->symlink_status(ec);
    if (ec == std::errc::no_such_file_or_directory) continue;
    if (ec) throw fs::filesystem_error("cannot read", it->path(), ec);
    std::string name = prefix + "/" + it->path().filename().string();
    if (fs::is_directory(st)) {
      link_tree(it->path(), name, scratch, out);
      continue;
    }
    if (!fs::is_regular_file(st)) continue;
    if (!safe_entry(name)) continue;  // a name peto never makes (it would not restore)
    fs::path copy = scratch / name;
    fs::create_directories(copy.parent_path());
    if (!link_or_copy(it->path(), copy)) continue;
    out.push_back({name, copy, sum_file(copy)});
  }
}

// The regular files under the data folder's travelling folders, each linked
// (or copied) into `scratch` as it is listed, so that the archive and its
// checksums come from those links, whatever happens to the originals.
std::vector<Staged> data_files(const Config& config, const fs::path& scratch) {
  std::vector<Staged> out;
  for (const auto& folder : kFileFolders)
    link_tree(fs::path(config.data_dir) / folder, folder, scratch, out);
  std::sort(out.begin(), out.end(),
            [](const Staged& a, const Staged& b) { return a.name < b.name; });
  return out;
}

// fsync of a file or a folder (its entries), so that it survives a power loss.
void sync_path(const fs::path& path, bool folder) {
  int fd = ::open(path.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    std::error_code ec(errno, std::generic_category());
    if (fd >= 0) ::close(fd);
    throw fs::filesystem_error("cannot sync", path, ec);
  }
  ::close(fd);
}

std::string stamp_of(Millis ms) {
  std::string t = format_time_s(ms);  // 2026-01-01T09:00:00Z
  return t.substr(0, 4) + t.substr(5, 2) + t.substr(8, 2) + "-" + t.substr(11, 2) +
         t.substr(14, 2) + t.substr(17, 2);
}

// ---- reading -------------------------------------------------------------

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

int latest_version(const std::vector<store::Migration>& migrations) {
  int v = 0;
  for (const auto& m : migrations) v = std::max(v, m.version);
  return v;
}

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

// Reads the whole archive: the manifest (first), then every entry checked
// against it. `on_manifest` may refuse before anything is extracted. Entries
// are written under `into` when `extract_all`; the SQLite copy always is (it
// is opened for PRAGMA integrity_check).
nlohmann::json read_archive(const std::string& path, const fs::path& into, bool extract_all,
                            const std::function<void(const nlohmann::json&)>& on_manifest,
                            const Progress& progress) {
  ArchiveReader reader(path);
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
  if (on_manifest) on_manifest(manifest);

  std::map<std::string, FileSum> expected;
  for (const auto& f : manifest["files"])
    expected[f["path"].get<std::string>()] = {f["size"].get<std::uint64_t>(), f["sha256"]};
  // What will be written must fit where it goes, before any of it is.
  std::uint64_t needed = 0;
  for (const auto& [name, sum] : expected)
    if (extract_all || name == "db/peto.db")
      needed = sum.size > UINT64_MAX - needed ? UINT64_MAX : needed + sum.size;
  if (needed > 0) {
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
  std::set<std::string> found;
  while ((e = reader.next())) {
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
  if (manifest["engine"] == "sqlite") {
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
  return manifest;
}

// ---- restoring -----------------------------------------------------------

// True when the instance holds nothing worth keeping: no accounts and no files.
bool instance_empty(const Config& config, store::Db* db) {
  if (db) {
    try {
      if (db->query("SELECT COUNT(*) FROM users")[0].int_at(0) > 0) return false;
    } catch (const store::Error&) {
      // No users table: a database never migrated.
    }
  }
  for (const auto& folder : kFileFolders) {
    fs::path root = fs::path(config.data_dir) / folder;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file()) return false;
  }
  return true;
}

void restore_postgres(store::Db& db, const nlohmann::json& manifest, const fs::path& staged,
                      const std::vector<store::Migration>& migrations, const Progress& progress) {
  int version = manifest["schema_version"];
  auto conn = db.acquire();
  store::with_write(*conn, [&](store::Conn& c) {
    c.query("SELECT pg_advisory_xact_lock(?)", {kMigrateLockId});
    // What is there goes (the caller made sure it may): tables, and the
    // functions migrations made, so that they can run again from the start.
    std::string drop;
    for (const auto& r :
         c.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))
      drop += (drop.empty() ? "" : ", ") + quoted(r.text(0));
    if (!drop.empty()) c.run_script("DROP TABLE " + drop + " CASCADE");
    for (const auto& r :
         c.query("SELECT proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace"
                 " AND proname <> 'now_ms'"))
      c.run_script("DROP FUNCTION IF EXISTS " + quoted(r.text(0)) + " CASCADE");
    c.run_script(
        "CREATE TABLE schema_migrations ("
        " version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)");
    if (c.query("SELECT COUNT(*) FROM pg_proc WHERE proname = 'now_ms'"
                " AND pronamespace = current_schema()::regnamespace")[0]
            .int_at(0) == 0)
      c.run_script(
          "CREATE FUNCTION now_ms() RETURNS bigint LANGUAGE sql STABLE AS"
          " $$ SELECT (extract(epoch FROM now()) * 1000)::bigint $$");
    for (const auto& m : migrations) {
      if (m.version > version) continue;
      c.run_script(m.postgres_sql.empty() ? m.sql : m.postgres_sql);
      c.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, now_ms())",
              {m.version, m.name});
    }
    // The rows the migrations seeded give way to the archive's.
    const auto& tables = manifest["tables"];
    for (auto it = tables.rbegin(); it != tables.rend(); ++it)
      c.run_script("DELETE FROM " + quoted((*it)["name"]));
    for (const auto& t : tables) {
      std::string list;
      for (const auto& col : t["columns"])
        list += (list.empty() ? "" : ", ") + quoted(col.get<std::string>());
      fs::path file = staged / t["file"].get<std::string>();
      std::ifstream in(file, std::ios::binary);
      if (!in) throw std::runtime_error("cannot read " + file.string());
      c.copy_in("COPY " + quoted(t["name"]) + " (" + list + ") FROM STDIN",
                [&](std::string& chunk) {
                  chunk.resize(kChunk);
                  in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
                  chunk.resize(static_cast<std::size_t>(in.gcount()));
                  if (in.bad()) throw std::runtime_error("cannot read " + file.string());
                  return !in.eof();
                });
      if (progress) progress("restored table " + t["name"].get<std::string>());
    }
    for (const auto& s : manifest["sequences"])
      c.query("SELECT setval(pg_get_serial_sequence(?, ?)::regclass, ?::bigint, ?::boolean)",
              {quoted(s["table"]), s["column"].get<std::string>(), s["value"].get<std::int64_t>(),
               s["is_called"].get<bool>() ? "true" : "false"});
  });
}

// Moves `from` into place as `to`; what was at `to` goes once it is there.
void swap_in(const fs::path& from, const fs::path& to) {
  fs::path old = to;
  old += ".before-restore-" + random_token(4);
  std::error_code ec;
  bool had = fs::exists(to, ec);
  if (had) fs::rename(to, old);
  if (fs::exists(from, ec))
    fs::rename(from, to);
  else
    fs::create_directories(to);
  if (had) fs::remove_all(old, ec);
}

std::string clipped(const std::string& s) { return s.substr(0, utf8_prefix(s, kMaxError)); }

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
      {clipped(error)});
}

}  // namespace

// ---- public --------------------------------------------------------------

Result<std::string> write_backup(const Config& config, store::Db& db, const std::string& out_dir,
                                 const Clock& clock, const Progress& progress) {
  fs::path dir = out_dir.empty() ? fs::path(config.backups_dir()) : fs::path(out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::unavailable("cannot create " + dir.string() + ": " + ec.message());
  Scratch scratch(dir / (".peto-backup-tmp-" + random_token(6)));
  fs::path part = dir / (".peto-backup-" + random_token(6) + ".tar.gz.part");
  try {
    fs::create_directories(scratch.path);
    // The scratch copy and the archive hold the whole database: the account
    // running peto alone may read them.
    fs::permissions(scratch.path, fs::perms::owner_all, ec);
    Millis now = clock.now_ms();
    nlohmann::json manifest = {
        {"format", "peto-backup"},
        {"version", kFormatVersion},
        {"engine", db.dialect() == store::Dialect::sqlite ? "sqlite" : "postgres"},
        {"created_at", format_time(now)},
        {"peto_version", PETO_VERSION}};
    if (progress) progress("copying the database");
    std::vector<Staged> entries = dump_database(db, scratch.path, manifest);
    if (progress) progress("reading the data folder");
    for (auto& f : data_files(config, scratch.path / "files")) entries.push_back(std::move(f));
    const char* env_key = std::getenv("PETO_SECRET_KEY");
    fs::path key_file = fs::path(config.data_dir) / "secret_key";
    if (env_key && *env_key) {
      manifest["secret_key"] = "not included: PETO_SECRET_KEY is set where the backup was made";
    } else if (fs::is_regular_file(key_file, ec)) {
      entries.push_back({"secret_key", key_file, sum_file(key_file)});
      manifest["secret_key"] = "included";
    } else {
      manifest["secret_key"] = "none";
    }
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : entries)
      files.push_back({{"path", f.name}, {"size", f.sum.size}, {"sha256", f.sum.sha256}});
    manifest["files"] = files;

    if (progress) progress("writing the archive");
    {
      ArchiveWriter w(part);
      fs::permissions(part, fs::perms::owner_read | fs::perms::owner_write, ec);
      w.add_bytes("manifest.json", manifest.dump(2), now);
      for (const auto& f : entries) w.add_file(f.name, f.source, f.sum.size, now);
      w.close();
    }
    if (progress) progress("reading the archive back");
    fs::path check = scratch.path / "verify";
    read_archive(part.string(), check, false, {}, {});

    // On disk before it is named (and older archives may be pruned).
    sync_path(part, false);
    std::string base = "peto-backup-" + stamp_of(now);
    fs::path final_path = dir / (base + ".tar.gz");
    // The name is claimed by linking: a backup finishing in the same second
    // elsewhere keeps its archive.
    for (int n = 2; ::link(part.c_str(), final_path.c_str()) != 0; ++n) {
      int err = errno;
      if (err != EEXIST)
        throw fs::filesystem_error("cannot name the archive", part, final_path,
                                   std::error_code(err, std::generic_category()));
      final_path = dir / (base + "-" + std::to_string(n) + ".tar.gz");
    }
    fs::remove(part, ec);
    sync_path(dir, true);
    log::info("backup", "backup written", {{"path", final_path.string()}});
    return final_path.string();
  } catch (const Refused& r) {
    fs::remove(part, ec);
    return Status::internal("the backup did not verify: " + r.status.message());
  } catch (const std::exception& e) {
    fs::remove(part, ec);
    return Status::unavailable(std::string("the backup failed: ") + e.what());
  }
}

Result<nlohmann::json> verify_backup(const std::string& archive) {
  Scratch scratch(fs::temp_directory_path() / ("peto-verify-" + random_token(6)));
  try {
    return read_archive(archive, scratch.path, false, {}, {});
  } catch (const Refused& r) {
    return r.status;
  } catch (const std::exception& e) {
    return Status::unavailable(e.what());
  }
}

Result<Restored> restore_backup(const Config& config, const std::string& archive,
                                const RestoreOptions& o) {
  std::error_code ec;
  if (!fs::is_regular_file(archive, ec)) return Status::invalid(archive + ": no such file");
  const std::string engine = engine_of(config);
  const int latest = latest_version(o.migrations);
  Restored out;
  out.engine = engine;
  fs::create_directories(config.data_dir, ec);
  if (ec) return Status::unavailable("cannot create " + config.data_dir + ": " + ec.message());
  Scratch staging(fs::path(config.data_dir) / (".restore-" + random_token(6)));
  try {
    std::unique_ptr<store::Db> db;
    const std::string db_file = sqlite_path(config);
    if (o.progress) o.progress("checking the archive");
    nlohmann::json manifest = read_archive(
        archive, staging.path, true,
        [&](const nlohmann::json& m) {
          std::string theirs = m["engine"];
          if (theirs != engine)
            throw Refused(Status::conflict("the archive holds a " + theirs +
                                           " database and this instance uses " + engine +
                                           "; restore it on a " + theirs + " instance"));
          int v = m["schema_version"];
          if (v > latest) {
            if (!o.allow_newer || engine == "postgres")
              throw Refused(Status::conflict(
                  "the archive's schema (version " + std::to_string(v) +
                  ") is newer than this peto's (version " + std::to_string(latest) + ")" +
                  (engine == "postgres"
                       ? "; restore it with the newer peto (--allow-newer cannot help on "
                         "PostgreSQL: this peto cannot create tables it does not know)"
                       : "; restore it with the newer peto, or use --allow-newer to put it in "
                         "place for one")));
          }
          if (engine == "postgres" || fs::exists(db_file, ec))
            db = store::Db::open(engine == "postgres" ? config.database_url : "sqlite://" + db_file,
                                 2);
          if (!o.force && !instance_empty(config, db.get()))
            throw Refused(Status::conflict(
                "this instance is not empty (it has accounts or files); restore onto an empty "
                "one, or use --force to replace everything in it"));
        },
        o.progress);
    out.schema_version = manifest["schema_version"];
    out.files = 0;
    for (const auto& f : manifest["files"]) {
      std::string p = f["path"];
      if (p.rfind("db/", 0) != 0 && p != "secret_key") ++out.files;
    }

    if (o.progress) o.progress("restoring the database");
    if (engine == "sqlite") {
      db.reset();
      fs::path target(db_file);
      if (target.has_parent_path()) fs::create_directories(target.parent_path());
      fs::path tmp = target;
      tmp += ".restoring-" + random_token(4);
      fs::copy_file(staging.path / "db" / "peto.db", tmp);
      for (const char* extra : {"-wal", "-shm", "-journal"}) fs::remove(db_file + extra, ec);
      fs::rename(tmp, target);
    } else {
      restore_postgres(*db, manifest, staging.path, o.migrations, o.progress);
      db.reset();
    }

    if (o.progress) o.progress("moving the files in");
    for (const auto& folder : kFileFolders)
      swap_in(staging.path / folder, fs::path(config.data_dir) / folder);
    fs::path key = staging.path / "secret_key";
    if (fs::exists(key, ec)) {
      fs::path target = fs::path(config.data_dir) / "secret_key";
      fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write, ec);
      fs::rename(key, target);
      out.secret_key = true;
    }

    auto again =
        store::Db::open(engine == "postgres" ? config.database_url : "sqlite://" + db_file, 2);
    // A lock held while the backup was made means nothing now.
    again->query("DELETE FROM cache WHERE key = ?", {kBackupLockKey});
    if (out.schema_version > latest) {
      out.unmigrated = true;
    } else {
      if (o.progress) o.progress("applying migrations");
      auto applied = store::Migrator(*again, o.migrations).apply();
      if (!applied) return applied.status();
      out.migrated = *applied;
    }
    return out;
  } catch (const Refused& r) {
    return r.status;
  } catch (const std::exception& e) {
    return Status::unavailable(std::string("the restore failed: ") + e.what());
  }
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
  auto last = rows[0].opt_int(0);
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
