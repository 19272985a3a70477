#include "domain/two_factor.h"

#include <openssl/evp.h>
#include <sodium.h>

#include <array>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <cctype>
#include <stdexcept>

#include "core/token.h"
#include "domain/accounts.h"

namespace peto::domain {

namespace {

constexpr std::size_t kSecretBytes = 20;  // 160 bits, as RFC 4226 recommends
constexpr std::int64_t kDriftSteps = 1;
// Crockford's base32 alphabet: no i, l, o or u to misread.
constexpr std::string_view kCodeAlphabet = "0123456789abcdefghjkmnpqrstvwxyz";
constexpr int kCodeGroups = 3;
constexpr int kCodeGroupLength = 4;

// A recovery code as typed, in the one spelling that is hashed: lower case,
// without spaces or dashes, with Crockford's look-alikes (i, l → 1; o → 0).
std::string normalised_code(const std::string& typed) {
  std::string out;
  for (char ch : typed) {
    auto c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (c == ' ' || c == '-') continue;
    if (c == 'i' || c == 'l') c = '1';
    if (c == 'o') c = '0';
    out += c;
  }
  return out;
}

std::string new_recovery_code() {
  std::string code;
  for (int g = 0; g < kCodeGroups; ++g) {
    if (g > 0) code += '-';
    for (int i = 0; i < kCodeGroupLength; ++i) {
      code += kCodeAlphabet[randombytes_uniform(static_cast<std::uint32_t>(kCodeAlphabet.size()))];
    }
  }
  return code;
}

// Six digits, as an app shows them, after dropping the spaces some apps put
// in the middle ("123 456").
std::optional<std::string> app_code(const std::string& typed) {
  std::string digits;
  for (char c : typed) {
    if (c == ' ') continue;
    if (c < '0' || c > '9') return std::nullopt;
    digits += c;
  }
  if (digits.size() != static_cast<std::size_t>(kTotpDigits)) return std::nullopt;
  return digits;
}

}  // namespace

std::string totp_code(std::string_view secret, std::int64_t step, int digits) {
  std::array<unsigned char, 8> counter{};
  for (int i = 7; i >= 0; --i) {
    counter[static_cast<std::size_t>(i)] = static_cast<unsigned char>(step & 0xff);
    step >>= 8;
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  std::size_t mac_size = 0;
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA1", nullptr, secret.data(), secret.size(),
                counter.data(), counter.size(), mac.data(), mac.size(), &mac_size) == nullptr ||
      mac_size < 20) {
    throw std::runtime_error("HMAC-SHA-1 is not available");
  }
  // RFC 4226 §5.3: dynamic truncation.
  const std::size_t offset = mac[mac_size - 1] & 0x0f;
  const std::uint32_t binary = (static_cast<std::uint32_t>(mac[offset] & 0x7f) << 24) |
                               (static_cast<std::uint32_t>(mac[offset + 1]) << 16) |
                               (static_cast<std::uint32_t>(mac[offset + 2]) << 8) |
                               static_cast<std::uint32_t>(mac[offset + 3]);
  std::uint32_t modulus = 1;
  for (int i = 0; i < digits; ++i) modulus *= 10;
  std::string code = std::to_string(binary % modulus);
  return std::string(static_cast<std::size_t>(digits) - code.size(), '0') + code;
}

std::string base32(std::string_view bytes) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char b : bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 0x1f];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 0x1f];
  return out;
}

TwoFactor::TwoFactor(store::Db& db, const Clock& clock, std::string_view secret_key)
    : db_(db), clock_(clock), box_(secret_key) {}

