// The first commands a person types, with the real binary: a command run from
// the wrong folder says there is no database instead of starting an empty one,
// writing commands name the database they wrote to, a password asked at a
// terminal is not shown, and `peto up` at a terminal says where it serves.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/support/backends.h"
#include "tests/support/terminal.h"

namespace peto {
namespace {

namespace fs = std::filesystem;
using testing::AtTerminal;
using testing::Ran;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(FirstRunTest, CommandsOtherThanSetUpRefuseAFolderWithoutADatabase) {
  testing::TempDir tmp;
  const fs::path data = tmp.path() / "elsewhere";
  const std::string url = "sqlite://" + (data / "peto.db").string();
  { std::ofstream(tmp.path() / "password") << "correct horse battery\n"; }
  for (const std::string& args :
       {"user create --email ana@example.com --password-stdin < '" +
            (tmp.path() / "password").string() + "'",
        std::string("token list --user ana@example.com"), std::string("schedule"),
        std::string("work --once"), std::string("export --user ana@example.com --out x.zip"),
        std::string("backup"), std::string("migrate --check")}) {
    Ran r = testing::run_peto(url, data.string(), args, tmp.path());
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(r.err, "peto: no peto database at " + (data / "peto.db").string() +
                         " \u2014 run `peto migrate` or set PETO_DATA_DIR\n")
        << args;
    EXPECT_FALSE(fs::exists(data / "peto.db")) << args << " made a database";
  }

  // `migrate` makes it, and a writing command names it.
  Ran migrated = testing::run_peto(url, data.string(), "migrate", tmp.path());
  ASSERT_EQ(migrated.code, 0) << migrated.err;
  EXPECT_TRUE(contains(migrated.out, "database: " + (data / "peto.db").string() + "\n"))
      << migrated.out;
  Ran created = testing::run_peto(url, data.string(),
                                  "user create --email ana@example.com --password-stdin < '" +
                                      (tmp.path() / "password").string() + "'",
                                  tmp.path());
  ASSERT_EQ(created.code, 0) << created.err;
  EXPECT_TRUE(contains(created.out, "database: " + (data / "peto.db").string() + "\n"))
      << created.out;
}

// A PostgreSQL database (or an SQLite file) without peto's tables is no peto
// database either.
class FirstRunBackendTest : public testing::BackendTest {};

TEST_P(FirstRunBackendTest, ADatabaseWithoutPetosTablesIsRefused) {
  Ran r = testing::run_peto(url(), dir().string(), "token list --user ana@example.com", dir());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "peto: no peto database at ")) << r.err;
  EXPECT_FALSE(contains(r.err, "password=")) << r.err;
  // The refusal wrote nothing there, not even the table of migrations.
  auto tables =
      db().query(postgres() ? "SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema()"
                            : "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'");
  EXPECT_EQ(tables[0].int_at(0), 0);
}

PETO_BOTH_BACKENDS(FirstRunBackendTest);

TEST(FirstRunTest, APasswordAskedAtATerminalIsNotShown) {
  testing::TempDir tmp;
  const fs::path data = tmp.path() / "data";
  const std::string env = "PETO_LOG_LEVEL=warning PETO_DATA_DIR='" + data.string() + "' ";
  ASSERT_EQ(testing::run_peto("sqlite://" + (data / "peto.db").string(), data.string(), "migrate",
                              tmp.path())
                .code,
            0);
  const std::string secret = "correct horse battery";
  {
    AtTerminal t("exec env " + env + testing::peto_binary() +
                 " user create --email ana@example.com");
    ASSERT_TRUE(t.wait_for("Password for ana@example.com")) << t.seen();
    t.type(secret);
    ASSERT_TRUE(t.wait_for("again")) << t.seen();
    t.type(secret);
    EXPECT_EQ(t.wait_exit(), 0) << t.seen();
    EXPECT_TRUE(contains(t.seen(), "created account 1 for ana@example.com")) << t.seen();
    EXPECT_FALSE(contains(t.seen(), "horse")) << "the password was echoed:\n" << t.seen();
  }
  {
    // --password-stdin at a terminal asks the same way; two that differ change nothing.
    AtTerminal t("exec env " + env + testing::peto_binary() +
                 " user create --email ben@example.com --password-stdin");
    ASSERT_TRUE(t.wait_for("Password for ben@example.com")) << t.seen();
    t.type(secret);
    ASSERT_TRUE(t.wait_for("again")) << t.seen();
    t.type("correct horse battery staple");
    EXPECT_EQ(t.wait_exit(), 2) << t.seen();
    EXPECT_TRUE(contains(t.seen(), "the two passwords differ")) << t.seen();
    EXPECT_FALSE(contains(t.seen(), "horse")) << t.seen();
  }
}

TEST(FirstRunTest, UpAtATerminalSaysWhereItServesInWords) {
  testing::TempDir tmp;
  const fs::path data = tmp.path() / "data";
  AtTerminal t("exec env PETO_LISTEN=127.0.0.1:0 PETO_DATA_DIR='" + data.string() +
               "' PETO_DATABASE_URL='sqlite://" + (data / "peto.db").string() + "' " +
               testing::peto_binary() + " up");
  ASSERT_TRUE(t.wait_for("Ctrl-C")) << t.seen();
  std::smatch m;
  const std::string seen = t.seen();
  EXPECT_TRUE(
      std::regex_search(seen, m, std::regex("peto is serving http://127\\.0\\.0\\.1:[0-9]+")))
      << seen;
  EXPECT_TRUE(contains(seen, "data folder: " + data.string())) << seen;
  // Logs at a terminal are text, not JSON objects.
  EXPECT_FALSE(contains(seen, "{\"level\"")) << seen;
  t.signal(SIGINT);
  EXPECT_EQ(t.wait_exit(), 0) << t.seen();
}

}  // namespace
}  // namespace peto
