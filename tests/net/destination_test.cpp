// The destination policy's address table, and the robots.txt rules.
#include <gtest/gtest.h>

#include <string>

#include "net/destination.h"
#include "net/http.h"

namespace peto::net {
namespace {

struct Case {
  const char* ip;
  AddressKind kind;
};

// Every range the policy knows, in both families, with its neighbours.
const Case kAddresses[] = {
    // IPv4: public
    {"8.8.8.8", AddressKind::public_address},
    {"93.184.216.34", AddressKind::public_address},
    {"1.1.1.1", AddressKind::public_address},
    {"9.255.255.255", AddressKind::public_address},
    {"11.0.0.0", AddressKind::public_address},
    {"172.15.255.255", AddressKind::public_address},
    {"172.32.0.0", AddressKind::public_address},
    {"100.63.255.255", AddressKind::public_address},
    {"100.128.0.0", AddressKind::public_address},
    {"192.167.255.255", AddressKind::public_address},
    {"198.17.255.255", AddressKind::public_address},
    {"198.20.0.0", AddressKind::public_address},
    {"223.255.255.255", AddressKind::public_address},
    // IPv4: not public
    {"0.0.0.0", AddressKind::unspecified},
    {"0.1.2.3", AddressKind::this_network},
    {"127.0.0.1", AddressKind::loopback},
    {"127.255.255.254", AddressKind::loopback},
    {"10.0.0.1", AddressKind::private_use},
    {"10.255.255.255", AddressKind::private_use},
    {"172.16.0.1", AddressKind::private_use},
    {"172.31.255.255", AddressKind::private_use},
    {"192.168.1.1", AddressKind::private_use},
    {"169.254.169.254", AddressKind::link_local},
    {"100.64.0.1", AddressKind::shared},
    {"100.127.255.255", AddressKind::shared},
    {"198.18.0.1", AddressKind::benchmarking},
    {"198.19.255.255", AddressKind::benchmarking},
    {"192.0.2.1", AddressKind::documentation},
    {"198.51.100.7", AddressKind::documentation},
    {"203.0.113.200", AddressKind::documentation},
    {"192.0.0.8", AddressKind::reserved},
    {"192.88.99.1", AddressKind::reserved},
    {"224.0.0.1", AddressKind::multicast},
    {"239.255.255.250", AddressKind::multicast},
    {"240.0.0.1", AddressKind::reserved},
    {"255.255.255.254", AddressKind::reserved},
    {"255.255.255.255", AddressKind::broadcast},
    // IPv6: public
    {"2606:2800:220:1:248:1893:25c8:1946", AddressKind::public_address},
    {"2001:4860:4860::8888", AddressKind::public_address},
    {"2a00:1450:4001:82b::200e", AddressKind::public_address},
    {"::ffff:8.8.8.8", AddressKind::public_address},
    {"64:ff9b::808:808", AddressKind::public_address},
    {"2002:808:808::1", AddressKind::public_address},
    // IPv6: not public
    {"::", AddressKind::unspecified},
    {"::1", AddressKind::loopback},
    {"0:0:0:0:0:0:0:1", AddressKind::loopback},
    {"fc00::1", AddressKind::private_use},
    {"fd12:3456:789a::1", AddressKind::private_use},
    {"fec0::1", AddressKind::private_use},
    {"fe80::1", AddressKind::link_local},
    {"febf:ffff::1", AddressKind::link_local},
    {"ff02::1", AddressKind::multicast},
    {"ff0e::101", AddressKind::multicast},
    {"2001:db8::1", AddressKind::documentation},
    {"3fff::1", AddressKind::documentation},
    {"2001:2::1", AddressKind::benchmarking},
    {"2001:10::1", AddressKind::reserved},
    {"100::1", AddressKind::reserved},
    {"4000::1", AddressKind::reserved},
    {"64:ff9b:1::1", AddressKind::private_use},
    // IPv6 carrying a non-public IPv4
    {"::ffff:127.0.0.1", AddressKind::loopback},
    {"::ffff:7f00:1", AddressKind::loopback},
    {"::ffff:10.1.2.3", AddressKind::private_use},
    {"::ffff:169.254.169.254", AddressKind::link_local},
    {"::ffff:0.0.0.0", AddressKind::unspecified},
    {"::127.0.0.1", AddressKind::loopback},
    {"::ffff:0:192.168.0.1", AddressKind::private_use},
    {"64:ff9b::7f00:1", AddressKind::loopback},
    {"64:ff9b::a00:1", AddressKind::private_use},
    {"2002:7f00:1::", AddressKind::loopback},
    {"2002:c0a8:101::1", AddressKind::private_use},
    {"2002:a9fe:a9fe::", AddressKind::link_local},
    // Teredo: server 65.54.227.120 (public), client ~(7f000001) = 127.0.0.1
    {"2001:0:4136:e378:8000:63bf:80ff:fffe", AddressKind::loopback},
    {"2001:0:4136:e378:8000:63bf:f7ff:fffe", AddressKind::public_address},  // client 8.0.0.1
    {"2001:0:a00:1:8000:63bf:f7ff:fffe", AddressKind::private_use},         // server 10.0.0.1
    // Not addresses
    {"", AddressKind::not_an_address},
    {"localhost", AddressKind::not_an_address},
    {"127.1", AddressKind::not_an_address},
    {"2130706433", AddressKind::not_an_address},
    {"0x7f.0.0.1", AddressKind::not_an_address},
    {"010.0.0.1", AddressKind::not_an_address},
    {"fe80::1%eth0", AddressKind::not_an_address},
    {"[::1]", AddressKind::not_an_address},
    {" 8.8.8.8", AddressKind::not_an_address},
};

TEST(DestinationTest, ClassifiesEveryRange) {
  for (const auto& c : kAddresses) {
    EXPECT_EQ(classify_address(c.ip), c.kind)
        << c.ip << " is " << describe(classify_address(c.ip)) << ", expected " << describe(c.kind);
    EXPECT_EQ(is_public_address(c.ip), c.kind == AddressKind::public_address) << c.ip;
  }
}

TEST(DestinationTest, PolicyRefusesPrivateWithAClearMessage) {
  DestinationPolicy policy;
  EXPECT_TRUE(policy.check("93.184.216.34"));
  Status s = policy.check("127.0.0.1");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(),
            "127.0.0.1 is a loopback address; peto does not send there unless "
            "PETO_ALLOW_PRIVATE_DESTINATIONS is set");
  EXPECT_EQ(policy.check("::ffff:10.0.0.1").message(),
            "::ffff:10.0.0.1 is a private address; peto does not send there unless "
            "PETO_ALLOW_PRIVATE_DESTINATIONS is set");
  EXPECT_EQ(policy.check("example.com").message(), "'example.com' is not an IP address");
}

TEST(DestinationTest, AllowPrivateOpensPrivateNetworksOnly) {
  DestinationPolicy open{.allow_private = true};
  for (const char* ip : {"127.0.0.1", "::1", "10.0.0.1", "192.168.1.1", "172.20.0.1", "169.254.1.1",
                         "fe80::1", "fd00::1", "100.64.0.1", "::ffff:127.0.0.1"})
    EXPECT_TRUE(open.check(ip)) << ip;
  for (const char* ip : {"0.0.0.0", "::", "0.1.2.3", "224.0.0.1", "ff02::1", "255.255.255.255",
                         "240.0.0.1", "192.0.2.1", "2001:db8::1", "not-an-ip"})
    EXPECT_FALSE(open.check(ip)) << ip;
  Status never = open.check("224.0.0.1");
  EXPECT_EQ(never.message(), "224.0.0.1 is a multicast address; peto never sends there");
  EXPECT_FALSE(DestinationPolicy::public_only().check("10.0.0.1"));
}

// ---------------------------------------------------------------- robots.txt

TEST(RobotsTest, NoFileOrNoRulesAllowsEverything) {
  EXPECT_TRUE(robots_allows("", "peto/0.1", "/anything"));
  EXPECT_TRUE(robots_allows("User-agent: *\nDisallow:\n", "peto/0.1", "/anything"));
  EXPECT_TRUE(robots_allows("# only a comment\n", "peto", "/"));
}

TEST(RobotsTest, DisallowAllRefusesEverythingButRobotsTxt) {
  const char* txt = "User-agent: *\nDisallow: /\n";
  EXPECT_FALSE(robots_allows(txt, "peto/0.1", "/"));
  EXPECT_FALSE(robots_allows(txt, "peto/0.1", "/jobs/1"));
  EXPECT_TRUE(robots_allows(txt, "peto/0.1", "/robots.txt"));
}

TEST(RobotsTest, SpecificAgentGroupWinsOverStar) {
  const char* txt =
      "User-agent: *\n"
      "Disallow: /\n"
      "\n"
      "User-agent: Peto\n"
      "Disallow: /private\n";
  EXPECT_TRUE(robots_allows(txt, "peto/0.1.0", "/jobs/1"));
  EXPECT_FALSE(robots_allows(txt, "peto/0.1.0", "/private/x"));
  EXPECT_FALSE(robots_allows(txt, "otherbot/1.0", "/jobs/1"));
  // A group naming another agent does not apply to peto.
  EXPECT_TRUE(robots_allows("User-agent: googlebot\nDisallow: /\n", "peto", "/jobs"));
  // "petoextra" is not "peto".
  EXPECT_TRUE(robots_allows("User-agent: petoextra\nDisallow: /\n", "peto", "/jobs"));
}

TEST(RobotsTest, SeveralAgentsShareAGroupAndGroupsMerge) {
  const char* txt =
      "User-agent: a\n"
      "User-agent: peto\n"
      "Disallow: /one\n"
      "User-agent: b\n"
      "Disallow: /two\n"
      "User-agent: peto # again\n"
      "Disallow: /three\n";
  EXPECT_FALSE(robots_allows(txt, "peto", "/one"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/two"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/three"));
}

TEST(RobotsTest, LongestMatchWinsAndAllowWinsATie) {
  const char* txt =
      "user-agent: *\n"
      "disallow: /jobs\n"
      "allow: /jobs/open\n"
      "disallow: /jobs/open/secret\n"
      "allow: /same\n"
      "disallow: /same\n";
  EXPECT_FALSE(robots_allows(txt, "peto", "/jobs"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/jobs/closed"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/jobs/open/1"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/jobs/open/secret/2"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/same/x"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/elsewhere"));
}

TEST(RobotsTest, WildcardsAndEndAnchor) {
  const char* txt =
      "User-agent: *\n"
      "Disallow: /*.pdf$\n"
      "Disallow: /search*q=\n"
      "Disallow: /exact$\n"
      "Allow: /*/public/\n"
      "Disallow: /a/\n";
  EXPECT_FALSE(robots_allows(txt, "peto", "/files/cv.pdf"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/files/cv.pdf?download=1"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/search?x=1&q=dev"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/search?x=1"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/exact"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/exact/more"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/a/public/x"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/a/private/x"));
}

TEST(RobotsTest, ToleratesCrlfCommentsCaseAndPercentEncoding) {
  const char* txt = "USER-AGENT: *\r\nDISALLOW: /%7Euser # home pages\r\nDisallow: /caf%c3%a9\r\n";
  EXPECT_FALSE(robots_allows(txt, "peto", "/~user/cv"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/%7euser/cv"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/caf%C3%A9/menu"));
  EXPECT_FALSE(robots_allows(txt, "peto", "/caf\xc3\xa9/menu"));
  EXPECT_TRUE(robots_allows(txt, "peto", "/cafe"));
  // Rules before any User-agent line belong to no group.
  EXPECT_TRUE(robots_allows("Disallow: /\n", "peto", "/x"));
}

TEST(RobotsTest, UrlHelpers) {
  EXPECT_EQ(robots_url("https://Jobs.Example:8443/a/b?x=1#frag"),
            "https://jobs.example:8443/robots.txt");
  EXPECT_EQ(robots_url("http://example.com"), "http://example.com/robots.txt");
  EXPECT_EQ(robots_url("ftp://example.com/x"), "");
  EXPECT_EQ(robots_url("not a url"), "");
  EXPECT_EQ(robots_target("https://jobs.example/a/b?x=1#frag"), "/a/b?x=1");
  EXPECT_EQ(robots_target("https://jobs.example"), "/");
}

}  // namespace
}  // namespace peto::net
