// The limits of `peto serve` as it starts in production, on the real process:
// a body is refused on its headers when its route would not take it, before
// a byte of it is read, so a stranger cannot make the server hold it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

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
// PETO_TRUSTED_PROXIES the sign-in throttle counts each client apart, so one
// stranger's failures hold up only that stranger.
TEST(ServeLimitsTest, BehindATrustedProxyEachClientIsThrottledApart) {
  testing::TempDir tmp;
  testing::ServedPeto peto(tmp.path(), "PETO_TRUSTED_PROXIES=127.0.0.1 ");
  { std::ofstream(tmp.path() / "password") << "correct horse battery\n"; }
  auto made = testing::run_peto(peto.database_url(), peto.data_dir(),
                                "user create --email ana@example.com --password-stdin <'" +
                                    (tmp.path() / "password").string() + "'",
                                tmp.path());
  ASSERT_EQ(made.code, 0) << made.out << made.err;

  auto sign_in = [&](const std::string& client, const std::string& email,
                     const std::string& password) {
    const std::string token(32, 'f');  // the form's token, as the page would give it
    return testing::http_request(peto.port(), "POST", "/signin",
                                 "email=" + email + "&password=" + password + "&csrf=" + token,
                                 {{"Content-Type", "application/x-www-form-urlencoded"},
                                  {"Cookie", "peto_form=" + token},
                                  {"X-Forwarded-For", client}})
        .status;
  };
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(sign_in("192.0.2.1", "nobody%40example.com", "guess"), 200) << i;
  EXPECT_EQ(sign_in("192.0.2.1", "ana%40example.com", "correct+horse+battery"), 429);
  EXPECT_EQ(sign_in("192.0.2.2", "ana%40example.com", "correct+horse+battery"), 303)
      << "another client behind the same proxy is not held up";
}

}  // namespace
}  // namespace peto
