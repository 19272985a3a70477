// client_address and client_scheme: who the client is, and whether it used
// HTTPS, behind PETO_TRUSTED_PROXIES; nobody else's forwarding header is believed.
#include "http/client_address.h"

#include <gtest/gtest.h>

#include "http/router.h"
#include "tests/support/http_client.h"
#include "tests/support/web_server.h"

namespace peto::web {
namespace {

AddressSet proxies(const char* text) { return *AddressSet::parse(text); }

TEST(ClientAddressTest, AnUntrustedPeersHeadersAreIgnored) {
  Headers h = {{"X-Forwarded-For", "192.0.2.1"}, {"Forwarded", "for=192.0.2.2"}};
  EXPECT_EQ(client_address("203.0.113.5", h, proxies("")), "203.0.113.5");
  EXPECT_EQ(client_address("203.0.113.5", h, proxies("10.0.0.0/8")), "203.0.113.5");
}

TEST(ClientAddressTest, OnlyATrustedProxySaysTheClientUsedHttps) {
  const AddressSet trusted = proxies("127.0.0.1");
  Headers xfp = {{"X-Forwarded-Proto", "https"}};
  EXPECT_EQ(client_scheme("127.0.0.1", xfp, trusted), "https");
  EXPECT_EQ(client_scheme("203.0.113.5", xfp, trusted), "http");
  EXPECT_EQ(client_scheme("127.0.0.1", {}, trusted), "http");
  // The nearest proxy's word counts; Forwarded before X-Forwarded-Proto.
  Headers chain = {{"X-Forwarded-Proto", "http, HTTPS"}};
  EXPECT_EQ(client_scheme("127.0.0.1", chain, trusted), "https");
  Headers both = {{"Forwarded", "for=192.0.2.1;proto=\"https\", for=10.0.0.2;proto=http"},
                  {"X-Forwarded-Proto", "https"}};
  EXPECT_EQ(client_scheme("127.0.0.1", both, trusted), "http");
  Headers forwarded = {{"Forwarded", "for=192.0.2.1;proto=https"}};
  EXPECT_EQ(client_scheme("127.0.0.1", forwarded, trusted), "https");
}

TEST(ClientAddressTest, TheRightmostAddressThatIsNotAProxyIsTheClient) {
  const AddressSet trusted = proxies("127.0.0.1, 10.0.0.0/8");
  // What a client wrote itself sits at the left and is never reached.
  Headers xff = {{"X-Forwarded-For", "6.6.6.6, 198.51.100.4, 10.0.0.2"}};
  EXPECT_EQ(client_address("127.0.0.1", xff, trusted), "198.51.100.4");
  Headers split = {{"X-Forwarded-For", "6.6.6.6"}, {"x-forwarded-for", "198.51.100.4"}};
  EXPECT_EQ(client_address("127.0.0.1", split, trusted), "198.51.100.4");
  // Every hop a proxy: the farthest one is all that is known.
  Headers proxies_only = {{"X-Forwarded-For", "10.0.0.3, 10.0.0.2"}};
  EXPECT_EQ(client_address("127.0.0.1", proxies_only, trusted), "10.0.0.3");
  // No header: the proxy itself.
  EXPECT_EQ(client_address("127.0.0.1", {}, trusted), "127.0.0.1");
}

TEST(ClientAddressTest, ForwardedIsPreferredAndItsFormsAreRead) {
  const AddressSet trusted = proxies("127.0.0.1");
  Headers h = {{"X-Forwarded-For", "192.0.2.1"},
               {"Forwarded", R"(for=6.6.6.6, for="[2001:db8::7]:4711";proto=https)"}};
  EXPECT_EQ(client_address("127.0.0.1", h, trusted), "2001:db8::7");
  Headers v4port = {{"Forwarded", "proto=http; FOR=198.51.100.9:8080"}};
  EXPECT_EQ(client_address("127.0.0.1", v4port, trusted), "198.51.100.9");
}

TEST(ClientAddressTest, AHopThatIsNotAnAddressStopsTheWalk) {
  const AddressSet trusted = proxies("127.0.0.1, 10.0.0.0/8");
  Headers h = {{"Forwarded", "for=198.51.100.1, for=unknown, for=10.0.0.2"}};
  EXPECT_EQ(client_address("127.0.0.1", h, trusted), "10.0.0.2");
  Headers junk = {{"X-Forwarded-For", "198.51.100.1, <script>"}};
  EXPECT_EQ(client_address("127.0.0.1", junk, trusted), "127.0.0.1");
}

// Over a real connection: the server gives handlers the client's address.
TEST(ClientAddressTest, TheServerSetsTheRequestsRemoteAddress) {
  Router router;
  router.add("GET", "/who", [](Request& r) { return Response::text(200, r.remote_address); });
  Server::Options trusting;
  trusting.trusted_proxies = proxies("127.0.0.1");
  peto::testing::WebServer behind_proxy(router, trusting);
  auto r = peto::testing::http_request(behind_proxy.port(), "GET", "/who", "",
                                       {{"X-Forwarded-For", "198.51.100.4"}});
  EXPECT_EQ(r.body, "198.51.100.4");

  peto::testing::WebServer direct(router);
  auto d = peto::testing::http_request(direct.port(), "GET", "/who", "",
                                       {{"X-Forwarded-For", "198.51.100.4"}});
  EXPECT_EQ(d.body, "127.0.0.1");
}

}  // namespace
}  // namespace peto::web
