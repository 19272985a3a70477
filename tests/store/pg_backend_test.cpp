// The PostgreSQL backend against the Db contract (store/db.h), and what only
// PostgreSQL has: prepared-statement caching, reconnecting after the server
// drops a connection, and PgListener. The contract tests run on SQLite too.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "store/db.h"
#include "store/postgres/pg_listen.h"
#include "tests/support/backends.h"

namespace peto::store {
namespace {

using namespace std::chrono_literals;

class PgBackendTest : public peto::testing::BackendTest {
 protected:
  void make_table() {
    db().query("CREATE TABLE t (id BIGINT PRIMARY KEY, i BIGINT, r DOUBLE PRECISION, s TEXT)");
  }
  // Ends the server side of a connection from another session, waiting until
  // the backend process has exited.
  void kill_backend(std::int64_t pid) {
    auto admin = open_again(1);
    Rows r = admin->query("SELECT pg_terminate_backend(?, 10000)", {pid});
    ASSERT_EQ(r[0].int_at(0), 1);
  }
  // A channel name no other test run uses (channels are per database).
  std::string channel() const { return "chan_" + url().substr(url().rfind('_') + 1); }
};

TEST_P(PgBackendTest, EveryParameterTypeRoundTrips) {
  make_table();
  const std::string text = "it's a \"quoted\" ? and $1 'text'";
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  db().query("INSERT INTO t (id, i, r, s) VALUES (?, ?, ?, ?)", {1, big, 0.1, text});
  db().query("INSERT INTO t (id, i, r, s) VALUES (?, ?, ?, ?)",
             {2, std::numeric_limits<std::int64_t>::min(), -1.5e300, null});
  db().query("INSERT INTO t (id, i, r, s) VALUES (?, ?, ?, ?)", {3, true, null, ""});

  Rows rows = db().query("SELECT i, r, s FROM t WHERE id >= ? ORDER BY id", {1});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].int_at(0), big);
  EXPECT_EQ(rows[0][1].as_real(), 0.1);
  EXPECT_EQ(rows[0].text(2), text);
  EXPECT_EQ(rows[1].int_at(0), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(rows[1][1].as_real(), -1.5e300);
  EXPECT_TRUE(rows[1].is_null(2));
  EXPECT_EQ(rows[1].opt_text(2), std::nullopt);
  EXPECT_EQ(rows[2].int_at(0), 1);
  EXPECT_TRUE(rows[2].is_null(1));
  EXPECT_FALSE(rows[2].is_null(2));
  EXPECT_EQ(rows[2].text(2), "");

  // A parameter compared with NULL, and text with '?' used in a WHERE.
  EXPECT_EQ(db().query("SELECT id FROM t WHERE s = ?", {text})[0].int_at(0), 1);
  EXPECT_EQ(db().query("SELECT count(*) FROM t WHERE s IS NULL")[0].int_at(0), 1);
}

TEST_P(PgBackendTest, CellsAreReadByColumnName) {
  make_table();
  db().query("INSERT INTO t (id, i, r, s) VALUES (?, ?, ?, ?)", {1, 7, null, "seven"});
  Rows rows = db().query(
      "SELECT t.s, t.i, t.r, COUNT(*) AS n, t.id AS record_id FROM t GROUP BY t.id, t.s, t.i, t.r");
  ASSERT_EQ(rows.size(), 1u);
  const Row& row = rows[0];
  EXPECT_EQ(row.text("s"), "seven") << "a qualified column is read by its own name";
  EXPECT_EQ(row.int_at("i"), 7);
  EXPECT_TRUE(row.is_null("r"));
  EXPECT_EQ(row.opt_int("r"), std::nullopt);
  EXPECT_EQ(row.opt_text("s"), "seven");
  EXPECT_EQ(row.int_at("n"), 1) << "an expression is read by its alias";
  EXPECT_EQ(row.int_at("record_id"), 1);
  EXPECT_EQ(row.int_at(1), 7) << "reading by position still works";
  try {
    row.text("title");
    ADD_FAILURE() << "an unknown column must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"title\""), std::string::npos) << e.what();
  }
}

