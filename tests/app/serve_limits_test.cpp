// The limits of `peto serve` as it starts in production, on the real process:
// a body is refused on its headers when its route would not take it, before
// a byte of it is read, so a stranger cannot make the server hold it; tests
// of connections that never answer hold a few server threads at most.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "connections/tries.h"
#include "tests/support/backends.h"
#include "tests/support/http_client.h"
#include "tests/support/served_peto.h"

namespace peto {
namespace {

using testing::TestConnection;

// Sends only the headers of a `bytes`-long POST; the answer must come without
// the body.
testing::ClientResponse announce(std::uint16_t port, const std::string& target, std::size_t bytes,
                                 const std::string& type) {
  TestConnection c(port);
  c.send_raw("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + type +
             "\r\nContent-Length: " + std::to_string(bytes) + "\r\n\r\n");
  return c.read_response();
}

TEST(ServeLimitsTest, EachRouteRefusesABodyLargerThanItTakesOnItsHeaders) {
  testing::TempDir tmp;
  testing::ServedPeto peto(tmp.path());
  const std::string form = "application/x-www-form-urlencoded";

  // The upload limit (25 MB) is for uploads only: a form takes 512 KiB, and
  // a signed-out visitor's form (sign-in, an invitation) 16 KiB.
  auto signin = announce(peto.port(), "/signin", 25u << 20, form);
  EXPECT_EQ(signin.status, 413);
  EXPECT_EQ(announce(peto.port(), "/signin", (16u << 10) + 1, form).status, 413);
  EXPECT_EQ(announce(peto.port(), "/listings/new", (512u << 10) + 1, form).status, 413);

  // A page that needs a session answers a stranger on the headers: the body
  // is never read, however slowly it would come.
  auto stranger = announce(peto.port(), "/listings/new", 500u << 10, form);
  EXPECT_EQ(stranger.status, 303);
  EXPECT_EQ(stranger.header("Location").rfind("/signin", 0), 0u) << stranger.header("Location");
  EXPECT_EQ(stranger.header("Connection"), "close");

  // The API takes 256 KiB, refused before the token is even looked at.
  auto api = announce(peto.port(), "/api/v1/notes", (256u << 10) + 1, "application/json");
  EXPECT_EQ(api.status, 413);
  EXPECT_EQ(api.header("Content-Type"), "application/problem+json");
  EXPECT_NE(api.body.find("262144 bytes"), std::string::npos) << api.body;

  // Within the limit the request is read and answered as before.
  EXPECT_EQ(testing::http_request(peto.port(), "GET", "/healthz").status, 200);
}

// Behind a reverse proxy every request comes from the proxy's address; with
// PETO_TRUSTED_PROXIES set, `peto serve` takes the client the proxy names
// (what the sign-in throttle and the logs count), and from anyone else the
// header is ignored. The access line (debug) shows the address it took. The
// throttle's own behaviour per address is tested with a FakeClock
// (tests/pages/accounts_http_test.cpp): a real clock's minute could split
// its window here.
TEST(ServeLimitsTest, BehindATrustedProxyTheClientItNamesIsTheAddress) {
  testing::TempDir tmp;
  testing::ServedPeto peto(tmp.path(), "PETO_TRUSTED_PROXIES=127.0.0.2 PETO_LOG_LEVEL=debug ");
  auto from = [&](const std::string& source) {
    TestConnection c(peto.port(), source);
    return c.request("GET", "/healthz", "", {{"X-Forwarded-For", "6.6.6.6, 192.0.2.7"}}).status;
  };
  EXPECT_EQ(from("127.0.0.2"), 200);  // the proxy
  EXPECT_EQ(from("127.0.0.3"), 200);  // anyone else
  std::vector<std::string> remotes;
  for (int tries = 0; tries < 50 && remotes.size() < 2; ++tries) {
    remotes.clear();
    std::istringstream lines(peto.log());
    for (std::string line; std::getline(lines, line);) {
      if (line.find("\"message\":\"request\"") == std::string::npos) continue;
      auto at = line.find("\"remote\":\"");
      if (at == std::string::npos) continue;
      at += 10;
      remotes.push_back(line.substr(at, line.find('"', at) - at));
    }
    if (remotes.size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(remotes, (std::vector<std::string>{"192.0.2.7", "127.0.0.3"}));
}

// A server that takes connections and never answers; gone, it closes them,
// so what waits on it fails at once.
class SilentServer {
 public:
  SilentServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), size) != 0 || ::listen(fd_, 64) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &size) != 0)
      ADD_FAILURE() << "no silent server";
    port_ = ntohs(a.sin_port);
    taker_ = std::thread([this] {
      for (int c; (c = ::accept(fd_, nullptr, nullptr)) >= 0;) taken_.push_back(c);
    });
  }
  ~SilentServer() {
    ::shutdown(fd_, SHUT_RDWR);  // ends the accept
    taker_.join();
    ::close(fd_);
    for (int c : taken_) ::close(c);
  }
  SilentServer(const SilentServer&) = delete;
  SilentServer& operator=(const SilentServer&) = delete;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::vector<int> taken_;  // the taker's only, until it is joined
  std::thread taker_;
};