std::vector<store::Migration> TwoFactor::migrations() {
  auto tables = [](const std::string& id_column) {
    // secret_sealed: SecretBox over the raw secret. enabled_at is NULL while
    // the enrolment waits for its first code. last_step: the newest time step
    // used, so no code works twice.
    return "CREATE TABLE two_factor (user_id BIGINT PRIMARY KEY"
           " REFERENCES users (id) ON DELETE CASCADE,"
           " secret_sealed TEXT NOT NULL, enabled_at BIGINT,"
           " last_step BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL);"
           // code_hash: SHA-256 (hex) of the normalised code.
           "CREATE TABLE recovery_codes (id " +
           id_column +
           ", user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " code_hash TEXT NOT NULL, used_at BIGINT);"
           "CREATE INDEX recovery_codes_user ON recovery_codes (user_id, code_hash);"
           // token_hash: SHA-256 (hex) of the cookie's token, here and below.
           "CREATE TABLE trusted_browsers (token_hash TEXT PRIMARY KEY,"
           " user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL);"
           "CREATE INDEX trusted_browsers_user ON trusted_browsers (user_id);"
           "CREATE TABLE signin_challenges (token_hash TEXT PRIMARY KEY,"
           " user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " tries INTEGER NOT NULL DEFAULT 0, expires_at BIGINT NOT NULL);"
           "CREATE INDEX signin_challenges_user ON signin_challenges (user_id);";
  };
  return {{21, "two-step sign-in", tables("INTEGER PRIMARY KEY AUTOINCREMENT"),
           tables("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

bool TwoFactor::on(std::int64_t user_id) {
  return !db_.query("SELECT 1 FROM two_factor WHERE user_id = ? AND enabled_at IS NOT NULL",
                    {user_id})
              .empty();
}

TwoFactorState TwoFactor::state(std::int64_t user_id) {
  const std::int64_t now = clock_.now_ms();
  auto rows = db_.query(
      "SELECT t.enabled_at,"
      " (SELECT COUNT(*) FROM recovery_codes c WHERE c.user_id = t.user_id AND c.used_at IS NULL),"
      " (SELECT COUNT(*) FROM trusted_browsers b WHERE b.user_id = t.user_id"
      "   AND b.expires_at > ?)"
      " FROM two_factor t WHERE t.user_id = ? AND t.enabled_at IS NOT NULL",
      {now, user_id});
  if (rows.empty()) return {};
  return {true, rows[0].int_at(0), static_cast<std::size_t>(rows[0].int_at(1)),
          static_cast<std::size_t>(rows[0].int_at(2))};
}

Enrolment TwoFactor::enrolment_of(const std::string& secret, const std::string& account_name,
                                  const std::string& issuer) const {
  namespace urls = boost::urls;
  const std::string encoded_secret = base32(secret);
  // Key URI format (Google Authenticator's, which every app reads): the
  // label is "issuer:account", and the issuer is repeated as a parameter.
  std::string uri = "otpauth://totp/" + urls::encode(issuer, urls::unreserved_chars) + ":" +
                    urls::encode(account_name, urls::unreserved_chars) +
                    "?secret=" + encoded_secret +
                    "&issuer=" + urls::encode(issuer, urls::unreserved_chars) +
                    "&algorithm=SHA1&digits=" + std::to_string(kTotpDigits) +
                    "&period=" + std::to_string(kTotpStepSeconds);
  return {encoded_secret, uri};
}

std::optional<std::string> TwoFactor::secret_of(std::int64_t user_id, bool confirmed) {
  auto rows = db_.query(std::string("SELECT secret_sealed FROM two_factor WHERE user_id = ? AND ") +
                            (confirmed ? "enabled_at IS NOT NULL" : "enabled_at IS NULL"),
                        {user_id});
  if (rows.empty()) return std::nullopt;
  // A secret sealed under another PETO_SECRET_KEY cannot be read: no code
  // can match it, and an administrator's reset is the way back.
  return box_.open(rows[0].text(0));
}

std::optional<Enrolment> TwoFactor::begin(std::int64_t user_id, const std::string& account_name,
                                          const std::string& issuer) {
  std::string secret(kSecretBytes, '\0');
  randombytes_buf(secret.data(), secret.size());
  const std::string sealed = box_.seal(secret);
  const bool started = db_.write([&](store::Conn& c) {
    return c.query(
                "INSERT INTO two_factor (user_id, secret_sealed, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET secret_sealed = excluded.secret_sealed,"
                " created_at = excluded.created_at, last_step = 0"
                " WHERE two_factor.enabled_at IS NULL",
                {user_id, sealed, clock_.now_ms()})
               .affected == 1;
  });
  if (!started) return std::nullopt;
  return enrolment_of(secret, account_name, issuer);
}

std::optional<Enrolment> TwoFactor::pending(std::int64_t user_id, const std::string& account_name,
                                            const std::string& issuer) {
  auto secret = secret_of(user_id, false);
  if (!secret) return std::nullopt;
  return enrolment_of(*secret, account_name, issuer);
}

std::optional<std::int64_t> TwoFactor::matching_step(const std::string& secret,
                                                     const std::string& code) const {
  auto digits = app_code(code);
  if (!digits) return std::nullopt;
  const std::int64_t now_step = clock_.now_ms() / 1000 / kTotpStepSeconds;
  std::optional<std::int64_t> found;
  // Every step of the window is computed, so the time taken does not tell
  // which matched.
  for (std::int64_t step = now_step - kDriftSteps; step <= now_step + kDriftSteps; ++step) {
    const std::string expected = totp_code(secret, step);
    if (sodium_memcmp(expected.data(), digits->data(), expected.size()) == 0) found = step;
  }
  return found;
}

std::vector<std::string> TwoFactor::replace_codes(store::Conn& conn, std::int64_t user_id) {
  conn.query("DELETE FROM recovery_codes WHERE user_id = ?", {user_id});
  std::vector<std::string> codes;
  for (std::size_t i = 0; i < kRecoveryCodeCount; ++i) {
    codes.push_back(new_recovery_code());
    conn.query("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)",
               {user_id, sha256_hex(normalised_code(codes.back()))});
  }
  return codes;
}

std::variant<std::vector<std::string>, FieldErrors> TwoFactor::confirm(std::int64_t user_id,
                                                                       const std::string& code) {
  FieldErrors errors;
  auto secret = secret_of(user_id, false);
  if (!secret) {
    errors.add("form", "error_totp_not_pending");
    return errors;
  }
  auto step = matching_step(*secret, code);
  if (!step) {
    errors.add("code", "error_totp_wrong");
    return errors;
  }
  const std::int64_t now = clock_.now_ms();
  auto codes = db_.write([&](store::Conn& c) -> std::optional<std::vector<std::string>> {
    if (c.query("UPDATE two_factor SET enabled_at = ?, last_step = ?"
                " WHERE user_id = ? AND enabled_at IS NULL",
                {now, *step, user_id})
            .affected != 1) {
      return std::nullopt;
    }
    record_account_event(c, now, user_id, user_id, "two_factor_on");
    return replace_codes(c, user_id);
  });
  if (!codes) {
    errors.add("form", "error_totp_not_pending");
    return errors;
  }
  return *codes;
}

std::vector<std::string> TwoFactor::new_recovery_codes(std::int64_t user_id) {
  return db_.write([&](store::Conn& c) -> std::vector<std::string> {
    if (c.query("SELECT 1 FROM two_factor WHERE user_id = ? AND enabled_at IS NOT NULL", {user_id})
            .empty()) {
      return {};
    }
    record_account_event(c, clock_.now_ms(), user_id, user_id, "recovery_codes_made");
    return replace_codes(c, user_id);
  });
}

TwoFactor::Check TwoFactor::verify(std::int64_t user_id, const std::string& code) {
  if (app_code(code)) {
    auto secret = secret_of(user_id, true);
    if (!secret) return Check::wrong;
    auto step = matching_step(*secret, code);
    if (!step) return Check::wrong;
    // Only a step newer than the last one used: a code seen over a
    // shoulder, or sent twice, does not sign in again.
    const bool fresh = db_.write([&](store::Conn& c) {
      return c
          .query(
              "UPDATE two_factor SET last_step = ?"
              " WHERE user_id = ? AND enabled_at IS NOT NULL AND last_step < ?",
              {*step, user_id, *step})
          .affected;
    }) == 1;
    return fresh ? Check::app_code : Check::wrong;
  }
  const std::string hash = sha256_hex(normalised_code(code));
  const std::int64_t now = clock_.now_ms();
  const bool used = db_.write([&](store::Conn& c) {
    if (c.query("UPDATE recovery_codes SET used_at = ?"
                " WHERE user_id = ? AND code_hash = ? AND used_at IS NULL"
                " AND EXISTS (SELECT 1 FROM two_factor t WHERE t.user_id = recovery_codes.user_id"
                "   AND t.enabled_at IS NOT NULL)",
                {now, user_id, hash})
            .affected != 1) {
      return false;
    }
    auto left = c.query("SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL",
                        {user_id});
    record_account_event(c, now, user_id, user_id, "recovery_code_used",
                         std::to_string(left[0].int_at(0)));
    return true;
  });
  return used ? Check::recovery_code : Check::wrong;
}

bool TwoFactor::turn_off(std::int64_t user_id, std::int64_t actor_id) {
  return db_.write([&](store::Conn& c) {
    const bool was_on = c.query(
                             "DELETE FROM two_factor WHERE user_id = ? AND enabled_at IS NOT NULL"
                             " RETURNING user_id",
                             {user_id})
                            .size() == 1;
    c.query("DELETE FROM two_factor WHERE user_id = ?", {user_id});
    c.query("DELETE FROM recovery_codes WHERE user_id = ?", {user_id});
    c.query("DELETE FROM trusted_browsers WHERE user_id = ?", {user_id});
    if (was_on) {
      record_account_event(c, clock_.now_ms(), user_id, actor_id,
                           actor_id == user_id ? "two_factor_off" : "two_factor_reset");
    }
    return was_on;
  });
}

std::string TwoFactor::trust_browser(std::int64_t user_id) {
  std::string token = random_token(32);
  const std::int64_t now = clock_.now_ms();
  db_.write([&](store::Conn& c) {
    c.query("DELETE FROM trusted_browsers WHERE user_id = ? AND expires_at <= ?", {user_id, now});
    c.query(
        "INSERT INTO trusted_browsers (token_hash, user_id, created_at, expires_at)"
        " VALUES (?, ?, ?, ?)",
        {token_hash(token), user_id, now, now + kTrustedBrowserDays * 24 * 3600 * 1000});
  });
  return token;
}

bool TwoFactor::trusted(std::int64_t user_id, const std::string& token) {
  if (token.empty()) return false;
  return !db_.query(
                 "SELECT 1 FROM trusted_browsers WHERE token_hash = ? AND user_id = ?"
                 " AND expires_at > ?",
                 {token_hash(token), user_id, clock_.now_ms()})
              .empty();
}

std::size_t TwoFactor::forget_trusted_browsers(std::int64_t user_id) {
  return static_cast<std::size_t>(db_.write([&](store::Conn& c) {
    return c
        .query("DELETE FROM trusted_browsers WHERE user_id = ? AND expires_at > ?",
               {user_id, clock_.now_ms()})
        .affected;
  }));
}

std::string TwoFactor::open_challenge(std::int64_t user_id) {
  std::string token = random_token(32);
  const std::int64_t now = clock_.now_ms();
  db_.write([&](store::Conn& c) {
    c.query("DELETE FROM signin_challenges WHERE user_id = ? AND expires_at <= ?", {user_id, now});
    c.query("INSERT INTO signin_challenges (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
            {token_hash(token), user_id, now + kChallengeMinutes * 60 * 1000});
  });
  return token;
}

std::optional<std::int64_t> TwoFactor::challenge_user(const std::string& token) {
  if (token.empty()) return std::nullopt;
  auto rows = db_.query(
      "SELECT user_id FROM signin_challenges WHERE token_hash = ? AND expires_at > ?"
      " AND tries < ?",
      {token_hash(token), clock_.now_ms(), kChallengeTries});
  if (rows.empty()) return std::nullopt;
  return rows[0].int_at(0);
}

std::optional<TwoFactor::ChallengeTry> TwoFactor::try_challenge(const std::string& token) {
  if (token.empty()) return std::nullopt;
  auto rows = db_.write([&](store::Conn& c) {
    return c.query(
        "UPDATE signin_challenges SET tries = tries + 1"
        " WHERE token_hash = ? AND expires_at > ? AND tries < ? RETURNING user_id, tries",
        {token_hash(token), clock_.now_ms(), kChallengeTries});
  });
  if (rows.empty()) return std::nullopt;
  return ChallengeTry{rows[0].int_at(0), rows[0].int_at(1) >= kChallengeTries};
}

void TwoFactor::close_challenge(const std::string& token) {
  db_.write([&](store::Conn& c) {
    c.query("DELETE FROM signin_challenges WHERE token_hash = ?", {token_hash(token)});
  });
}

}  // namespace peto::domain
