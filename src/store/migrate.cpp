#include "store/migrate.h"

#include <algorithm>
#include <regex>
#include <set>

#include "core/log.h"

namespace peto::store {

namespace {
// Any number: it only has to be the same for every peto process.
constexpr long long kMigrateLockId = 0x7065746f;  // "peto"

// Foreign keys off on this connection until the guard goes (a rebuilding
// migration); PRAGMA foreign_keys cannot change inside a transaction.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(Conn& conn, bool off) : conn_(off ? &conn : nullptr) {
    if (conn_) conn_->run_script("PRAGMA foreign_keys=OFF");
  }
  ~ForeignKeysOff() {
    try {
      if (conn_) conn_->run_script("PRAGMA foreign_keys=ON");
    } catch (const Error&) {  // the connection is gone; a new one starts with them on
    }
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  Conn* conn_;
};

// One table rebuilt the way SQLite documents (create the new table, copy,
// drop the old, rename): `sql` is its CREATE TABLE as stored, with
// AUTOINCREMENT added to its id.
void rebuild_with_autoincrement(Conn& c, const std::string& table, const std::string& sql) {
  static const std::regex id_column(R"(([(,\s])id INTEGER PRIMARY KEY)");
  const std::string rebuilt = table + "__rebuilt";
  std::string create = "CREATE TABLE " + rebuilt + " " + sql.substr(sql.find('('));
  create = std::regex_replace(create, id_column, "$1id INTEGER PRIMARY KEY AUTOINCREMENT",
                              std::regex_constants::format_first_only);
  std::vector<std::string> attached;  // indexes and triggers, made again after
  for (const auto& row :
       c.query("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger')"
               " AND sql IS NOT NULL",
               {table}))
    attached.push_back(row.text("sql"));
  c.run_script(create);
  c.run_script("INSERT INTO " + rebuilt + " SELECT * FROM " + table);
  c.run_script("DROP TABLE " + table);
  c.run_script("ALTER TABLE " + rebuilt + " RENAME TO " + table);
  for (const auto& statement : attached) c.run_script(statement);
}

std::set<int> applied_versions(Conn& conn) {
  std::set<int> out;
  for (const auto& row : conn.query("SELECT version FROM schema_migrations"))
    out.insert(static_cast<int>(row.int_at("version")));
  return out;
}
}  // namespace

Migrator::Migrator(Db& db, std::vector<Migration> migrations)
    : db_(db), migrations_(std::move(migrations)) {
  std::sort(migrations_.begin(), migrations_.end(),
            [](const Migration& a, const Migration& b) { return a.version < b.version; });
}

void Migrator::ensure_table(Conn& conn) {
  const char* table =
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      " version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)";
  if (conn.dialect() == Dialect::sqlite) {
    conn.run_script(table);
    return;
  }
  // now_ms() is the database's clock for every statement peto writes; SQLite
  // connections define it in code, PostgreSQL keeps it in the schema. Under
  // the lock, since concurrent CREATEs of one object collide on PostgreSQL.
  with_write(conn, [&](Conn& c) {
    c.query("SELECT pg_advisory_xact_lock(?) AS locked", {kMigrateLockId});
    c.run_script(table);
    auto has = c.query(
        "SELECT COUNT(*) AS n FROM pg_proc WHERE proname = 'now_ms'"
        " AND pronamespace = current_schema()::regnamespace");
    if (has[0].int_at("n") == 0)
      c.run_script(
          "CREATE FUNCTION now_ms() RETURNS bigint LANGUAGE sql STABLE AS"
          " $$ SELECT (extract(epoch FROM now()) * 1000)::bigint $$");
  });
}

Result<MigrationState> Migrator::state() {
  try {
    auto conn = db_.acquire();
    ensure_table(*conn);
    std::set<int> applied = applied_versions(*conn);
    MigrationState st;
    std::set<int> known;
    for (const auto& m : migrations_) {
      known.insert(m.version);
      st.latest = std::max(st.latest, m.version);
      if (!applied.count(m.version)) st.pending.push_back(m.version);
    }
    for (int v : applied) {
      st.current = std::max(st.current, v);
      if (!known.count(v)) st.unknown.push_back(v);
    }
    return st;
  } catch (const Error& e) {
    return Status::unavailable(std::string("cannot read the schema version: ") + e.what());
  }
}

Result<int> Migrator::apply() {
  auto st = state();
  if (!st) return st.status();
  if (!st->unknown.empty())
    return Status::conflict("the database schema (version " + std::to_string(st->current) +
                            ") is newer than this peto (version " + std::to_string(st->latest) +
                            "); run a newer peto or restore a backup made by this one");
  int applied = 0;
  for (const auto& m : migrations_) {
    if (std::find(st->pending.begin(), st->pending.end(), m.version) == st->pending.end()) continue;
    try {
      auto conn = db_.acquire();
      const bool rebuild = conn->dialect() == Dialect::sqlite && m.sqlite_rebuild;
      ForeignKeysOff keys_off(*conn, rebuild);
      bool done = with_write(*conn, [&](Conn& c) {
        if (c.dialect() == Dialect::postgres)
          c.query("SELECT pg_advisory_xact_lock(?) AS locked", {kMigrateLockId});
        if (applied_versions(c).count(m.version)) return false;  // another process did it
        const std::string& sql =
            (c.dialect() == Dialect::postgres && !m.postgres_sql.empty()) ? m.postgres_sql : m.sql;
        if (rebuild) {
          m.sqlite_rebuild(c);
          if (!c.query("PRAGMA foreign_key_check").empty())
            throw Error(Error::Kind::constraint, "a rebuilt table breaks a foreign key");
        } else if (!sql.empty()) {
          c.run_script(sql);
        }
        c.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, now_ms())",
                {m.version, m.name});
        return true;
      });
      if (done) {
        ++applied;
        log::info("migrate", "applied migration", {{"version", m.version}, {"name", m.name}});
      }
    } catch (const Error& e) {
      return Status::internal("migration " + std::to_string(m.version) + " (" + m.name +
                              ") failed and was rolled back: " + e.what());
    }
  }
  return applied;
}

bool has_migrations_table(Conn& conn) {
  const char* sql = conn.dialect() == Dialect::sqlite
                        ? "SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'schema_migrations'"
                        : "SELECT COUNT(*) AS n FROM pg_tables WHERE schemaname = current_schema()"
                          " AND tablename = 'schema_migrations'";
  return conn.query(sql)[0].int_at("n") > 0;
}

bool any_migration_applied(Conn& conn) {
  return has_migrations_table(conn) &&
         conn.query("SELECT COUNT(*) AS n FROM schema_migrations")[0].int_at("n") > 0;
}

Migration ids_never_reused(int version) {
  Migration m{version, "ids never reused", "", "", {}};
  m.sqlite_rebuild = [](Conn& c) {
    for (const auto& row :
         c.query("SELECT name, sql FROM sqlite_master WHERE type = 'table'"
                 " AND sql LIKE '%id INTEGER PRIMARY KEY%' AND sql NOT LIKE '%AUTOINCREMENT%'"
                 " ORDER BY name"))
      rebuild_with_autoincrement(c, row.text("name"), row.text("sql"));
  };
  return m;
}

}  // namespace peto::store
