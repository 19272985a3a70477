// Accounts: people, their profile settings, sign-in sessions and invites.
//
// Passwords are stored as libsodium argon2id strings (crypto_pwhash_str), at
// the INTERACTIVE cost. Test binaries make hashing cheap with
// set_password_cost(PasswordCost::test) or the environment variable
// PETO_PASSWORD_COST=test (read once, at the first hash); never set it in
// production. Session and invite tokens are random (core/token.h) and only
// their SHA-256 (hex) is stored, so a database copy cannot sign anybody in.
//
// E-mail addresses are kept case-folded (ASCII) and are unique. The first
// account ever created becomes the administrator. A session lasts 14 days from
// sign-in; an invite 14 days from its creation, once. An inactive account
// cannot sign in and its sessions are gone.
//
// Validation answers FieldErrors whose messages are catalogue keys
// (locales/en/accounts.json). Database failures throw store::Error, as
// everywhere. Times come from the Clock. Thread-safe (state is in the Db).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/auto_reminders.h"
#include "domain/field_errors.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

struct Account {
  std::int64_t id = 0;
  std::string email;
  bool is_admin = false;
  bool active = true;
  std::string language;  // "" = from the browser's Accept-Language
  std::string time_zone = "UTC";
  int quiet_after_days = 21;    // 1–365
  int closing_notice_days = 3;  // 1–90
  ReminderSwitches reminders;   // which reminders peto makes itself
};

enum class PasswordCost { interactive, test };
// Process-wide; see the header comment.
void set_password_cost(PasswordCost cost);

inline constexpr std::int64_t kSessionDays = 14;
inline constexpr std::int64_t kInviteDays = 14;
inline constexpr std::size_t kMinPasswordLength = 12;  // characters (UTF-8 code points)

// Case-folded and trimmed address when it looks like x@y.z; nullopt otherwise.
std::optional<std::string> normalise_email(const std::string& email);

class Accounts {
 public:
  Accounts(store::Db& db, const Clock& clock);
  static std::vector<store::Migration> migrations();

  // password: at least 12 characters; email: plausible (x@y.z), unique in any
  // case. The first account ever created is admin whatever `admin` says.
  std::variant<Account, FieldErrors> create(const std::string& email, const std::string& password,
                                            bool admin);
  std::optional<Account> find(std::int64_t id);
  std::optional<Account> find_by_email(const std::string& email);
  // nullopt for a wrong password, an unknown or an inactive account; an
  // unknown address still costs one hash, so timing does not tell them apart.
  std::optional<Account> check_password(const std::string& email, const std::string& password);
  bool any();  // true once an account exists

  // On success every other session of the account ends (a stolen session
  // does not outlive a password change); `keep_session` (the raw cookie
  // token of the session making the change) stays signed in.
  FieldErrors change_password(std::int64_t id, const std::string& current, const std::string& next,
                              const std::string& keep_session = "");
  // Sets the profile's settings (language, time_zone, the days, reminders)
  // to `wanted`'s; its id, e-mail and roles are not read. Saves nothing
  // unless every value is valid. `language` is "" or a code such as "fr" or
  // "pt-BR" (the web layer also checks it has a catalogue).
  FieldErrors update_profile(std::int64_t id, const Account& wanted);
  // Sets the account's time zone to `zone` (a valid one) if it is still the
  // default, UTC, which nobody chose; true when it changed.
  bool adopt_time_zone(std::int64_t id, const std::string& zone);
  // Deactivating also closes every session of the account.
  void set_active(std::int64_t id, bool active);

  // Sessions. open_session returns the raw token for the cookie.
  struct NewSession {
    std::string token;
    std::string csrf_token;
  };
  NewSession open_session(std::int64_t user_id);
  struct SessionInfo {
    Account account;
    std::string csrf_token;
  };
  // nullopt when unknown, expired or the account is inactive. Records
  // last_seen_at at most once a minute.
  std::optional<SessionInfo> session(const std::string& token);
  void close_session(const std::string& token);

  // Invites. Returns the raw token (shown once); `bound_email` may be "".
  std::string create_invite(std::int64_t admin_id, const std::string& bound_email);
  // True when `token` names an invite that can still be accepted.
  bool invite_open(const std::string& token);
  // Creates the account and uses up the invite in one transaction. An
  // unusable invite answers FieldErrors with "form" = "error_invite_invalid".
  std::variant<Account, FieldErrors> accept_invite(const std::string& token,
                                                   const std::string& email,
                                                   const std::string& password);

 private:
  std::variant<Account, FieldErrors> insert_account(store::Conn& conn, const std::string& email,
                                                    const std::string& password_hash, bool admin);
  store::Db& db_;
  const Clock& clock_;
};

// SHA-256 of `token`, lower-case hex: what is stored for sessions and invites.
std::string token_hash(const std::string& token);

}  // namespace peto::domain
