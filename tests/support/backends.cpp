#include "tests/support/backends.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace peto::testing {

namespace {
std::string random_suffix() {
  static std::mt19937_64 rng{std::random_device{}()};
  static const char* hex = "0123456789abcdef";
  std::string s;
  auto v = rng();
  for (int i = 0; i < 12; ++i, v >>= 4) s += hex[v & 15];
  return s;
}
}  // namespace

TempDir::TempDir() {
  path_ = std::filesystem::temp_directory_path() / ("peto-test-" + random_suffix());
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void BackendTest::SetUp() {
  dir_ = std::filesystem::temp_directory_path() / ("peto-test-" + random_suffix());
  std::filesystem::create_directories(dir_);
  if (!postgres()) {
    url_ = "sqlite://" + (dir_ / "peto.db").string();
  } else {
    const char* base = std::getenv("PETO_TEST_POSTGRES_URL");
    if (!base || !*base) {
      GTEST_SKIP() << "PostgreSQL run skipped: PETO_TEST_POSTGRES_URL is not set "
                      "(make test sets it)";
    }
    schema_ = "t_" + random_suffix();
    {
      auto admin = store::Db::open(base, 1);
      admin->query("CREATE SCHEMA " + schema_);
    }
    std::string b = base;
    url_ =
        b + (b.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema_;
  }
  db_ = store::Db::open(url_, 4);
}

void BackendTest::TearDown() {
  db_.reset();
  if (!schema_.empty()) {
    try {
      auto admin = store::Db::open(std::getenv("PETO_TEST_POSTGRES_URL"), 1);
      admin->query("DROP SCHEMA " + schema_ + " CASCADE");
    } catch (const std::exception&) {
      // A test that stopped the server leaves its schema; the server is thrown away.
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::unique_ptr<store::Db> BackendTest::open_again(int pool_size) const {
  return store::Db::open(url_, pool_size);
}

std::string peto_binary() {
  if (const char* p = std::getenv("PETO_BINARY")) return p;
  return PETO_BINARY_PATH;
}

int run_in_processes(int n, const std::function<int(int)>& child,
                     const std::filesystem::path& error_dir) {
  std::vector<pid_t> kids;
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid < 0) return n - i;
    if (pid == 0) {
      int code = 2;
      try {
        code = child(i);
      } catch (const std::exception& e) {
        std::ofstream(error_dir / ("child-error-" + std::to_string(getpid()))) << e.what();
      }
      _exit(code);
    }
    kids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  return failed;
}

int run_command(const std::string& cmd, std::string* out) {
  std::string full = cmd + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buf;
  std::string text;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) text.append(buf.data(), n);
  int status = pclose(pipe);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Ran run_peto(const std::string& db_url, const std::string& data_dir, const std::string& args,
             const std::filesystem::path& scratch, const std::string& env) {
  const auto err_file = scratch / "stderr.txt";
  std::string cmd = "(env " + env + "PETO_LOG_LEVEL=warning PETO_DATABASE_URL='" + db_url +
                    "' PETO_DATA_DIR='" + data_dir + "' " + peto_binary() + " " + args + " 2>'" +
                    err_file.string() + "')";
  Ran r;
  r.code = run_command(cmd, &r.out);
  std::ifstream in(err_file);
  std::stringstream text;
  text << in.rdbuf();
  r.err = text.str();
  return r;
}

}  // namespace peto::testing
