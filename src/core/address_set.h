// AddressSet: IP addresses and networks, written "10.0.0.0/8, ::1, 192.0.2.7".
//
//   auto proxies = AddressSet::parse("127.0.0.1, 10.0.0.0/8");
//   proxies->contains("10.1.2.3");   // true
//
// A bare address is a network of one. An IPv4 address written as IPv6
// ("::ffff:10.1.2.3", as a dual-stack socket reports it) is the IPv4 one.
// PETO_TRUSTED_PROXIES is one (core/config.h): the peers whose
// X-Forwarded-For / Forwarded headers name the client (http/server.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace peto {

// True for an IPv4 or IPv6 address ("192.0.2.7", "2001:db8::1"), nothing else.
bool is_ip_address(std::string_view text);

class AddressSet {
 public:
  // Items separated by commas and spaces; "" is the empty set. Status::invalid
  // names the first item that is not an address or an address/prefix.
  static Result<AddressSet> parse(std::string_view text);

  // False for anything that is not an IP address (a host name, "", "unknown").
  bool contains(std::string_view address) const;
  bool empty() const { return networks_.empty(); }

 private:
  struct Network {
    bool v6 = false;
    unsigned char bytes[16] = {};
    unsigned prefix = 0;
  };
  std::vector<Network> networks_;
};

}  // namespace peto
