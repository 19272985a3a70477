// Writing a backup archive (media/backups.h): the database dumped (SQLite's
// online copy, or each PostgreSQL table as COPY text in one snapshot), the
// data folder's files linked aside, all packed with their manifest, read back
// and only then given the archive's name.
#include "media/backups.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "core/log.h"
#include "core/token.h"
#include "media/backup_internal.h"
#include "store/migrate.h"

namespace peto::media {

namespace fs = std::filesystem;
using backup_detail::FileSum;
using backup_detail::kChunk;
using backup_detail::kFileFolders;
using backup_detail::kFormatVersion;
using backup_detail::quoted;
using backup_detail::read_archive;
using backup_detail::Refused;
using backup_detail::safe_entry;
using backup_detail::safe_identifier;
using backup_detail::Scratch;

namespace {

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
// at the end of each COPY statement, so they do not count). A table the
// database derives from others (its comment starts "peto:derived", e.g. the
// search index) is left out: restoring the others makes it again.
std::vector<std::string> ordered_tables(store::Conn& conn) {
  std::vector<std::string> names;
  for (const auto& r :
       conn.query("SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
                  " AND relkind = 'r' AND COALESCE(obj_description(oid, 'pg_class'), '')"
                  " NOT LIKE 'peto:derived%' ORDER BY relname"))
    names.push_back(r.text("relname"));
  std::map<std::string, std::set<std::string>> needs;
  for (const auto& r :
       conn.query("SELECT a.relname AS table_name, b.relname AS refers_to FROM pg_constraint k"
                  " JOIN pg_class a ON a.oid = k.conrelid JOIN pg_class b ON b.oid = k.confrelid"
                  " WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace"))
    if (r.text("table_name") != r.text("refers_to"))
      needs[r.text("table_name")].insert(r.text("refers_to"));
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

// PostgreSQL: where each identity column's sequence stands, so that a
// restore goes on numbering after the copied rows.
nlohmann::json identity_sequences(store::Conn& c) {
  nlohmann::json sequences = nlohmann::json::array();
  for (const auto& r :
       c.query("SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name),"
               " column_name) AS sequence_name FROM information_schema.columns"
               " WHERE table_schema = current_schema()"
               " AND is_identity = 'YES' ORDER BY table_name, column_name")) {
    if (r.is_null("sequence_name")) continue;
    auto v = c.query("SELECT last_value, is_called FROM " + r.text("sequence_name"));
    std::string called = v[0].text("is_called");
    sequences.push_back({{"table", r.text("table_name")},
                         {"column", r.text("column_name")},
                         {"value", v[0].int_at("last_value")},
                         {"is_called", called == "t" || called == "1" || called == "true"}});
  }
  return sequences;
}

// Dumps the database into `dir` (db/…); fills the manifest's engine part.
std::vector<Staged> dump_database(store::Db& db, const fs::path& dir, nlohmann::json& manifest) {
  std::vector<Staged> out;
  fs::create_directories(dir / "db");
  auto conn = db.acquire();
  if (!store::has_migrations_table(*conn))
    throw std::runtime_error("the database holds no peto schema yet: nothing to back up");
  if (db.dialect() == store::Dialect::sqlite) {
    fs::path file = dir / "db" / "peto.db";
    conn->backup_to(file.string());
    // The schema version of the copy, read from the copy itself.
    auto copy = store::Db::open("sqlite://" + file.string(), 1);
    manifest["schema_version"] =
        copy->query("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations")[0].int_at(
            "version");
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
        c.query("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations")[0].int_at(
            "version");
    nlohmann::json tables = nlohmann::json::array();
    for (const auto& table : ordered_tables(c)) {
      if (!safe_identifier(table)) throw std::runtime_error("unexpected table name " + table);
      std::vector<std::string> columns;
      for (const auto& r :
           c.query("SELECT column_name FROM information_schema.columns WHERE table_schema ="
                   " current_schema() AND table_name = ? AND is_generated = 'NEVER'"
                   " ORDER BY ordinal_position",
                   {table}))
        columns.push_back(r.text("column_name"));
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
    manifest["sequences"] = identity_sequences(c);
    manifest["tables"] = tables;
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

}  // namespace

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

}  // namespace peto::media
