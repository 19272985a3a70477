#include "store/migrate.h"

#include <gtest/gtest.h>

#include "app/app.h"
#include "tests/support/backends.h"

namespace peto {
namespace {

class MigrateTest : public testing::BackendTest {
 protected:
  bool table_exists(const std::string& name) {
    auto sql = postgres() ? "SELECT COUNT(*) FROM information_schema.tables"
                            " WHERE table_schema = current_schema() AND table_name = ?"
                          : "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?";
    return db().query(sql, {name})[0].int_at(0) == 1;
  }
};

std::vector<store::Migration> two() {
  return {{1, "one", "CREATE TABLE one (id INTEGER PRIMARY KEY)", ""},
          {2, "two", "CREATE TABLE two (id INTEGER PRIMARY KEY)", ""}};
}

TEST_P(MigrateTest, FreshApplyThenReapplyIsNoOp) {
  store::Migrator m(db(), two());
  auto first = m.apply();
  ASSERT_TRUE(first) << first.status().message();
  EXPECT_EQ(*first, 2);
  EXPECT_TRUE(table_exists("one"));
  EXPECT_TRUE(table_exists("two"));
  auto again = m.apply();
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0);
  auto st = m.state();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->current, 2);
  EXPECT_TRUE(st->pending.empty());
}

TEST_P(MigrateTest, TheRealScheduleApplies) {
  store::Migrator m(db(), app::migrations());
  ASSERT_TRUE(m.apply());
  auto st = m.state();
  ASSERT_TRUE(st);
  EXPECT_TRUE(st->pending.empty());
  EXPECT_EQ(st->current, st->latest);
  EXPECT_TRUE(table_exists("cache"));
  // now_ms() is the database's clock on both backends.
  auto now = db().query("SELECT now_ms()")[0].int_at(0);
  EXPECT_NEAR(static_cast<double>(now), static_cast<double>(system_clock().now_ms()), 5000.0);
}

TEST_P(MigrateTest, VersionsAreUniqueAndOrdered) {
  auto all = app::migrations();
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].version, all[i].version);
}

TEST_P(MigrateTest, PendingIsReported) {
  store::Migrator one(db(), {two()[0]});
  ASSERT_TRUE(one.apply());
  store::Migrator both(db(), two());
  auto st = both.state();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->pending, std::vector<int>{2});
}

TEST_P(MigrateTest, NewerSchemaIsRefused) {
  ASSERT_TRUE(store::Migrator(db(), two()).apply());
  store::Migrator older(db(), {two()[0], {3, "three", "CREATE TABLE three (id INTEGER)", ""}});
  auto r = older.apply();
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("newer than this peto"), std::string::npos);
  EXPECT_FALSE(table_exists("three")) << "nothing is applied to a newer schema";
}

TEST_P(MigrateTest, FailingMigrationLeavesSchemaAsItWas) {
  store::Migrator m(db(), {two()[0],
                           {2, "broken",
                            "CREATE TABLE half (id INTEGER); INSERT INTO half VALUES (1);"
                            "CREATE TABLE one (id INTEGER)",  // already exists: fails
                            ""}});
  auto r = m.apply();
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("migration 2 (broken) failed"), std::string::npos);
  EXPECT_TRUE(table_exists("one")) << "migration 1 stays applied";
  EXPECT_FALSE(table_exists("half")) << "migration 2 is rolled back whole";
  auto st = m.state();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->current, 1);
}

TEST_P(MigrateTest, CommandChecksAndApplies) {
  std::string out;
  std::string env = "env PETO_DATABASE_URL='" + url() + "' PETO_DATA_DIR='" + dir().string() + "' ";
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " migrate --check", &out), 1)
      << out;
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " migrate", &out), 0) << out;
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " migrate --check", &out), 0)
      << out;
  db().query(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)");
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " migrate", &out), 1) << out;
  EXPECT_NE(out.find("newer than this peto"), std::string::npos) << out;
}

// An SQLite database made before ids were never reused keeps every row,
// reference, index and cascade through the rebuild, and from then on the id
// of a deleted row is not handed out again.
TEST_P(MigrateTest, TablesRebuiltForIdsNeverReusedKeepTheirRowsAndLinks) {
  if (postgres()) GTEST_SKIP() << "PostgreSQL's identity columns never reuse an id";
  std::vector<store::Migration> before;
  for (auto& m : app::migrations())
    if (m.version < 14) before.push_back(std::move(m));
  ASSERT_TRUE(store::Migrator(db(), before).apply());
  db().query(
      "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, "
      "'ana@example.com', 'x', 0, 0)");
  db().query(
      "INSERT INTO companies (id, owner_id, name, name_key, created_at, updated_at)"
      " VALUES (1, 1, 'Acme', 'acme', 0, 0)");
  for (int id : {1, 2, 3})
    db().query(
        "INSERT INTO listings (id, owner_id, company_id, role, state, created_at, updated_at)"
        " VALUES (?, 1, 1, 'Role', 'new', 0, 0)",
        {id});
  db().query(
      "INSERT INTO applications (id, owner_id, listing_id, status, created_at, updated_at)"
      " VALUES (7, 1, 2, 'applied', 0, 0)");
  auto indexes = [&] {
    return db().query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'")[0].int_at(0);
  };
  const std::int64_t indexes_before = indexes();

  // Up to this migration: the later ones add tables of their own.
  auto up_to_14 = app::migrations();
  std::erase_if(up_to_14, [](const store::Migration& m) { return m.version > 14; });
  auto applied = store::Migrator(db(), up_to_14).apply();
  ASSERT_TRUE(applied) << applied.status().message();
  EXPECT_EQ(*applied, 1);
  EXPECT_EQ(indexes(), indexes_before);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM listings")[0].int_at(0), 3);
  EXPECT_EQ(db().query("SELECT listing_id FROM applications WHERE id = 7")[0].int_at(0), 2);
  for (const char* table : {"users", "companies", "listings", "applications", "tasks"})
    EXPECT_NE(
        db().query("SELECT sql FROM sqlite_master WHERE name = ?", {table})[0].text("sql").find(
            "AUTOINCREMENT"),
        std::string::npos)
        << table;
  EXPECT_TRUE(db().query("PRAGMA foreign_key_check").empty());

  // Deleting the newest listing does not free its id; the cascade still runs.
  db().query("DELETE FROM listings WHERE id = 3");
  db().query(
      "INSERT INTO listings (owner_id, company_id, role, state, created_at, updated_at)"
      " VALUES (1, 1, 'Next', 'new', 0, 0)");
  EXPECT_EQ(db().query("SELECT id FROM listings WHERE role = 'Next'")[0].int_at(0), 4);
  db().query("DELETE FROM listings WHERE id = 2");
  EXPECT_TRUE(db().query("SELECT 1 FROM applications WHERE id = 7").empty());
}

PETO_BOTH_BACKENDS(MigrateTest);

}  // namespace
}  // namespace peto
