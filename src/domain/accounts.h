// Accounts: people, their profile settings, sign-in sessions, invites and
// recovery links, and the account's security events.
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
// sign-in; an invite 14 days from its creation, once; a recovery link one
// hour, once, and only the newest of a person's links works. An inactive
// account cannot sign in and its sessions are gone.
//
// What changes how a person signs in (a recovery link made or used, a
// password set by an administrator, deactivation) is written to
// account_events in the same transaction: who did it, to whom, and when.
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
inline constexpr std::int64_t kRecoveryMinutes = 60;
inline constexpr std::size_t kMinPasswordLength = 12;  // characters (UTF-8 code points)

// Case-folded and trimmed address when it looks like x@y.z; nullopt otherwise.
std::optional<std::string> normalise_email(const std::string& email);

// One row of `peto user list` and the administrator's people page.
struct AccountSummary {
  Account account;
  std::int64_t created_at = 0;      // ms
  std::int64_t last_signin_at = 0;  // ms; 0 = never
  bool two_factor = false;          // two-step sign-in on (domain/two_factor.h)
};

// A signed-in browser, as its owner sees it on the sessions page. `handle`
// names it in a form without being its cookie or its stored hash.
struct BrowserSession {
  std::string handle;
  std::int64_t created_at = 0;    // ms
  std::int64_t last_seen_at = 0;  // ms
  std::string address;
  std::string user_agent;
  bool current = false;
};

// Where a sign-in came from, kept with its session.
struct SessionOrigin {
  std::string address;
  std::string user_agent;  // cut to 300 bytes
};

// An entry of account_events. `actor_id` 0 = the command line or peto
// itself; otherwise the account that acted (the person, or an admin).
struct AccountEvent {
  std::int64_t actor_id = 0;
  std::string kind;  // e.g. "recovery_link_created"
  std::string detail;
  std::int64_t at = 0;  // ms
};

class Accounts {
 public:
  Accounts(store::Db& db, const Clock& clock);
  static std::vector<store::Migration> migrations();
  // Sessions' origin, last sign-in, recovery links and account_events.
  static std::vector<store::Migration> security_migrations();

  // password: at least 12 characters; email: plausible (x@y.z), unique in any
  // case. The first account ever created is admin whatever `admin` says.
  std::variant<Account, FieldErrors> create(const std::string& email, const std::string& password,
                                            bool admin);
  // An account that signs in through an identity provider only
  // (sso/oidc.h): its password hash is no hash, so no password matches it
  // until one is set (a recovery link). Inside the caller's transaction.
  std::variant<Account, FieldErrors> create_without_password_in(store::Conn& conn,
                                                                const std::string& email);
  // False for an account made by create_without_password_in that has not
  // set one since (and for no account).
  bool has_password(std::int64_t id);
  std::optional<Account> find(std::int64_t id);
  std::optional<Account> find_by_email(const std::string& email);
  // nullopt for a wrong password, an unknown or an inactive account; an
  // unknown address still costs one hash, so timing does not tell them apart.
  std::optional<Account> check_password(const std::string& email, const std::string& password);
  bool any();  // true once an account exists
  // Every account, by e-mail address.
  std::vector<AccountSummary> list();

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
  // Sets a new password without the current one (an administrator, or
  // `peto user set-password`); every session of the account ends. `actor_id`
  // as in AccountEvent.
  FieldErrors set_password(std::int64_t id, const std::string& next, std::int64_t actor_id);
  // Deactivating also closes every session of the account. `actor_id` as in
  // AccountEvent. False when there is no such account.
  bool set_active(std::int64_t id, bool active, std::int64_t actor_id = 0);

  // Sessions. open_session returns the raw token for the cookie.
  struct NewSession {
    std::string token;
    std::string csrf_token;
  };
  // Also notes the account's last sign-in.
  NewSession open_session(std::int64_t user_id, const SessionOrigin& from = {});
  struct SessionInfo {
    Account account;
    std::string csrf_token;
  };
  // nullopt when unknown, expired or the account is inactive. Records
  // last_seen_at at most once a minute.
  std::optional<SessionInfo> session(const std::string& token);
  void close_session(const std::string& token);
  // The account's live sessions, the newest first; `current_token` (the
  // cookie of the browser asking) is marked current.
  std::vector<BrowserSession> sessions_of(std::int64_t user_id, const std::string& current_token);
  // Ends one of the account's sessions by its handle; false when none has it.
  bool close_session_by_handle(std::int64_t user_id, const std::string& handle);
  // Ends every session of the account but `keep_token`'s; how many ended.
  std::int64_t close_other_sessions(std::int64_t user_id, const std::string& keep_token);

  // Recovery links. Returns the raw token (shown once); earlier unused links
  // of the account stop working. `actor_id` as in AccountEvent.
  std::string create_recovery(std::int64_t user_id, std::int64_t actor_id);
  // The account an open recovery link is for; nullopt when the link is
  // unknown, used, replaced, expired or its account inactive.
  std::optional<Account> recovery_account(const std::string& token);
  // Sets the new password, uses up the link and ends every session of the
  // account, in one transaction. An unusable link answers FieldErrors with
  // "form" = "error_recovery_invalid".
  std::variant<Account, FieldErrors> use_recovery(const std::string& token,
                                                  const std::string& next);

  // Deletes the account's row on `conn`, inside the caller's transaction:
  // every table that names it cascades (see purge/accounts.h for the
  // account's files and the rows of tables that do not). False when there is
  // no such account.
  static bool erase_in(store::Conn& conn, std::int64_t id);

  // The account's security events, the newest first.
  std::vector<AccountEvent> events(std::int64_t user_id, std::size_t limit = 50);

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

// Writes one account_events row on `conn`, inside the caller's transaction,
// so the event and the change it tells of are kept or lost together.
// `actor_id` as in AccountEvent.
void record_account_event(store::Conn& conn, std::int64_t at_ms, std::int64_t user_id,
                          std::int64_t actor_id, const std::string& kind,
                          const std::string& detail = "");

// SHA-256 of `token`, lower-case hex: what is stored for sessions and invites.
std::string token_hash(const std::string& token);

}  // namespace peto::domain
