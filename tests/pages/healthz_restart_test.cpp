// /healthz follows the PostgreSQL server: 503 while it is down, 200 again
// once it is back, without restarting peto. The server here is this test's
// own (the shared one keeps serving the other tests).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/backends.h"
#include "tests/support/http_client.h"
#include "tests/support/web_server.h"

namespace peto {
namespace {

std::uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

int healthz(std::uint16_t port) {
  try {
    return testing::http_request(port, "GET", "/healthz").status;
  } catch (const std::exception&) {
    return 0;
  }
}

TEST(HealthzRestart, Is503WhileThePostgresServerIsDownAnd200AfterItIsBack) {
  if (!std::getenv("PETO_TEST_POSTGRES_URL")) GTEST_SKIP() << "PETO_TEST_POSTGRES_URL is not set";
  testing::TempDir tmp;
  std::string script = std::string(PETO_SOURCE_DIR) + "/scripts/pg-test-server";
  std::string pg_dir = (tmp.path() / "pg").string();
  std::string out;
  ASSERT_EQ(testing::run_command(script + " start " + pg_dir, &out), 0) << out;
  std::string url;
  std::ifstream(pg_dir + "/url") >> url;

  auto port = free_port();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("PETO_DATABASE_URL", url.c_str(), 1);
    setenv("PETO_DATA_DIR", (tmp.path() / "data").c_str(), 1);
    setenv("PETO_LOG_LEVEL", "error", 1);
    std::string listen = "127.0.0.1:" + std::to_string(port);
    execl(testing::peto_binary().c_str(), "peto", "serve", "--listen", listen.c_str(), nullptr);
    _exit(127);
  }
  EXPECT_TRUE(testing::eventually([&] { return healthz(port) == 200; }, std::chrono::seconds(20)));
  ASSERT_EQ(testing::run_command(script + " stop-server " + pg_dir, &out), 0) << out;
  EXPECT_TRUE(testing::eventually([&] { return healthz(port) == 503; }, std::chrono::seconds(20)));
  ASSERT_EQ(testing::run_command(script + " start-server " + pg_dir, &out), 0) << out;
  EXPECT_TRUE(testing::eventually([&] { return healthz(port) == 200; }, std::chrono::seconds(20)))
      << "peto reconnects by itself";

  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a clean stop on SIGTERM";
  testing::run_command(script + " stop " + pg_dir, &out);
}

}  // namespace
}  // namespace peto