TEST_P(PgBackendTest, AffectedCountsChangedRows) {
  make_table();
  auto conn = db().acquire();
  EXPECT_EQ(
      conn->query("INSERT INTO t (id, i) VALUES (?, ?), (?, ?), (?, ?)", {1, 10, 2, 20, 3, 30})
          .affected,
      3);
  EXPECT_EQ(conn->query("UPDATE t SET s = ? WHERE i > ?", {"x", 15}).affected, 2);
  EXPECT_EQ(conn->query("UPDATE t SET s = ? WHERE i > ?", {"x", 99}).affected, 0);
  EXPECT_EQ(conn->query("DELETE FROM t WHERE id = ?", {1}).affected, 1);
  Rows selected = conn->query("SELECT id FROM t WHERE id > ?", {0});
  EXPECT_EQ(selected.size(), 2u);
  EXPECT_EQ(selected.affected, 0);
}

TEST_P(PgBackendTest, DuplicateKeyIsConstraintError) {
  make_table();
  db().query("INSERT INTO t (id) VALUES (?)", {7});
  try {
    db().query("INSERT INTO t (id) VALUES (?)", {7});
    FAIL() << "duplicate key accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::constraint) << e.what();
    if (postgres()) {
      EXPECT_NE(std::string(e.what()).find("duplicate key"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("INSERT INTO t (id) VALUES"), std::string::npos)
          << e.what();
    }
  }
  // The connection that saw the error is still good.
  EXPECT_EQ(db().query("SELECT count(*) FROM t")[0].int_at(0), 1);
}

TEST_P(PgBackendTest, BadStatementIsStatementError) {
  try {
    db().query("SELEC 1");
    FAIL() << "syntax error accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::statement) << e.what();
    EXPECT_NE(std::string(e.what()).find("SELEC 1"), std::string::npos) << e.what();
  }
}

TEST_P(PgBackendTest, WriteThatThrowsRollsBack) {
  make_table();
  EXPECT_THROW(db().write([](Conn& c) {
    c.query("INSERT INTO t (id) VALUES (?)", {1});
    throw std::runtime_error("step failed");
  }),
               std::runtime_error);
  EXPECT_EQ(db().query("SELECT count(*) FROM t")[0].int_at(0), 0);

  db().write([](Conn& c) { c.query("INSERT INTO t (id) VALUES (?)", {2}); });
  EXPECT_EQ(db().query("SELECT count(*) FROM t")[0].int_at(0), 1);
}

TEST_P(PgBackendTest, CommitAfterFailedStatementIsAnError) {
  if (!postgres()) GTEST_SKIP() << "SQLite keeps the transaction going after a failed statement";
  make_table();
  auto conn = db().acquire();
  conn->begin_write();
  conn->query("INSERT INTO t (id) VALUES (?)", {1});
  EXPECT_THROW(conn->query("INSERT INTO t (id) VALUES (?)", {1}), Error);
  EXPECT_THROW(conn->commit(), Error);
  EXPECT_EQ(conn->query("SELECT count(*) FROM t")[0].int_at(0), 0);
}

TEST_P(PgBackendTest, ScriptRunsSeveralStatements) {
  auto conn = db().acquire();
  conn->run_script(
      "CREATE TABLE a (x BIGINT);\n"
      "INSERT INTO a VALUES (1);\n"
      "INSERT INTO a VALUES (2);");
  EXPECT_EQ(conn->query("SELECT sum(x) FROM a")[0].int_at(0), 3);
}

TEST_P(PgBackendTest, AStatementForItsValuesIsAnsweredAndNeverPrepared) {
  make_table();
  auto conn = db().acquire();
  conn->query("INSERT INTO t (id, i) VALUES (?, ?), (?, ?)", {1, 10, 2, 20});
  const char* range = "SELECT id FROM t WHERE i >= ? AND i < ? ORDER BY id";
  for (int round = 0; round < 7; ++round) {  // past the five runs before a generic plan
    Rows rows = conn->query_for_values(range, {15, 25});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].int_at(0), 2);
  }
  if (postgres()) {
    // Sent unnamed each time: planned for 15..25, nothing left on the server.
    Rows prepared = conn->query("SELECT count(*) FROM pg_prepared_statements WHERE statement = ?",
                                {"SELECT id FROM t WHERE i >= $1 AND i < $2 ORDER BY id"});
    EXPECT_EQ(prepared[0].int_at(0), 0);
  }
}

