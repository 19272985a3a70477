// The destination policy: which IP addresses peto may send a request to.
//
//   DestinationPolicy policy{config.allow_private_destinations};
//   if (Status s = policy.check("127.0.0.1"); !s) { ... s.message() ... }
//
// Every outgoing request (webhooks, notifiers, stores, syncs, captures) goes
// through net::HttpClient, which checks every address a host name resolves
// to against a policy and then connects only to an approved address (see
// notify/http.h). The checked address is the connected address: no DNS
// rebinding.
//
// Which policy applies is the caller's decision:
//   - connections (notifiers, stores, syncs) and webhooks: allow_private from
//     PETO_ALLOW_PRIVATE_DESTINATIONS (Config::allow_private_destinations);
//   - captures of web pages: always DestinationPolicy::public_only(), whatever
//     the configuration says. No setting lets a capture reach a private address.
//
// allow_private opens the addresses of this machine and of private networks
// (loopback, RFC 1918, unique-local, link-local, shared CGNAT, benchmarking).
// Addresses no host can be reached at — unspecified, "this network" 0/8,
// multicast, broadcast, reserved 240/4, documentation ranges — are refused even
// then. Text that is not an IPv4 or IPv6 address (including a zone id such as
// "fe80::1%eth0") is never public.
//
// IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d,
// IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4
// 2002::/16, Teredo 2001::/32) are judged by the IPv4 address they carry.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace peto::net {

enum class AddressKind {
  public_address,
  not_an_address,  // not IPv4 or IPv6 text
  // Reachable only inside this machine or a private network: allow_private opens these.
  loopback,      // 127/8, ::1
  private_use,   // 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10, 64:ff9b:1::/48
  link_local,    // 169.254/16, fe80::/10
  shared,        // 100.64/10 (carrier-grade NAT)
  benchmarking,  // 198.18/15, 2001:2::/48
  // Never a destination.
  unspecified,    // 0.0.0.0, ::
  this_network,   // 0/8
  multicast,      // 224/4, ff00::/8
  broadcast,      // 255.255.255.255
  reserved,       // 240/4, 192.0.0/24, 192.88.99/24, IPv6 outside 2000::/3, 2001::/23 …
  documentation,  // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
};

// What kind of address `ip` is (IPv4 dotted quad or IPv6 text, no brackets).
AddressKind classify_address(std::string_view ip);
// "a loopback address", "a private address", … for messages.
std::string_view describe(AddressKind kind);

// True for a globally routable unicast address.
bool is_public_address(std::string_view ip);

struct DestinationPolicy {
  bool allow_private = false;  // PETO_ALLOW_PRIVATE_DESTINATIONS; never for captures

  static DestinationPolicy public_only() { return DestinationPolicy{}; }

  // ok, or Status::invalid with a sentence for the person, e.g. "127.0.0.1 is
  // a loopback address; peto does not send there unless
  // PETO_ALLOW_PRIVATE_DESTINATIONS is set".
  Status check(std::string_view ip) const;
};

}  // namespace peto::net
