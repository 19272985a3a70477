#include "core/token.h"

#include <sodium.h>

#include <stdexcept>
#include <vector>

namespace peto {

std::string random_token(int bytes) {
  static const bool ready = sodium_init() >= 0;
  if (!ready) throw std::runtime_error("libsodium could not start");
  std::vector<unsigned char> raw(static_cast<std::size_t>(bytes));
  randombytes_buf(raw.data(), raw.size());
  std::string hex(raw.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), raw.data(), raw.size());
  hex.pop_back();
  return hex;
}

std::string to_hex(std::string_view bytes) {
  std::string hex(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                 bytes.size());
  hex.pop_back();
  return hex;
}

std::string sha256_hex(std::string_view data) {
  Sha256 sum;
  sum.update(data);
  return sum.hex_digest();
}

Sha256::Sha256() { crypto_hash_sha256_init(&state_); }

void Sha256::update(std::string_view data) {
  crypto_hash_sha256_update(&state_, reinterpret_cast<const unsigned char*>(data.data()),
                            data.size());
}

std::string Sha256::hex_digest() {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&state_, digest);
  return to_hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string base64(std::string_view bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

}  // namespace peto
