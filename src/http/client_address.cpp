#include "http/client_address.h"

#include <algorithm>
#include <vector>

#include "core/text.h"

namespace peto::web {

namespace {

// One hop as an address: quotes, "[…]" around IPv6 and a ":port" after IPv4
// dropped. Whatever is not an address ("unknown", "_hidden") stays as it is
// and is refused by the caller.
std::string_view bare(std::string_view hop) {
  hop = text::trim(hop);
  if (hop.size() >= 2 && hop.front() == '"' && hop.back() == '"')
    hop = hop.substr(1, hop.size() - 2);
  if (hop.starts_with('[')) {
    std::size_t close = hop.find(']');
    return close == std::string_view::npos ? std::string_view() : hop.substr(1, close - 1);
  }
  if (std::size_t colon = hop.find(':');
      colon != std::string_view::npos && hop.find(':', colon + 1) == std::string_view::npos)
    return hop.substr(0, colon);  // IPv4:port
  return hop;
}

// Splits every value of header `name` on commas, in order.
std::vector<std::string_view> items(const Headers& headers, std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto& [key, value] : headers) {
    if (!text::iequals(key, name)) continue;
    for (std::string_view item : text::split(value, ',')) out.push_back(item);
  }
  return out;
}

// The `for=` of each Forwarded element ("" when an element has none).
std::vector<std::string_view> forwarded_for(const Headers& headers) {
  std::vector<std::string_view> out;
  for (std::string_view element : items(headers, "Forwarded")) {
    std::string_view found;
    for (std::string_view pair : text::split(element, ';')) {
      pair = text::trim(pair);
      if (pair.size() > 4 && text::iequals(pair.substr(0, 4), "for=")) found = pair.substr(4);
    }
    out.push_back(found);
  }
  return out;
}

}  // namespace

std::string client_address(std::string_view peer, const Headers& headers,
                           const AddressSet& trusted_proxies) {
  std::string client(peer);
  if (!trusted_proxies.contains(peer)) return client;
  std::vector<std::string_view> hops = forwarded_for(headers);
  if (hops.empty()) hops = items(headers, "X-Forwarded-For");
  for (auto hop = hops.rbegin(); hop != hops.rend(); ++hop) {
    std::string_view address = bare(*hop);
    // Not an address: the nearest hop that was one stands for the client.
    if (!is_ip_address(address)) return client;
    client = std::string(address);
    if (!trusted_proxies.contains(address)) return client;
  }
  return client;
}

}  // namespace peto::web
