// The limits of `peto serve` as it starts in production, on the real process:
// a body is refused on its headers when its route would not take it, before
// a byte of it is read, so a stranger cannot make the server hold it.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

  // The upload limit (25 MB) is for uploads only: a form takes 512 KiB.
  auto signin = announce(peto.port(), "/signin", 25u << 20, form);
  EXPECT_EQ(signin.status, 413);
  EXPECT_EQ(announce(peto.port(), "/signin", (512u << 10) + 1, form).status, 413);

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

}  // namespace
}  // namespace peto
