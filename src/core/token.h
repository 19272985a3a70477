// Random tokens (lease owners, claim tokens, scope ids), digests and base64. libsodium's generator,
// so a token is never guessable and two processes never share one.
#pragma once

#include <sodium.h>

#include <string>
#include <string_view>

namespace peto {

// `bytes` random bytes as lower-case hex (2 × bytes characters).
std::string random_token(int bytes = 16);

// SHA-256 of `data` as lower-case hex (64 characters).
std::string sha256_hex(std::string_view data);

// SHA-256 of data that arrives in pieces (a file read in blocks, an upload
// or an archive entry as it streams), never held whole:
//   Sha256 sum; while (read) sum.update(block); std::string hex = sum.hex_digest();
class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  // The digest of everything given so far as lower-case hex; call once.
  std::string hex_digest();

 private:
  crypto_hash_sha256_state state_;
};

// `bytes` as lower-case hex (2 × size characters).
std::string to_hex(std::string_view bytes);

// `bytes` in standard base64 with padding (RFC 4648 §4): HTTP Basic
// credentials, MIME encoded words.
std::string base64(std::string_view bytes);

}  // namespace peto
