// Migrations: numbered schema changes, applied once each, in order.
//
// A Migration is owned by the module whose tables it makes (its SQL lives next
// to that module's code); app/schema.cpp gathers them into one ordered list.
// Each is applied in its own transaction together with its row in
// schema_migrations, so a failing migration leaves the schema as it was. A
// database that has a version this binary does not know (a newer peto ran on
// it) is refused: nothing is applied and the Status says so.
//
// Several processes may migrate at once (two `peto up` started together): on
// PostgreSQL an advisory lock and on SQLite the write lock serialise them, and
// each re-reads the applied versions inside its transaction.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/db.h"

namespace peto::store {

struct Migration {
  int version;
  std::string name;
  std::string sql;           // for both backends, unless postgres_sql is set
  std::string postgres_sql;  // PostgreSQL's own text where the dialects differ
  // On SQLite, steps that rebuild tables (SQLite cannot alter a column in
  // place): run instead of `sql`, in the migration's transaction, with
  // foreign keys off so dropping a table cascades nowhere, and refused when
  // PRAGMA foreign_key_check finds a broken reference before the commit.
  std::function<void(Conn&)> sqlite_rebuild = nullptr;
};

// Whether the database has peto's schema_migrations table, read without
// creating anything (Migrator::state() makes the table when it is missing).
bool has_migrations_table(Conn& conn);
// Whether any migration was applied to the database: it holds peto's schema.
// Reads only, as has_migrations_table.
bool any_migration_applied(Conn& conn);

// Record ids are never used twice: an old notice, link or bookmark must not
// open a newer record that took a deleted one's id. PostgreSQL's identity
// columns never hand an id out again; on SQLite `INTEGER PRIMARY KEY` takes
// the largest id + 1, so deleting the newest row gave its id to the next.
// This migration rebuilds every SQLite table with such an id as
// `INTEGER PRIMARY KEY AUTOINCREMENT`, keeping its rows, columns, indexes and
// triggers; ids handed out from then on are never handed out again.
Migration ids_never_reused(int version);

struct MigrationState {
  int current = 0;           // highest applied version (0 = none)
  int latest = 0;            // highest version this binary knows
  std::vector<int> pending;  // known, not yet applied, in order
  std::vector<int> unknown;  // applied but unknown to this binary
};

class Migrator {
 public:
  Migrator(Db& db, std::vector<Migration> migrations);

  Result<MigrationState> state();
  // Applies every pending migration; returns how many were applied.
  Result<int> apply();

 private:
  void ensure_table(Conn& conn);
  Db& db_;
  std::vector<Migration> migrations_;
};

}  // namespace peto::store
