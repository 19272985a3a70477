// The client's address and scheme behind reverse proxies.
//
// A request's peer is the client unless it is one of PETO_TRUSTED_PROXIES;
// then the proxies' own header names it: Forwarded (RFC 7239) when there is
// one, else X-Forwarded-For. The list is read from the right, the hop the
// nearest proxy added, and the first address that is not a trusted proxy is
// the client: what a client writes at the left cannot pick its own address.
// Anyone else's Forwarded or X-Forwarded-For header is ignored.
#pragma once

#include <string>
#include <string_view>

#include "core/address_set.h"
#include "http/http.h"

namespace peto::web {

std::string client_address(std::string_view peer, const Headers& headers,
                           const AddressSet& trusted_proxies);

// The scheme the client used, "https" or "http". peto itself speaks plain
// HTTP, so it is "https" only when a trusted proxy says so: the proto= of the
// nearest Forwarded element, else the last X-Forwarded-Proto value.
std::string client_scheme(std::string_view peer, const Headers& headers,
                          const AddressSet& trusted_proxies);

}  // namespace peto::web