TEST_P(PgBackendTest, SameStatementTwiceAndAfterAlterTable) {
  make_table();
  auto conn = db().acquire();
  conn->query("INSERT INTO t (id, i) VALUES (?, ?)", {1, 10});
  const char* select = "SELECT * FROM t WHERE id = ?";
  EXPECT_EQ(conn->query(select, {1})[0].size(), 4u);
  EXPECT_EQ(conn->query(select, {1})[0].int_at(1), 10);
  if (postgres()) {
    // Prepared once on this connection, not once per call.
    Rows prepared = conn->query("SELECT count(*) FROM pg_prepared_statements WHERE statement = ?",
                                {"SELECT * FROM t WHERE id = $1"});
    EXPECT_EQ(prepared[0].int_at(0), 1);
  }

  // The cached plan returns four columns; now the table has five.
  conn->query("ALTER TABLE t ADD COLUMN extra BIGINT");
  conn->query("UPDATE t SET extra = ? WHERE id = ?", {42, 1});
  Rows after = conn->query(select, {1});
  ASSERT_EQ(after[0].size(), 5u);
  EXPECT_EQ(after[0].int_at(4), 42);
  EXPECT_EQ(conn->query(select, {1})[0].size(), 5u);
}

TEST_P(PgBackendTest, StatementStaleInsideTransactionWorksAfterRollback) {
  if (!postgres()) GTEST_SKIP() << "SQLite re-prepares inside a transaction too";
  make_table();
  auto conn = db().acquire();
  const char* select = "SELECT * FROM t WHERE id > ?";
  conn->query(select, {0});
  db().query("ALTER TABLE t ADD COLUMN extra BIGINT");
  conn->begin_write();
  EXPECT_THROW(conn->query(select, {0}), Error);  // the transaction is aborted
  conn->rollback();
  conn->query("INSERT INTO t (id) VALUES (?)", {1});
  Rows rows = conn->query(select, {0});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].size(), 5u);
}

TEST_P(PgBackendTest, DescribeHidesPassword) {
  if (!postgres()) GTEST_SKIP() << "PostgreSQL URLs only";
  // The test server trusts 127.0.0.1, so any password is accepted.
  std::string with_pw = url();
  auto at = with_pw.find('@');
  ASSERT_NE(at, std::string::npos);
  with_pw.insert(at, ":s3cret");
  auto other = Db::open(with_pw, 1);
  EXPECT_EQ(other->describe().find("s3cret"), std::string::npos) << other->describe();
  EXPECT_NE(other->describe().find(":***@"), std::string::npos) << other->describe();
}

TEST_P(PgBackendTest, CountsStatements) {
  if (!postgres()) GTEST_SKIP() << "counting rules are per backend";
  auto before = db().statements_run();
  auto conn = db().acquire();
  auto conn_before = conn->statements_run();
  conn->query("SELECT ? + 1", {1});
  conn->query("SELECT 2");
  EXPECT_EQ(conn->statements_run() - conn_before, 2u);
  EXPECT_EQ(db().statements_run() - before, 2u);
}

