#include "domain/accounts.h"

#include <sodium.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "core/log.h"
#include "core/timezone.h"
#include "core/token.h"
#include "domain/records.h"

namespace peto::domain {

namespace {

constexpr std::int64_t kDayMs = 24 * 60 * 60 * 1000;
constexpr std::int64_t kTouchEveryMs = 60 * 1000;
constexpr std::size_t kMaxUserAgentBytes = 300;
constexpr std::size_t kMaxPasswordBytes = 1024;  // argon2 takes any length; a form should not
// The password hash of an account without a password: no argon2id string,
// so crypto_pwhash_str_verify refuses every password.
constexpr const char* kNoPassword = "!";

constexpr const char* kAccountColumns =
    "id, email, is_admin, active, language, time_zone, quiet_after_days, closing_notice_days,"
    " follow_up_days, remind_interviews, remind_answer_by, remind_closing";

// Thrown inside accept_invite's transaction when another acceptance won.
struct InviteTaken {};

// -1 = not decided yet (read PETO_PASSWORD_COST at the first hash).
std::atomic<int> g_cost{-1};

PasswordCost password_cost() {
  int c = g_cost.load();
  if (c < 0) {
    const char* env = std::getenv("PETO_PASSWORD_COST");
    c = (env != nullptr && std::string(env) == "test") ? 1 : 0;
    if (c == 1 && g_cost.exchange(c) < 0)
      log::warn("accounts",
                "PETO_PASSWORD_COST=test: passwords are hashed at the lowest cost; for tests only");
    g_cost.store(c);
  }
  return c == 1 ? PasswordCost::test : PasswordCost::interactive;
}

void ensure_sodium() {
  static const bool ready = sodium_init() >= 0;
  if (!ready) throw std::runtime_error("libsodium could not start");
}

std::string hash_password(const std::string& password) {
  ensure_sodium();
  bool test = password_cost() == PasswordCost::test;
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(out, password.data(), password.size(),
                        test ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE,
                        test ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE) !=
      0) {
    throw std::runtime_error("out of memory hashing a password");
  }
  return out;
}

bool verify_password(const std::string& hash, const std::string& password) {
  ensure_sodium();
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

// A hash of nothing anybody knows, to verify against for unknown addresses.
const std::string& dummy_hash() {
  static const std::string h = hash_password(random_token(16));
  return h;
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

void check_new_password(const std::string& password, const std::string& field,
                        FieldErrors& errors) {
  if (code_points(password) < kMinPasswordLength) errors.add(field, "error_password_short");
  if (password.size() > kMaxPasswordBytes) errors.add(field, "error_password_long");
}

bool valid_language(const std::string& lang) {
  if (lang.empty()) return true;
  if (lang.size() > 12) return false;
  std::size_t i = 0;
  while (i < lang.size() && lang[i] >= 'a' && lang[i] <= 'z') ++i;
  if (i < 2 || i > 3) return false;
  if (i == lang.size()) return true;
  if (lang[i] != '-' || i + 1 == lang.size()) return false;
  for (++i; i < lang.size(); ++i) {
    if (!std::isalnum(static_cast<unsigned char>(lang[i]))) return false;
  }
  return true;
}

// What a form names a session by: not its cookie, nor the hash stored as its id.
std::string session_handle(const std::string& session_id) {
  return token_hash("session:" + session_id).substr(0, 24);
}

// Cut to at most `n` bytes without splitting a UTF-8 sequence.
std::string cut_utf8(std::string s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  return s;
}

Account account_from(const store::Row& r) {
  Account a;
  a.id = r.int_at("id");
  a.email = r.text("email");
  a.is_admin = r.int_at("is_admin") != 0;
  a.active = r.int_at("active") != 0;
  a.language = r.text("language");
  a.time_zone = r.text("time_zone");
  a.quiet_after_days = static_cast<int>(r.int_at("quiet_after_days"));
  a.closing_notice_days = static_cast<int>(r.int_at("closing_notice_days"));
  a.reminders.follow_up_days = static_cast<int>(r.int_at("follow_up_days"));
  a.reminders.interviews = r.int_at("remind_interviews") != 0;
  a.reminders.answer_by = r.int_at("remind_answer_by") != 0;
  a.reminders.closing = r.int_at("remind_closing") != 0;
  return a;
}

}  // namespace

void set_password_cost(PasswordCost cost) { g_cost.store(cost == PasswordCost::test ? 1 : 0); }

std::string token_hash(const std::string& token) {
  ensure_sodium();
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  char hex[crypto_hash_sha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return hex;
}

std::optional<std::string> normalise_email(const std::string& email) {
  std::size_t b = email.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::nullopt;
  std::size_t e = email.find_last_not_of(" \t\r\n");
  std::string s = email.substr(b, e - b + 1);
  if (s.size() > 254) return std::nullopt;
  std::size_t at = s.find('@');
  if (at == 0 || at == std::string::npos || s.find('@', at + 1) != std::string::npos) {
    return std::nullopt;
  }
  for (char& c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7F || c == '<' || c == '>' || c == '"' || c == ',') return std::nullopt;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::string domain = s.substr(at + 1);
  std::size_t dot = domain.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == domain.size() || domain.front() == '.' ||
      domain.find("..") != std::string::npos) {
    return std::nullopt;
  }
  return s;
}

Accounts::Accounts(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}

std::vector<store::Migration> Accounts::migrations() {
  auto tables = [](const std::string& id_column) {
    return "CREATE TABLE users (" + id_column +
           ", email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,"
           " is_admin INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,"
           " language TEXT NOT NULL DEFAULT '', time_zone TEXT NOT NULL DEFAULT 'UTC',"
           " quiet_after_days INTEGER NOT NULL DEFAULT 21,"
           " closing_notice_days INTEGER NOT NULL DEFAULT 3,"
           " created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);"
           // id is the SHA-256 (hex) of the cookie's token; the token is never stored.
           "CREATE TABLE sessions (id TEXT PRIMARY KEY,"
           " user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " csrf_token TEXT NOT NULL, created_at BIGINT NOT NULL,"
           " last_seen_at BIGINT NOT NULL, expires_at BIGINT NOT NULL);"
           "CREATE INDEX sessions_user ON sessions (user_id);"
           "CREATE INDEX sessions_expires_at ON sessions (expires_at);"
           "CREATE TABLE invites (" +
           id_column +
           ", token_hash TEXT NOT NULL UNIQUE, email TEXT NOT NULL DEFAULT '',"
           " created_by BIGINT REFERENCES users (id) ON DELETE SET NULL,"
           " created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,"
           " accepted_by BIGINT REFERENCES users (id) ON DELETE SET NULL, accepted_at BIGINT);";
  };
  return {{5, "accounts", tables("id INTEGER PRIMARY KEY"),
           tables("id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

std::vector<store::Migration> Accounts::security_migrations() {
  auto tables = [](const std::string& id_column) {
    return "ALTER TABLE users ADD COLUMN last_signin_at BIGINT;"
           "ALTER TABLE sessions ADD COLUMN address TEXT NOT NULL DEFAULT '';"
           "ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';"
           // token_hash: SHA-256 (hex) of the link's token; the token is never stored.
           "CREATE TABLE recovery_links (id " +
           id_column +
           ", token_hash TEXT NOT NULL UNIQUE,"
           " user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT);"
           "CREATE INDEX recovery_links_user ON recovery_links (user_id);"
           "CREATE TABLE account_events (id " +
           id_column +
           ", user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " actor_id BIGINT REFERENCES users (id) ON DELETE SET NULL,"
           " kind TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '', at BIGINT NOT NULL);"
           "CREATE INDEX account_events_user ON account_events (user_id, at);";
  };
  return {{20, "account security", tables("INTEGER PRIMARY KEY AUTOINCREMENT"),
           tables("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

void record_account_event(store::Conn& conn, std::int64_t at_ms, std::int64_t user_id,
                          std::int64_t actor_id, const std::string& kind,
                          const std::string& detail) {
  conn.query(
      "INSERT INTO account_events (user_id, actor_id, kind, detail, at) VALUES (?, ?, ?, ?, ?)",
      {user_id, actor_id > 0 ? store::Value(actor_id) : store::Value(), kind, detail, at_ms});
}

std::variant<Account, FieldErrors> Accounts::insert_account(store::Conn& conn,
                                                            const std::string& email,
                                                            const std::string& password_hash,
                                                            bool admin) {
  FieldErrors errors;
  if (!conn.query("SELECT 1 FROM users WHERE email = ?", {email}).empty()) {
    errors.add("email", "error_email_taken");
    return errors;
  }
  bool first = conn.query("SELECT 1 FROM users LIMIT 1").empty();
  std::int64_t now = clock_.now_ms();
  auto rows = conn.query(
      std::string("INSERT INTO users (email, password_hash, is_admin, active, created_at,"
                  " updated_at) VALUES (?, ?, ?, 1, ?, ?) RETURNING ") +
          kAccountColumns,
      {email, password_hash, (admin || first) ? 1 : 0, now, now});
  return account_from(rows[0]);
}

std::variant<Account, FieldErrors> Accounts::create(const std::string& email,
                                                    const std::string& password, bool admin) {
  FieldErrors errors;
  auto folded = normalise_email(email);
  if (!folded) errors.add("email", "error_email_invalid");
  check_new_password(password, "password", errors);
  if (!errors.empty()) return errors;
  std::string hash = hash_password(password);
  try {
    return db_.write([&](store::Conn& c) { return insert_account(c, *folded, hash, admin); });
  } catch (const store::Error& e) {
    // Two creates of one address at once: the UNIQUE index decides.
    if (e.kind() != store::Error::Kind::constraint) throw;
    errors.add("email", "error_email_taken");
    return errors;
  }
}

std::variant<Account, FieldErrors> Accounts::create_without_password_in(store::Conn& conn,
                                                                        const std::string& email) {
  auto folded = normalise_email(email);
  if (!folded) {
    FieldErrors errors;
    errors.add("email", "error_email_invalid");
    return errors;
  }
  return insert_account(conn, *folded, kNoPassword, false);
}

bool Accounts::has_password(std::int64_t id) {
  auto rows = db_.query("SELECT password_hash FROM users WHERE id = ?", {id});
  return !rows.empty() && rows[0].text(0) != kNoPassword;
}

std::optional<Account> Accounts::find(std::int64_t id) {
  auto rows =
      db_.query(std::string("SELECT ") + kAccountColumns + " FROM users WHERE id = ?", {id});
  if (rows.empty()) return std::nullopt;
  return account_from(rows[0]);
}

std::optional<Account> Accounts::find_by_email(const std::string& email) {
  auto folded = normalise_email(email);
  if (!folded) return std::nullopt;
  auto rows = db_.query(std::string("SELECT ") + kAccountColumns + " FROM users WHERE email = ?",
                        {*folded});
  if (rows.empty()) return std::nullopt;
  return account_from(rows[0]);
}

std::optional<Account> Accounts::check_password(const std::string& email,
                                                const std::string& password) {
  auto folded = normalise_email(email);
  std::optional<store::Row> row;
  if (folded) {
    auto rows = db_.query(
        std::string("SELECT ") + kAccountColumns + ", password_hash FROM users WHERE email = ?",
        {*folded});
    if (!rows.empty()) row = rows[0];
  }
  if (!row || password.size() > kMaxPasswordBytes) {
    verify_password(dummy_hash(), password.substr(0, kMaxPasswordBytes));
    return std::nullopt;
  }
  if (!verify_password(row->text("password_hash"), password)) return std::nullopt;
  Account a = account_from(*row);
  if (!a.active) return std::nullopt;
  return a;
}

bool Accounts::any() { return !db_.query("SELECT 1 FROM users LIMIT 1").empty(); }

std::vector<AccountSummary> Accounts::list() {
  std::vector<AccountSummary> out;
  for (const auto& r : db_.query(std::string("SELECT ") + kAccountColumns +
                                 ", created_at, COALESCE(last_signin_at, 0) AS last_signin,"
                                 " EXISTS (SELECT 1 FROM two_factor t WHERE t.user_id = users.id"
                                 "   AND t.enabled_at IS NOT NULL) AS two_factor"
                                 " FROM users ORDER BY email")) {
    out.push_back({account_from(r), r.int_at("created_at"), r.int_at("last_signin"),
                   r.int_at("two_factor") != 0});
  }
  return out;
}

FieldErrors Accounts::change_password(std::int64_t id, const std::string& current,
                                      const std::string& next, const std::string& keep_session) {
  FieldErrors errors;
  auto rows = db_.query("SELECT password_hash FROM users WHERE id = ?", {id});
  if (rows.empty() || current.size() > kMaxPasswordBytes ||
      !verify_password(rows[0].text("password_hash"), current)) {
    errors.add("current", "error_password_wrong");
  }
  check_new_password(next, "new", errors);
  if (!errors.empty()) return errors;
  std::string hash = hash_password(next);
  db_.write([&](store::Conn& conn) {
    conn.query("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?",
               {hash, clock_.now_ms(), id});
    conn.query("DELETE FROM sessions WHERE user_id = ? AND id <> ?",
               {id, keep_session.empty() ? std::string() : token_hash(keep_session)});
    record_account_event(conn, clock_.now_ms(), id, id, "password_changed");
  });
  return errors;
}

FieldErrors Accounts::update_profile(std::int64_t id, const Account& wanted) {
  FieldErrors errors;
  if (!valid_language(wanted.language)) errors.add("language", "error_language_invalid");
  if (!is_valid_time_zone(wanted.time_zone)) errors.add("time_zone", "error_time_zone_invalid");
  if (wanted.quiet_after_days < 1 || wanted.quiet_after_days > 365) {
    errors.add("quiet_after_days", "error_quiet_after_days_range");
  }
  if (wanted.closing_notice_days < 1 || wanted.closing_notice_days > 90) {
    errors.add("closing_notice_days", "error_closing_notice_days_range");
  }
  const ReminderSwitches& on = wanted.reminders;
  if (on.follow_up_days < 0 || on.follow_up_days > kMaxFollowUpDays) {
    errors.add("follow_up_days", "error_follow_up_days_range");
  }
  if (!errors.empty()) return errors;
  db_.write([&](store::Conn& c) {
    c.query(
        "UPDATE users SET language = ?, time_zone = ?, quiet_after_days = ?,"
        " closing_notice_days = ?, follow_up_days = ?, remind_interviews = ?,"
        " remind_answer_by = ?, remind_closing = ?, updated_at = ? WHERE id = ?",
        {wanted.language, wanted.time_zone, wanted.quiet_after_days, wanted.closing_notice_days,
         on.follow_up_days, on.interviews ? 1 : 0, on.answer_by ? 1 : 0, on.closing ? 1 : 0,
         clock_.now_ms(), id});
    follow_time_zone(c, id);
    return true;
  });
  return errors;
}

bool Accounts::adopt_time_zone(std::int64_t id, const std::string& zone) {
  if (zone == "UTC" || !is_valid_time_zone(zone)) return false;
  return db_.write([&](store::Conn& c) {
    bool adopted =
        c.query("UPDATE users SET time_zone = ?, updated_at = ? WHERE id = ? AND time_zone = 'UTC'",
                {zone, clock_.now_ms(), id})
            .affected == 1;
    if (adopted) follow_time_zone(c, id);
    return adopted;
  });
}

FieldErrors Accounts::set_password(std::int64_t id, const std::string& next,
                                   std::int64_t actor_id) {
  FieldErrors errors;
  check_new_password(next, "password", errors);
  if (!errors.empty()) return errors;
  std::string hash = hash_password(next);
  db_.write([&](store::Conn& c) {
    if (c.query("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?",
                {hash, clock_.now_ms(), id})
            .affected != 1) {
      errors.add("form", "error_account_unknown");
      return;
    }
    c.query("DELETE FROM sessions WHERE user_id = ?", {id});
    record_account_event(c, clock_.now_ms(), id, actor_id, "password_set");
  });
  return errors;
}

bool Accounts::set_active(std::int64_t id, bool active, std::int64_t actor_id) {
  return db_.write([&](store::Conn& c) {
    if (c.query("UPDATE users SET active = ?, updated_at = ? WHERE id = ?",
                {active ? 1 : 0, clock_.now_ms(), id})
            .affected != 1) {
      return false;
    }
    if (!active) c.query("DELETE FROM sessions WHERE user_id = ?", {id});
    record_account_event(c, clock_.now_ms(), id, actor_id, active ? "activated" : "deactivated");
    return true;
  });
}

Accounts::NewSession Accounts::open_session(std::int64_t user_id, const SessionOrigin& from) {
  NewSession s{random_token(32), random_token(32)};
  std::int64_t now = clock_.now_ms();
  db_.write([&](store::Conn& c) {
    // The person's own expired sessions go as a new one comes.
    c.query("DELETE FROM sessions WHERE user_id = ? AND expires_at <= ?", {user_id, now});
    c.query(
        "INSERT INTO sessions (id, user_id, csrf_token, created_at, last_seen_at, expires_at,"
        " address, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        {token_hash(s.token), user_id, s.csrf_token, now, now, now + kSessionDays * kDayMs,
         from.address, cut_utf8(from.user_agent, kMaxUserAgentBytes)});
    c.query("UPDATE users SET last_signin_at = ? WHERE id = ?", {now, user_id});
  });
  return s;
}

std::optional<Accounts::SessionInfo> Accounts::session(const std::string& token) {
  if (token.empty() || token.size() > 128) return std::nullopt;
  std::string id = token_hash(token);
  std::int64_t now = clock_.now_ms();
  auto rows = db_.query(
      "SELECT u.id, u.email, u.is_admin, u.active, u.language, u.time_zone,"
      " u.quiet_after_days, u.closing_notice_days, u.follow_up_days, u.remind_interviews,"
      " u.remind_answer_by, u.remind_closing, s.csrf_token, s.last_seen_at"
      " FROM sessions s JOIN users u ON u.id = s.user_id"
      " WHERE s.id = ? AND s.expires_at > ? AND u.active = 1",
      {id, now});
  if (rows.empty()) return std::nullopt;
  if (rows[0].int_at("last_seen_at") < now - kTouchEveryMs) {
    db_.query("UPDATE sessions SET last_seen_at = ? WHERE id = ?", {now, id});
  }
  return SessionInfo{account_from(rows[0]), rows[0].text("csrf_token")};
}

void Accounts::close_session(const std::string& token) {
  if (token.empty()) return;
  db_.query("DELETE FROM sessions WHERE id = ?", {token_hash(token)});
}

std::vector<BrowserSession> Accounts::sessions_of(std::int64_t user_id,
                                                  const std::string& current_token) {
  const std::string current = current_token.empty() ? std::string() : token_hash(current_token);
  std::vector<BrowserSession> out;
  for (const auto& r : db_.query(
           "SELECT id, created_at, last_seen_at, address, user_agent FROM sessions"
           " WHERE user_id = ? AND expires_at > ? ORDER BY last_seen_at DESC, created_at DESC",
           {user_id, clock_.now_ms()})) {
    out.push_back({session_handle(r.text("id")), r.int_at("created_at"), r.int_at("last_seen_at"),
                   r.text("address"), r.text("user_agent"), r.text("id") == current});
  }
  return out;
}

bool Accounts::close_session_by_handle(std::int64_t user_id, const std::string& handle) {
  if (handle.empty()) return false;
  for (const auto& r : db_.query("SELECT id FROM sessions WHERE user_id = ?", {user_id})) {
    if (session_handle(r.text("id")) != handle) continue;
    db_.query("DELETE FROM sessions WHERE id = ? AND user_id = ?", {r.text("id"), user_id});
    return true;
  }
  return false;
}

std::int64_t Accounts::close_other_sessions(std::int64_t user_id, const std::string& keep_token) {
  return db_
      .query("DELETE FROM sessions WHERE user_id = ? AND id <> ?",
             {user_id, keep_token.empty() ? std::string() : token_hash(keep_token)})
      .affected;
}

std::string Accounts::create_recovery(std::int64_t user_id, std::int64_t actor_id) {
  std::string token = random_token(32);
  std::int64_t now = clock_.now_ms();
  db_.write([&](store::Conn& c) {
    // Only the newest link works: one sent by mistake is replaced, not added to.
    c.query("DELETE FROM recovery_links WHERE user_id = ? AND used_at IS NULL", {user_id});
    c.query(
        "INSERT INTO recovery_links (token_hash, user_id, created_at, expires_at)"
        " VALUES (?, ?, ?, ?)",
        {token_hash(token), user_id, now, now + kRecoveryMinutes * 60 * 1000});
    record_account_event(c, clock_.now_ms(), user_id, actor_id, "recovery_link_created");
  });
  return token;
}

std::optional<Account> Accounts::recovery_account(const std::string& token) {
  if (token.empty() || token.size() > 128) return std::nullopt;
  auto rows = db_.query(std::string("SELECT u.") + kAccountColumns +
                            " FROM recovery_links l JOIN users u ON u.id = l.user_id"
                            " WHERE l.token_hash = ? AND l.used_at IS NULL AND l.expires_at > ?"
                            " AND u.active = 1",
                        {token_hash(token), clock_.now_ms()});
  if (rows.empty()) return std::nullopt;
  return account_from(rows[0]);
}

std::variant<Account, FieldErrors> Accounts::use_recovery(const std::string& token,
                                                          const std::string& next) {
  FieldErrors errors;
  if (!recovery_account(token)) {
    errors.add("form", "error_recovery_invalid");
    return errors;
  }
  check_new_password(next, "password", errors);
  if (!errors.empty()) return errors;
  std::string hash = hash_password(next);
  return db_.write([&](store::Conn& c) -> std::variant<Account, FieldErrors> {
    std::int64_t now = clock_.now_ms();
    // The link is used up by this statement or by nobody: two uses at once
    // cannot both pass.
    auto used = c.query(
        "UPDATE recovery_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL"
        " AND expires_at > ? RETURNING user_id",
        {now, token_hash(token), now});
    FieldErrors e;
    if (used.empty()) {
      e.add("form", "error_recovery_invalid");
      return e;
    }
    std::int64_t id = used[0].int_at("user_id");
    auto rows = c.query(std::string("UPDATE users SET password_hash = ?, updated_at = ?"
                                    " WHERE id = ? AND active = 1 RETURNING ") +
                            kAccountColumns,
                        {hash, now, id});
    if (rows.empty()) {
      e.add("form", "error_recovery_invalid");
      return e;
    }
    c.query("DELETE FROM sessions WHERE user_id = ?", {id});
    record_account_event(c, clock_.now_ms(), id, id, "recovery_link_used");
    return account_from(rows[0]);
  });
}

bool Accounts::erase_in(store::Conn& conn, std::int64_t id) {
  return conn.query("DELETE FROM users WHERE id = ?", {id}).affected == 1;
}

std::vector<AccountEvent> Accounts::events(std::int64_t user_id, std::size_t limit) {
  std::vector<AccountEvent> out;
  for (const auto& r :
       db_.query("SELECT COALESCE(actor_id, 0) AS actor, kind, detail, at FROM account_events"
                 " WHERE user_id = ? ORDER BY at DESC, id DESC LIMIT ?",
                 {user_id, static_cast<std::int64_t>(limit)})) {
    out.push_back({r.int_at("actor"), r.text("kind"), r.text("detail"), r.int_at("at")});
  }
  return out;
}

std::string Accounts::create_invite(std::int64_t admin_id, const std::string& bound_email) {
  std::string token = random_token(32);
  std::string email = normalise_email(bound_email).value_or("");
  std::int64_t now = clock_.now_ms();
  db_.query(
      "INSERT INTO invites (token_hash, email, created_by, created_at, expires_at)"
      " VALUES (?, ?, ?, ?, ?)",
      {token_hash(token), email, admin_id, now, now + kInviteDays * kDayMs});
  return token;
}

bool Accounts::invite_open(const std::string& token) {
  if (token.empty() || token.size() > 128) return false;
  return !db_.query(
                 "SELECT 1 FROM invites WHERE token_hash = ? AND accepted_at IS NULL"
                 " AND expires_at > ?",
                 {token_hash(token), clock_.now_ms()})
              .empty();
}

std::variant<Account, FieldErrors> Accounts::accept_invite(const std::string& token,
                                                           const std::string& email,
                                                           const std::string& password) {
  FieldErrors errors;
  if (!invite_open(token)) {
    errors.add("form", "error_invite_invalid");
    return errors;
  }
  auto folded = normalise_email(email);
  if (!folded) errors.add("email", "error_email_invalid");
  check_new_password(password, "password", errors);
  if (!errors.empty()) return errors;
  std::string hash = hash_password(password);
  std::string th = token_hash(token);
  try {
    return db_.write([&](store::Conn& c) -> std::variant<Account, FieldErrors> {
      std::int64_t now = clock_.now_ms();
      auto inv = c.query(
          "SELECT id, email FROM invites WHERE token_hash = ? AND accepted_at IS NULL"
          " AND expires_at > ?",
          {th, now});
      FieldErrors e;
      if (inv.empty()) {
        e.add("form", "error_invite_invalid");
        return e;
      }
      if (!inv[0].text("email").empty() && inv[0].text("email") != *folded) {
        e.add("email", "error_invite_email");
        return e;
      }
      auto made = insert_account(c, *folded, hash, false);
      if (auto* a = std::get_if<Account>(&made)) {
        auto used = c.query(
            "UPDATE invites SET accepted_by = ?, accepted_at = ? WHERE id = ?"
            " AND accepted_at IS NULL",
            {a->id, now, inv[0].int_at("id")});
        // Lost a race with another acceptance: undo this account too.
        if (used.affected != 1) throw InviteTaken{};
      }
      return made;
    });
  } catch (const InviteTaken&) {
    errors.add("form", "error_invite_invalid");
    return errors;
  } catch (const store::Error& e) {
    if (e.kind() != store::Error::Kind::constraint) throw;
    errors.add("email", "error_email_taken");
    return errors;
  }
}

}  // namespace peto::domain
