// The limits of `peto serve` as it starts in production, on the real process:
// a body is refused on its headers when its route would not take it, before
// a byte of it is read, so a stranger cannot make the server hold it.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace peto
