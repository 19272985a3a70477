// Random tokens (lease owners, claim tokens, scope ids), digests and base64. libsodium's generator,
// so a token is never guessable and two processes never share one.
#pragma once

#include <string>
#include <string_view>

namespace peto {

// `bytes` random bytes as lower-case hex (2 × bytes characters).
std::string random_token(int bytes = 16);

// SHA-256 of `data` as lower-case hex (64 characters).
std::string sha256_hex(std::string_view data);

// `bytes` in standard base64 with padding (RFC 4648 §4): HTTP Basic
// credentials, MIME encoded words.
std::string base64(std::string_view bytes);

}  // namespace peto
