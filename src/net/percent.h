// Percent-encoding (RFC 3986 §2.1) of everything but the unreserved
// characters A–Z a–z 0–9 - . _ ~ (and '/' when `keep_slash`), with upper-case
// hex digits: a path segment, a query value, an S3 canonical URI. Boost.URL
// does the encoding.
#pragma once

#include <string>
#include <string_view>

namespace peto::net {

std::string percent_encode(std::string_view text, bool keep_slash = false);

}  // namespace peto::net
