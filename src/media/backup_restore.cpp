// Restoring a backup archive (media/backups.h): the archive read and checked
// into a staging folder, refused unless this instance may take it, then the
// database put in place (SQLite: the file; PostgreSQL: the schema recreated
// and the rows COPYed in), the files moved in and the migrations applied.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "core/stored_path.h"
#include "core/token.h"
#include "media/backup_internal.h"
#include "media/backups.h"

namespace peto::media {

namespace fs = std::filesystem;
using backup_detail::kChunk;
using backup_detail::kFileFolders;
using backup_detail::quoted;
using backup_detail::read_archive;
using backup_detail::Refused;
using backup_detail::Scratch;

namespace {

// The same number store/migrate.cpp locks on: a restore and a `peto up`
// migrating at once take turns.
constexpr long long kMigrateLockId = 0x7065746f;

std::string sqlite_path(const Config& config) {
  const std::string& url = config.database_url;
  if (url.empty()) return config.data_dir + "/peto.db";
  return url.rfind("sqlite://", 0) == 0 ? url.substr(9) : std::string();
}

std::string engine_of(const Config& config) {
  return sqlite_path(config).empty() ? "postgres" : "sqlite";
}

int latest_version(const std::vector<store::Migration>& migrations) {
  int v = 0;
  for (const auto& m : migrations) v = std::max(v, m.version);
  return v;
}

// True when the instance holds nothing worth keeping: no accounts and no files.
bool instance_empty(const Config& config, store::Db* db) {
  if (db) {
    try {
      if (db->query("SELECT COUNT(*) AS n FROM users")[0].int_at("n") > 0) return false;
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
      drop += (drop.empty() ? "" : ", ") + quoted(r.text("tablename"));
    if (!drop.empty()) c.run_script("DROP TABLE " + drop + " CASCADE");
    for (const auto& r :
         c.query("SELECT proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace"
                 " AND proname <> 'now_ms'"))
      c.run_script("DROP FUNCTION IF EXISTS " + quoted(r.text("proname")) + " CASCADE");
    c.run_script(
        "CREATE TABLE schema_migrations ("
        " version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)");
    if (c.query("SELECT COUNT(*) AS n FROM pg_proc WHERE proname = 'now_ms'"
                " AND pronamespace = current_schema()::regnamespace")[0]
            .int_at("n") == 0)
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

// Refuses, before anything is extracted, an archive this instance cannot
// take: the other engine, a schema newer than this peto's (unless allowed),
// or a non-empty instance (unless forced). Opens the instance's database into
// `db` when there is one.
void admit(const nlohmann::json& m, const Config& config, const RestoreOptions& o,
           const std::string& engine, int latest, const std::string& db_file,
           std::unique_ptr<store::Db>& db) {
  std::error_code ec;
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
    db = store::Db::open(engine == "postgres" ? config.database_url : "sqlite://" + db_file, 2);
  if (!o.force && !instance_empty(config, db.get()))
    throw Refused(Status::conflict(
        "this instance is not empty (it has accounts or files); restore onto an empty "
        "one, or use --force to replace everything in it"));
}

// Clears every file path the restored rows hold that is not one peto writes
// (core/stored_path.h), so that no use of the row can even try it: an upload
// keeps its row, marked missing; a capture loses its kept page. Returns how
// many were cleared. After the migrations, so the columns are there.
std::int64_t clear_stray_paths(store::Db& db) {
  std::int64_t cleared = 0;
  for (const auto& row : db.query("SELECT id, file FROM uploads WHERE file <> ''"))
    if (!is_plain_relative_path(row.text("file")))
      cleared += db.query("UPDATE uploads SET file = '', damage = 'missing' WHERE id = ?",
                          {row.int_at("id")})
                     .affected;
  for (const auto& row : db.query("SELECT id, page_file FROM captures WHERE page_file IS NOT NULL"))
    if (!is_plain_relative_path(row.text("page_file")))
      cleared += db.query(
                       "UPDATE captures SET page_file = NULL, page_sha256 = NULL, page_bytes = NULL"
                       " WHERE id = ?",
                       {row.int_at("id")})
                     .affected;
  return cleared;
}

// Renames the staged SQLite copy over the instance's database file.
void put_sqlite_file(const fs::path& staged, const std::string& db_file) {
  std::error_code ec;
  fs::path target(db_file);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  fs::path tmp = target;
  tmp += ".restoring-" + random_token(4);
  fs::copy_file(staged / "db" / "peto.db", tmp);
  for (const char* extra : {"-wal", "-shm", "-journal"}) fs::remove(db_file + extra, ec);
  fs::rename(tmp, target);
}

}  // namespace

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
        [&](const nlohmann::json& m) { admit(m, config, o, engine, latest, db_file, db); },
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
      put_sqlite_file(staging.path, db_file);
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
      out.stray_paths = clear_stray_paths(*again);
    }
    return out;
  } catch (const Refused& r) {
    return r.status;
  } catch (const std::exception& e) {
    return Status::unavailable(std::string("the restore failed: ") + e.what());
  }
}

}  // namespace peto::media
