// Test support: run one test body on SQLite and on PostgreSQL.
//
//   class CacheTest : public peto::testing::BackendTest {};
//   TEST_P(CacheTest, AddIsExclusive) { auto& db = this->db(); … }
//   PETO_BOTH_BACKENDS(CacheTest);
//
// Each test gets a fresh database: a new SQLite file in a temp folder, or a new
// schema on the server named by PETO_TEST_POSTGRES_URL (search_path set in the
// URL, so child processes given url() land in the same schema). Without that
// variable the PostgreSQL run is skipped with a visible message; `make test`
// always sets it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "store/db.h"

namespace peto::testing {

class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  bool postgres() const { return GetParam() == "postgres"; }
  store::Db& db() { return *db_; }
  // The URL of this test's database, for another Db or a child process.
  const std::string& url() const { return url_; }
  // A private temp folder for this test, removed afterwards.
  const std::filesystem::path& dir() const { return dir_; }
  // Opens another Db on the same database (another "process" in miniature).
  std::unique_ptr<store::Db> open_again(int pool_size = 2) const;

 private:
  std::filesystem::path dir_;
  std::string url_;
  std::string schema_;
  std::unique_ptr<store::Db> db_;
};

// A fresh temp folder, removed when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The built peto binary (for tests that run the real command).
std::string peto_binary();

// Runs `child(i)` in `n` forked processes at once (i = 0 … n-1) and waits for
// them all; returns how many did not exit 0. A child returns its exit code;
// an exception it throws is written to `error_dir` and counts as a failure.
// Children must open their own Db: connections do not cross a fork.
int run_in_processes(int n, const std::function<int(int)>& child,
                     const std::filesystem::path& error_dir);

// Runs a shell command, returns its exit code and fills `out` with stdout+stderr.
int run_command(const std::string& cmd, std::string* out = nullptr);

// What `peto <args>` did: its exit code, stdout and stderr apart.
struct Ran {
  int code = -1;
  std::string out;
  std::string err;
};
// Runs the real binary with `args` (shell words) on the database `db_url` and
// the data folder `data_dir`, logging at warning; `env` is prepended to the
// environment ("NAME=value " …). stderr goes through a file in `scratch`.
Ran run_peto(const std::string& db_url, const std::string& data_dir, const std::string& args,
             const std::filesystem::path& scratch, const std::string& env = "");

}  // namespace peto::testing

#define PETO_BOTH_BACKENDS(Fixture)                                                    \
  INSTANTIATE_TEST_SUITE_P(Backends, Fixture, ::testing::Values("sqlite", "postgres"), \
                           [](const auto& info) { return info.param; })
