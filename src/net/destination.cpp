#include "net/destination.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace peto::net {
namespace {

// True when the top `bits` bits of `a` equal those of `prefix`.
bool in4(std::uint32_t a, std::uint32_t prefix, int bits) {
  std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return (a & mask) == (prefix & mask);
}

constexpr std::uint32_t v4(int a, int b, int c, int d) {
  return (std::uint32_t(a) << 24) | (std::uint32_t(b) << 16) | (std::uint32_t(c) << 8) |
         std::uint32_t(d);
}

AddressKind classify_v4(std::uint32_t a) {
  if (a == 0) return AddressKind::unspecified;
  if (in4(a, v4(0, 0, 0, 0), 8)) return AddressKind::this_network;
  if (in4(a, v4(127, 0, 0, 0), 8)) return AddressKind::loopback;
  if (in4(a, v4(10, 0, 0, 0), 8) || in4(a, v4(172, 16, 0, 0), 12) || in4(a, v4(192, 168, 0, 0), 16))
    return AddressKind::private_use;
  if (in4(a, v4(169, 254, 0, 0), 16)) return AddressKind::link_local;
  if (in4(a, v4(100, 64, 0, 0), 10)) return AddressKind::shared;
  if (in4(a, v4(198, 18, 0, 0), 15)) return AddressKind::benchmarking;
  if (in4(a, v4(192, 0, 2, 0), 24) || in4(a, v4(198, 51, 100, 0), 24) ||
      in4(a, v4(203, 0, 113, 0), 24))
    return AddressKind::documentation;
  // IETF protocol assignments and the deprecated 6to4 relay anycast.
  if (in4(a, v4(192, 0, 0, 0), 24) || in4(a, v4(192, 88, 99, 0), 24)) return AddressKind::reserved;
  if (a == v4(255, 255, 255, 255)) return AddressKind::broadcast;
  if (in4(a, v4(224, 0, 0, 0), 4)) return AddressKind::multicast;
  if (in4(a, v4(240, 0, 0, 0), 4)) return AddressKind::reserved;
  return AddressKind::public_address;
}

using Bytes16 = std::array<unsigned char, 16>;

std::uint32_t v4_at(const Bytes16& b, int i) {
  return (std::uint32_t(b[i]) << 24) | (std::uint32_t(b[i + 1]) << 16) |
         (std::uint32_t(b[i + 2]) << 8) | std::uint32_t(b[i + 3]);
}

bool zero(const Bytes16& b, int from, int to) {
  for (int i = from; i < to; ++i)
    if (b[i] != 0) return false;
  return true;
}

// True when the top `bits` bits of `b` equal those of `prefix` (given as the
// leading 16-bit groups of an IPv6 address).
bool in6(const Bytes16& b, std::initializer_list<unsigned> groups, int bits) {
  Bytes16 p{};
  int i = 0;
  for (unsigned g : groups) {
    p[i++] = static_cast<unsigned char>(g >> 8);
    p[i++] = static_cast<unsigned char>(g & 0xff);
  }
  for (int bit = 0; bit < bits; ++bit) {
    int mask = 0x80 >> (bit % 8);
    if ((b[bit / 8] & mask) != (p[bit / 8] & mask)) return false;
  }
  return true;
}

AddressKind classify_v6(const Bytes16& b) {
  if (zero(b, 0, 16)) return AddressKind::unspecified;
  if (zero(b, 0, 15) && b[15] == 1) return AddressKind::loopback;
  // Forms that carry an IPv4 address are judged by it.
  if (zero(b, 0, 10) && b[10] == 0xff && b[11] == 0xff)  // ::ffff:a.b.c.d (mapped)
    return classify_v4(v4_at(b, 12));
  if (zero(b, 0, 8) && b[8] == 0xff && b[9] == 0xff && zero(b, 10, 12))  // ::ffff:0:a.b.c.d
    return classify_v4(v4_at(b, 12));
  if (zero(b, 0, 12)) return classify_v4(v4_at(b, 12));  // ::a.b.c.d (compatible)
  if (in6(b, {0x64, 0xff9b}, 32) && zero(b, 4, 12))      // NAT64 well-known prefix
    return classify_v4(v4_at(b, 12));
  if (in6(b, {0x64, 0xff9b, 0x1}, 48)) return AddressKind::private_use;  // local NAT64
  if (in6(b, {0x2002}, 16)) return classify_v4(v4_at(b, 2));             // 6to4
  if (in6(b, {0x2001, 0x0000}, 32)) {                                    // Teredo
    AddressKind server = classify_v4(v4_at(b, 4));
    AddressKind client = classify_v4(~v4_at(b, 12));
    return client != AddressKind::public_address ? client : server;
  }
  if (in6(b, {0x2001, 0x0db8}, 32) || in6(b, {0x3fff}, 20)) return AddressKind::documentation;
  if (in6(b, {0x2001, 0x0002, 0x0000}, 48)) return AddressKind::benchmarking;
  if (in6(b, {0x2001}, 23)) return AddressKind::reserved;           // IETF protocol assignments
  if (in6(b, {0x0100, 0, 0, 0}, 64)) return AddressKind::reserved;  // discard-only
  if (in6(b, {0x5f00}, 16)) return AddressKind::reserved;           // SRv6 SIDs
  if (in6(b, {0xfc00}, 7) || in6(b, {0xfec0}, 10)) return AddressKind::private_use;
  if (in6(b, {0xfe80}, 10)) return AddressKind::link_local;
  if (in6(b, {0xff00}, 8)) return AddressKind::multicast;
  if (!in6(b, {0x2000}, 3)) return AddressKind::reserved;  // outside global unicast
  return AddressKind::public_address;
}

// Kinds that PETO_ALLOW_PRIVATE_DESTINATIONS opens.
bool is_private_network(AddressKind kind) {
  switch (kind) {
    case AddressKind::loopback:
    case AddressKind::private_use:
    case AddressKind::link_local:
    case AddressKind::shared:
    case AddressKind::benchmarking:
      return true;
    default:
      return false;
  }
}

}  // namespace

