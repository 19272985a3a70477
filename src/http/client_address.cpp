#include "http/client_address.h"

#include <algorithm>
#include <vector>

#include "core/text.h"

namespace peto::web {

namespace {

// A Forwarded value trimmed and without the quotes around it.
std::string_view unquoted(std::string_view value) {
  value = text::trim(value);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  return value;
}

// One hop as an address: quotes, "[…]" around IPv6 and a ":port" after IPv4
// dropped. Whatever is not an address ("unknown", "_hidden") stays as it is
// and is refused by the caller.
std::string_view bare(std::string_view hop) {
  hop = unquoted(hop);
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

// The parameter `key` ("for=", "proto=") of each Forwarded element ("" when
// an element has none).
std::vector<std::string_view> forwarded(const Headers& headers, std::string_view key) {
  std::vector<std::string_view> out;
  for (std::string_view element : items(headers, "Forwarded")) {
    std::string_view found;
    for (std::string_view pair : text::split(element, ';')) {
      pair = text::trim(pair);
      if (pair.size() > key.size() && text::iequals(pair.substr(0, key.size()), key))
        found = pair.substr(key.size());
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
  std::vector<std::string_view> hops = forwarded(headers, "for=");
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

std::string client_scheme(std::string_view peer, const Headers& headers,
                          const AddressSet& trusted_proxies) {
  if (!trusted_proxies.contains(peer)) return "http";
  std::vector<std::string_view> said = forwarded(headers, "proto=");
  if (said.empty()) said = items(headers, "X-Forwarded-Proto");
  if (said.empty()) return "http";
  return text::iequals(unquoted(said.back()), "https") ? "https" : "http";
}

}  // namespace peto::web