TEST_P(PgBackendTest, LockNotAvailableIsBusy) {
  if (!postgres()) GTEST_SKIP() << "FOR UPDATE NOWAIT is PostgreSQL's";
  make_table();
  db().query("INSERT INTO t (id) VALUES (?)", {1});
  auto holder = db().acquire();
  holder->begin_write();
  holder->query("UPDATE t SET i = ? WHERE id = ?", {5, 1});
  auto other = open_again(1);
  try {
    other->query("SELECT id FROM t WHERE id = ? FOR UPDATE NOWAIT", {1});
    FAIL() << "row lock not seen";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::busy) << e.what();
  }
  holder->rollback();
}

TEST_P(PgBackendTest, IdleConnectionKilledIsReplacedOnAcquire) {
  if (!postgres()) GTEST_SKIP() << "no server on SQLite";
  auto small = open_again(1);
  std::int64_t pid = small->query("SELECT pg_backend_pid()")[0].int_at(0);
  kill_backend(pid);

  // The pooled connection is dead; the next unit of work does not notice.
  auto conn = small->acquire();
  Rows r = conn->query("SELECT pg_backend_pid(), current_setting('TimeZone')");
  EXPECT_NE(r[0].int_at(0), pid);
  EXPECT_EQ(r[0].text(1), "UTC");
}

TEST_P(PgBackendTest, ConnectionKilledInUseFailsThenReconnects) {
  if (!postgres()) GTEST_SKIP() << "no server on SQLite";
  make_table();
  auto small = open_again(1);
  std::int64_t pid = 0;
  {
    auto conn = small->acquire();
    conn->query("SELECT * FROM t WHERE id = ?", {1});  // prepared on this connection
    pid = conn->query("SELECT pg_backend_pid()")[0].int_at(0);
    kill_backend(pid);
    try {
      conn->query("SELECT * FROM t WHERE id = ?", {1});
      FAIL() << "query on a killed connection succeeded";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::connection) << e.what();
    }
    EXPECT_FALSE(conn->healthy());
  }
  auto conn = small->acquire();
  EXPECT_TRUE(conn->healthy());
  EXPECT_TRUE(conn->query("SELECT * FROM t WHERE id = ?", {1}).empty());
  EXPECT_NE(conn->query("SELECT pg_backend_pid()")[0].int_at(0), pid);
}

TEST_P(PgBackendTest, ListenerGetsNotifyAndTimesOut) {
  if (!postgres()) GTEST_SKIP() << "LISTEN/NOTIFY is PostgreSQL's";
  PgListener listener(url());
  listener.listen(channel());
  EXPECT_FALSE(listener.wait(50ms));

  db().query("SELECT pg_notify(?, ?)", {channel(), "task"});
  EXPECT_TRUE(listener.wait(10s));
  // Consumed: nothing more is pending.
  EXPECT_FALSE(listener.wait(20ms));

  // A notification sent before wait() is called is not lost.
  db().query("SELECT pg_notify(?, ?)", {channel(), "task"});
  db().query("SELECT pg_notify(?, ?)", {"other_" + channel(), "task"});
  EXPECT_TRUE(listener.wait(10s));
}

TEST_P(PgBackendTest, ListenerListensAgainAfterReconnect) {
  if (!postgres()) GTEST_SKIP() << "LISTEN/NOTIFY is PostgreSQL's";
  PgListener listener(url());
  listener.listen(channel());
  Rows pids =
      db().query("SELECT pid FROM pg_stat_activity WHERE query = ? AND pid <> pg_backend_pid()",
                 {"LISTEN \"" + channel() + "\""});
  ASSERT_EQ(pids.size(), 1u);
  kill_backend(pids[0].int_at(0));

  // The broken connection is seen and replaced within one wait.
  EXPECT_FALSE(listener.wait(10s));
  db().query("SELECT pg_notify(?, ?)", {channel(), "task"});
  EXPECT_TRUE(listener.wait(10s));
}

PETO_BOTH_BACKENDS(PgBackendTest);

}  // namespace
}  // namespace peto::store
