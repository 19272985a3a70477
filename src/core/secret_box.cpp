#include "core/secret_box.h"

#include <sodium.h>

#include <stdexcept>
#include <vector>

namespace peto {

namespace {

void ensure_sodium() {
  static const int ready = sodium_init();
  if (ready < 0) throw std::runtime_error("libsodium could not start");
}

constexpr int kVariant = sodium_base64_VARIANT_ORIGINAL;

}  // namespace

SecretBox::SecretBox(std::string_view secret_key) {
  ensure_sodium();
  std::string material = "peto-secrets-v1:";
  material += secret_key;
  crypto_generichash(key_.data(), key_.size(),
                     reinterpret_cast<const unsigned char*>(material.data()), material.size(),
                     nullptr, 0);
}

std::string SecretBox::seal(std::string_view plaintext) const {
  std::vector<unsigned char> out(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES +
                                 plaintext.size());
  randombytes_buf(out.data(), crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy(out.data() + crypto_secretbox_NONCEBYTES,
                        reinterpret_cast<const unsigned char*>(plaintext.data()), plaintext.size(),
                        out.data(), key_.data());
  std::string text(sodium_base64_encoded_len(out.size(), kVariant), '\0');
  sodium_bin2base64(text.data(), text.size(), out.data(), out.size(), kVariant);
  text.resize(text.size() - 1);  // the terminating NUL
  return text;
}

std::optional<std::string> SecretBox::open(std::string_view sealed) const {
  std::vector<unsigned char> raw(sealed.size());
  std::size_t len = 0;
  if (sodium_base642bin(raw.data(), raw.size(), sealed.data(), sealed.size(), nullptr, &len,
                        nullptr, kVariant) != 0 ||
      len < crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES)
    return std::nullopt;
  std::string plain(len - crypto_secretbox_NONCEBYTES - crypto_secretbox_MACBYTES, '\0');
  if (crypto_secretbox_open_easy(reinterpret_cast<unsigned char*>(plain.data()),
                                 raw.data() + crypto_secretbox_NONCEBYTES,
                                 len - crypto_secretbox_NONCEBYTES, raw.data(), key_.data()) != 0)
    return std::nullopt;
  return plain;
}

}  // namespace peto
