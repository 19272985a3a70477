// Two-step sign-in: a time-based code (TOTP, RFC 6238: HMAC-SHA-1, 6 digits,
// 30-second steps, one step of drift either way) from an authenticator app,
// ten single-use recovery codes, and browsers the person chose to trust for
// 30 days.
//
//   TwoFactor tf(db, clock, config.secret_key);
//   auto enrolment = tf.begin(user_id, "ana@example.com");  // show enrolment.uri as a QR code
//   auto codes = tf.confirm(user_id, "123456");             // on: the recovery codes, once
//   tf.verify(user_id, code);                               // at sign-in
//
// The shared secret is sealed with SecretBox under PETO_SECRET_KEY, like a
// connection's secrets; recovery codes, trusted browsers and sign-in
// challenges are kept only as SHA-256 digests. A code's time step is written
// when it is used, in the statement that checks it is newer than the last
// one, so a code works once even when two sign-ins race on two nodes.
//
// A sign-in with the second factor on goes in two steps: the password opens
// a challenge (ten minutes, five tries), the code closes it. What changes the
// second factor (turned on or off, reset by an administrator, new recovery
// codes, a recovery code used) is written to account_events in the same
// transaction. API tokens are their own credential and are not affected.
// Thread-safe (state is in the Db).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/secret_box.h"
#include "domain/field_errors.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

inline constexpr std::int64_t kTotpStepSeconds = 30;
inline constexpr int kTotpDigits = 6;
inline constexpr std::size_t kRecoveryCodeCount = 10;
inline constexpr std::int64_t kTrustedBrowserDays = 30;
inline constexpr std::int64_t kChallengeMinutes = 10;
inline constexpr int kChallengeTries = 5;

// RFC 6238's code of `secret` (raw bytes) for time step `step` (Unix
// seconds / 30), `digits` long with leading zeros.
std::string totp_code(std::string_view secret, std::int64_t step, int digits = kTotpDigits);
// RFC 4648 base32 without padding: how authenticator apps take a secret.
std::string base32(std::string_view bytes);

// What an authenticator app needs: the secret as base32 (to type) and the
// otpauth:// address (for the QR code).
struct Enrolment {
  std::string secret;
  std::string uri;
};

struct TwoFactorState {
  bool on = false;
  std::int64_t since = 0;  // ms; 0 while off
  std::size_t recovery_codes_left = 0;
  std::size_t trusted_browsers = 0;
};

class TwoFactor {
 public:
  // `secret_key`: PETO_SECRET_KEY, which seals the shared secrets.
  TwoFactor(store::Db& db, const Clock& clock, std::string_view secret_key);
  static std::vector<store::Migration> migrations();

  bool on(std::int64_t user_id);
  TwoFactorState state(std::int64_t user_id);

  // Starts (or starts again) an enrolment with a new secret; the second
  // factor is not on until confirm(). `account_name` labels it in the app;
  // `issuer` names the service ("peto", or its host). Refused (nullopt) while
  // the second factor is on: it must be turned off first.
  std::optional<Enrolment> begin(std::int64_t user_id, const std::string& account_name,
                                 const std::string& issuer = "peto");
  // The enrolment begun and not yet confirmed, to show its page again.
  std::optional<Enrolment> pending(std::int64_t user_id, const std::string& account_name,
                                   const std::string& issuer = "peto");
  // Turns the second factor on when `code` is the pending secret's, and
  // answers the recovery codes (shown once). FieldErrors: "code" =
  // "error_totp_wrong", or "form" = "error_totp_not_pending".
  std::variant<std::vector<std::string>, FieldErrors> confirm(std::int64_t user_id,
                                                              const std::string& code);
  // Replaces every recovery code with ten new ones; empty while off.
  std::vector<std::string> new_recovery_codes(std::int64_t user_id);

  // A code at sign-in: the app's current code (within one step, never one
  // already used) or an unused recovery code, which is used up.
  enum class Check { wrong, app_code, recovery_code };
  Check verify(std::int64_t user_id, const std::string& code);

  // Turns the second factor off, forgets its secret, codes and trusted
  // browsers. `actor_id` as in AccountEvent: the person ("two_factor_off")
  // or an administrator ("two_factor_reset"). False when it was not on.
  bool turn_off(std::int64_t user_id, std::int64_t actor_id);

  // Trusted browsers: the raw token for a cookie (kTrustedBrowserDays).
  std::string trust_browser(std::int64_t user_id);
  bool trusted(std::int64_t user_id, const std::string& token);
  std::size_t forget_trusted_browsers(std::int64_t user_id);

  // Sign-in challenges: the password was right, the code is to come. The
  // raw token for a cookie.
  std::string open_challenge(std::int64_t user_id);
  // The account of a live challenge; nullopt when unknown, expired or out of
  // tries.
  std::optional<std::int64_t> challenge_user(const std::string& token);
  // Counts one try at a live challenge before its code is checked: its
  // account, and whether it was the last try. nullopt when the challenge is
  // unknown, expired or out of tries (the password must be typed again).
  struct ChallengeTry {
    std::int64_t user_id = 0;
    bool last = false;
  };
  std::optional<ChallengeTry> try_challenge(const std::string& token);
  void close_challenge(const std::string& token);

 private:
  std::optional<std::string> secret_of(std::int64_t user_id, bool confirmed);
  Enrolment enrolment_of(const std::string& secret, const std::string& account_name,
                         const std::string& issuer) const;
  // The step `code` matches within the drift window, if any.
  std::optional<std::int64_t> matching_step(const std::string& secret,
                                            const std::string& code) const;
  std::vector<std::string> replace_codes(store::Conn& conn, std::int64_t user_id);

  store::Db& db_;
  const Clock& clock_;
  SecretBox box_;
};

}  // namespace peto::domain
