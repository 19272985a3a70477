#include "core/address_set.h"

#include <boost/asio/ip/address.hpp>
#include <charconv>
#include <cstring>
#include <optional>

namespace peto {

namespace {

namespace ip = boost::asio::ip;

// `text` as an address, an IPv4-mapped IPv6 one read as IPv4; nullopt when it
// is not one (Boost.Asio parses).
std::optional<ip::address> address_of(std::string_view text) {
  boost::system::error_code ec;
  ip::address a = ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, a.to_v6());
  return a;
}

// The address's 4 or 16 bytes, in network order, into `out`.
void copy_bytes(const ip::address& a, unsigned char* out) {
  if (a.is_v6()) {
    auto b = a.to_v6().to_bytes();
    std::memcpy(out, b.data(), b.size());
  } else {
    auto b = a.to_v4().to_bytes();
    std::memcpy(out, b.data(), b.size());
  }
}

// Whether the first `prefix` bits of `a` and `b` agree.
bool same_prefix(const unsigned char* a, const unsigned char* b, unsigned prefix) {
  unsigned whole = prefix / 8;
  if (std::memcmp(a, b, whole) != 0) return false;
  unsigned rest = prefix % 8;
  if (rest == 0) return true;
  auto mask = static_cast<unsigned char>(0xFF << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

bool is_ip_address(std::string_view text) { return address_of(text).has_value(); }

Result<AddressSet> AddressSet::parse(std::string_view text) {
  AddressSet set;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t start = text.find_first_not_of(", \t", from);
    if (start == std::string_view::npos) break;
    std::size_t end = text.find_first_of(", \t", start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    from = end;

    auto bad = [&] {
      return Status::invalid("'" + std::string(item) +
                             "' is not an IP address or a network such as 10.0.0.0/8");
    };
    std::string_view host = item.substr(0, item.find('/'));
    auto address = address_of(host);
    if (!address) return bad();
    Network n;
    n.v6 = address->is_v6();
    const unsigned bits = n.v6 ? 128 : 32;
    n.prefix = bits;
    if (host.size() < item.size()) {
      std::string_view digits = item.substr(host.size() + 1);
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n.prefix);
      if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() ||
          n.prefix > bits)
        return bad();
    }
    copy_bytes(*address, n.bytes);
    set.networks_.push_back(n);
  }
  return set;
}

bool AddressSet::contains(std::string_view address) const {
  auto parsed = address_of(address);
  if (!parsed) return false;
  unsigned char bytes[16] = {};
  copy_bytes(*parsed, bytes);
  for (const Network& n : networks_)
    if (n.v6 == parsed->is_v6() && same_prefix(n.bytes, bytes, n.prefix)) return true;
  return false;
}

}  // namespace peto