// Six people test a webhook whose server never answers, all at once. Without
// a worker the tests run in requests, through the gate: two at a time in the
// process and one per person, the others answer 429 at once, and the site
// goes on answering.
TEST(ServeLimitsTest, TestsOfAServerThatNeverAnswersHoldTwoServerThreadsAtMost) {
  testing::TempDir tmp;
  auto silent = std::make_unique<SilentServer>();
  testing::ServedPeto peto(tmp.path(),
                           "PETO_BACKGROUND_WORK=false PETO_ALLOW_PRIVATE_DESTINATIONS=true ");
  constexpr int kPeople = 6;
  std::ofstream(tmp.path() / "password") << "a-password-long-enough\n";
  std::vector<std::string> tokens;
  std::vector<std::int64_t> connections;
  for (int i = 0; i < kPeople; ++i) {
    const std::string email = "person" + std::to_string(i) + "@example.com";
    auto run = [&](const std::string& args) {
      return testing::run_peto(peto.database_url(), peto.data_dir(), args, tmp.path());
    };
    ASSERT_EQ(run("user create --email " + email + " --password-stdin < '" +
                  (tmp.path() / "password").string() + "'")
                  .code,
              0);
    auto made = run("token create --user " + email + " --scope connections:write");
    ASSERT_EQ(made.code, 0) << made.err;
    std::string token = made.out.substr(made.out.rfind("peto_"));
    tokens.push_back(token.substr(0, token.find_first_of(" \r\n")));
    testing::TestConnection c(peto.port());
    auto created = c.request(
        "POST", "/api/v1/connections",
        nlohmann::json{{"plugin", "webhook"},
                       {"label", "Silent"},
                       {"config", {{"url", silent->url()}, {"secret", "0123456789abcdef"}}}}
            .dump(),
        {{"Authorization", "Bearer " + tokens.back()}, {"Content-Type", "application/json"}});
    ASSERT_EQ(created.status, 201) << created.body;
    connections.push_back(nlohmann::json::parse(created.body)["id"].get<std::int64_t>());
  }

  std::vector<std::future<int>> tests;
  for (int i = 0; i < kPeople; ++i)
    tests.push_back(std::async(std::launch::async, [&, i] {
      testing::TestConnection c(peto.port());
      return c
          .request("POST", "/api/v1/connections/" + std::to_string(connections[i]) + "/test", "",
                   {{"Authorization", "Bearer " + tokens[i]}})
          .status;
    }));
  // Four are turned away at once; two wait on the silent server.
  int answered = 0;
  int refused = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (answered < kPeople - connections::TryGate::kAtOnce &&
         std::chrono::steady_clock::now() < deadline)
    for (auto& t : tests)
      if (t.valid() && t.wait_for(std::chrono::milliseconds(10)) == std::future_status::ready) {
        ++answered;
        refused += t.get() == 429 ? 1 : 0;
      }
  EXPECT_EQ(refused, kPeople - connections::TryGate::kAtOnce);
  const auto asked = std::chrono::steady_clock::now();
  testing::TestConnection health(peto.port());
  EXPECT_EQ(health.request("GET", "/healthz").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(1));

  silent.reset();  // the two waiting tests fail at once now
  for (auto& t : tests) {
    if (!t.valid()) continue;
    EXPECT_EQ(t.get(), 200);
  }
}

}  // namespace
}  // namespace peto