AddressKind classify_address(std::string_view ip) {
  // inet_pton needs a terminated string; an address is never long.
  if (ip.empty() || ip.size() > 64) return AddressKind::not_an_address;
  std::string text(ip);
  in_addr a4{};
  if (inet_pton(AF_INET, text.c_str(), &a4) == 1) return classify_v4(ntohl(a4.s_addr));
  Bytes16 a6{};
  if (inet_pton(AF_INET6, text.c_str(), a6.data()) == 1) return classify_v6(a6);
  return AddressKind::not_an_address;
}

std::string_view describe(AddressKind kind) {
  switch (kind) {
    case AddressKind::public_address:
      return "a public address";
    case AddressKind::not_an_address:
      return "not an IP address";
    case AddressKind::loopback:
      return "a loopback address";
    case AddressKind::private_use:
      return "a private address";
    case AddressKind::link_local:
      return "a link-local address";
    case AddressKind::shared:
      return "a carrier-grade NAT (shared) address";
    case AddressKind::benchmarking:
      return "a benchmarking address";
    case AddressKind::unspecified:
      return "the unspecified address";
    case AddressKind::this_network:
      return "a \"this network\" address";
    case AddressKind::multicast:
      return "a multicast address";
    case AddressKind::broadcast:
      return "the broadcast address";
    case AddressKind::reserved:
      return "a reserved address";
    case AddressKind::documentation:
      return "a documentation address";
  }
  return "an unknown kind of address";
}

bool is_public_address(std::string_view ip) {
  return classify_address(ip) == AddressKind::public_address;
}

Status DestinationPolicy::check(std::string_view ip) const {
  AddressKind kind = classify_address(ip);
  if (kind == AddressKind::public_address) return Status::ok();
  if (kind == AddressKind::not_an_address)
    return Status::invalid("'" + std::string(ip) + "' is not an IP address");
  if (is_private_network(kind)) {
    if (allow_private) return Status::ok();
    return Status::invalid(std::string(ip) + " is " + std::string(describe(kind)) +
                           "; peto does not send there unless "
                           "PETO_ALLOW_PRIVATE_DESTINATIONS is set");
  }
  return Status::invalid(std::string(ip) + " is " + std::string(describe(kind)) +
                         "; peto never sends there");
}

}  // namespace peto::net
