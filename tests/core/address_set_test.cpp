// AddressSet: the networks of PETO_TRUSTED_PROXIES.
#include "core/address_set.h"

#include <gtest/gtest.h>

namespace peto {
namespace {

TEST(AddressSetTest, NetworksAndSingleAddressesOfBothFamilies) {
  auto set = AddressSet::parse("10.0.0.0/8, 192.0.2.7 2001:db8::/32,,::1");
  ASSERT_TRUE(set) << set.status().message();
  for (const char* in : {"10.0.0.1", "10.255.255.255", "192.0.2.7", "2001:db8::1",
                         "2001:db8:ffff::", "::1", "::ffff:10.1.2.3"})
    EXPECT_TRUE(set->contains(in)) << in;
  for (const char* out : {"11.0.0.1", "192.0.2.8", "2001:db9::1", "::2", "", "unknown",
                          "10.0.0.1:80", "[::1]", "localhost"})
    EXPECT_FALSE(set->contains(out)) << out;
}

TEST(AddressSetTest, PrefixesCutInsideAByte) {
  auto set = AddressSet::parse("172.16.0.0/12");
  ASSERT_TRUE(set);
  EXPECT_TRUE(set->contains("172.31.255.1"));
  EXPECT_FALSE(set->contains("172.32.0.1"));
  EXPECT_FALSE(set->contains("172.15.0.1"));
  auto all = AddressSet::parse("0.0.0.0/0");
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->contains("203.0.113.9"));
  EXPECT_FALSE(all->contains("2001:db8::1")) << "an IPv4 network holds no IPv6 address";
}

TEST(AddressSetTest, AnythingElseIsRefusedNamingTheItem) {
  EXPECT_TRUE(AddressSet::parse("")->empty());
  for (const char* bad : {"proxy.example", "10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0.0/8x",
                          "10.0.0/8", "1.2.3.4/-1"}) {
    auto set = AddressSet::parse(std::string("127.0.0.1, ") + bad);
    ASSERT_FALSE(set) << bad;
    EXPECT_NE(set.status().message().find(bad), std::string::npos) << set.status().message();
  }
}

TEST(AddressSetTest, IsIpAddress) {
  EXPECT_TRUE(is_ip_address("192.0.2.1"));
  EXPECT_TRUE(is_ip_address("2001:db8::1"));
  EXPECT_FALSE(is_ip_address("unknown"));
  EXPECT_FALSE(is_ip_address("_hidden"));
  EXPECT_FALSE(is_ip_address(""));
}

}  // namespace
}  // namespace peto
