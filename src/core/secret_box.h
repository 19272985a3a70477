// SecretBox: secrets at rest (a connection's password, token or webhook
// secret), sealed with libsodium's secretbox (XSalsa20-Poly1305).
//
//   SecretBox box(config.secret_key);
//   std::string sealed = box.seal(R"({"secret":"…"})");   // base64, for a TEXT column
//   std::optional<std::string> plain = box.open(sealed);  // nullopt: wrong key or damaged
//
// The key is derived, not stored: BLAKE2b over "peto-secrets-v1:" and
// PETO_SECRET_KEY, so changing PETO_SECRET_KEY makes every sealed value
// unreadable (open() says so with nullopt; nothing is guessed). Each seal
// uses a fresh random nonce, stored in front of the ciphertext. Thread-safe.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace peto {

class SecretBox {
 public:
  explicit SecretBox(std::string_view secret_key);
  std::string seal(std::string_view plaintext) const;
  std::optional<std::string> open(std::string_view sealed) const;

 private:
  std::array<unsigned char, 32> key_{};
};

}  // namespace peto
