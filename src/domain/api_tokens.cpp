#include "domain/api_tokens.h"

#include <algorithm>
#include <sstream>

#include "core/token.h"
#include "core/utf8.h"

namespace peto::domain {

namespace {

constexpr std::int64_t kTouchEveryMs = 60 * 1000;
constexpr std::size_t kSecretHexChars = 48;

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::size_t char_count(std::string_view s) { return utf8_length(s); }

ApiToken token_from(const store::Row& r) {
  ApiToken t;
  t.id = r.int_at("id");
  t.user_id = r.int_at("user_id");
  t.name = r.text("name");
  t.scopes = split(r.text("scopes"));
  t.hint = r.text("hint");
  t.created_at = r.int_at("created_at");
  if (!r.is_null("last_used_at")) t.last_used_at = r.int_at("last_used_at");
  return t;
}

constexpr const char* kColumns = "id, user_id, name, scopes, hint, created_at, last_used_at";

}  // namespace

const std::vector<std::string>& scope_areas() {
  static const std::vector<std::string> areas = {
      "companies", "contacts", "listings", "applications", "reminders", "interviews",
      "offers",    "notes",    "tags",     "captures",     "profile",   "connections",
      "notices",   "career",   "cvs",      "letters"};
  return areas;
}

std::vector<std::string> all_scopes() {
  std::vector<std::string> out = {"read", "write"};
  for (const auto& area : scope_areas()) {
    out.push_back(area + ":read");
    out.push_back(area + ":write");
  }
  return out;
}

bool valid_scope(std::string_view scope) {
  auto all = all_scopes();
  return std::find(all.begin(), all.end(), scope) != all.end();
}

bool scope_allows(const std::vector<std::string>& scopes, std::string_view area, bool write) {
  std::string a(area);
  for (const auto& s : scopes) {
    if (s == "write" || s == a + ":write") return true;
    if (!write && (s == "read" || s == a + ":read")) return true;
  }
  return false;
}

std::string needed_scope(std::string_view area, bool write) {
  return std::string(area) + (write ? ":write" : ":read");
}

bool ApiTokens::claim_idempotency_key(store::Conn& tx, std::int64_t owner, const std::string& key,
                                      const std::string& request_hash, Millis now) {
  return tx.query(
               "INSERT INTO api_idempotency (owner_id, key, request_hash, status, response,"
               " created_at) VALUES (?, ?, ?, 0, '', ?) ON CONFLICT (owner_id, key) DO UPDATE SET"
               " request_hash = excluded.request_hash, status = 0, response = '',"
               " created_at = excluded.created_at WHERE api_idempotency.created_at < ?",
               {owner, key, request_hash, now, now - kIdempotencyHours * 3600 * 1000})
             .affected == 1;
}

std::optional<ApiTokens::KeptAnswer> ApiTokens::idempotency_answer(store::Conn& tx,
                                                                   std::int64_t owner,
                                                                   const std::string& key) {
  auto rows = tx.query(
      "SELECT request_hash, status, response FROM api_idempotency WHERE owner_id = ? AND key = ?",
      {owner, key});
  if (rows.empty()) return std::nullopt;
  return KeptAnswer{rows[0].text("request_hash"), static_cast<int>(rows[0].int_at("status")),
                    rows[0].text("response")};
}

void ApiTokens::keep_idempotency_answer(store::Conn& tx, std::int64_t owner, const std::string& key,
                                        int status, const std::string& response) {
  tx.query("UPDATE api_idempotency SET status = ?, response = ? WHERE owner_id = ? AND key = ?",
           {status, response, owner, key});
}

std::int64_t ApiTokens::purge_idempotency(store::Db& db, Millis before) {
  return db.query("DELETE FROM api_idempotency WHERE created_at < ?", {before}).affected;
}

std::vector<store::Migration> ApiTokens::migrations() {
  auto tables = [](const std::string& id_column) {
    return "CREATE TABLE api_tokens (" + id_column +
           ", user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           // token_hash is the SHA-256 (hex) of the secret; the secret is never stored.
           " name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, hint TEXT NOT NULL,"
           " scopes TEXT NOT NULL, created_at BIGINT NOT NULL, last_used_at BIGINT,"
           " revoked_at BIGINT);"
           "CREATE INDEX api_tokens_user ON api_tokens (user_id);"
           // The first answer to a POST with an Idempotency-Key, per account.
           // status 0 while the request that claimed the key is still running.
           "CREATE TABLE api_idempotency (owner_id BIGINT NOT NULL REFERENCES users (id)"
           " ON DELETE CASCADE, key TEXT NOT NULL, request_hash TEXT NOT NULL,"
           " status INTEGER NOT NULL, response TEXT NOT NULL, created_at BIGINT NOT NULL,"
           " PRIMARY KEY (owner_id, key));"
           "CREATE INDEX api_idempotency_created_at ON api_idempotency (created_at);";
  };
  return {{7, "api tokens", tables("id INTEGER PRIMARY KEY"),
           tables("id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

std::variant<NewToken, FieldErrors> ApiTokens::create(std::int64_t user_id, const std::string& name,
                                                      const std::vector<std::string>& scopes) {
  FieldErrors errors;
  std::string trimmed = name;
  trimmed.erase(0, trimmed.find_first_not_of(" \t\r\n"));
  trimmed.erase(trimmed.find_last_not_of(" \t\r\n") + 1);
  // A name is one line: line breaks and tabs become spaces, as in a record's text field.
  std::replace_if(
      trimmed.begin(), trimmed.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; },
      ' ');
  if (trimmed.empty())
    errors.add("name", "error_required");
  else if (char_count(trimmed) > 100)
    errors.add("name", "error_too_long");
  std::vector<std::string> kept;
  for (const auto& s : scopes) {
    if (!valid_scope(s)) {
      errors.add("scopes", "error_scope_unknown");
    } else if (std::find(kept.begin(), kept.end(), s) == kept.end()) {
      kept.push_back(s);
    }
  }
  if (kept.empty()) errors.add("scopes", "error_scope_required");
  if (!errors.empty()) return errors;

  return db_.write([&](store::Conn& conn) -> std::variant<NewToken, FieldErrors> {
    auto live = conn.query(
        "SELECT COUNT(*) AS live FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL",
        {user_id});
    if (live[0].int_at("live") >= static_cast<std::int64_t>(kMaxTokensPerAccount)) {
      FieldErrors full;
      full.add("form", "error_too_many_tokens");
      return full;
    }
    NewToken made;
    made.secret = "peto_" + random_token(kSecretHexChars / 2);
    std::string hint = made.secret.substr(0, 9) + "…";
    auto rows =
        conn.query(std::string("INSERT INTO api_tokens (user_id, name, token_hash, hint,"
                               " scopes, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ") +
                       kColumns,
                   {user_id, trimmed, token_hash(made.secret), hint, join(kept), clock_.now_ms()});
    made.token = token_from(rows[0]);
    return made;
  });
}

std::vector<ApiToken> ApiTokens::list(std::int64_t user_id) {
  std::vector<ApiToken> out;
  for (const auto& row : db_.query(std::string("SELECT ") + kColumns +
                                       " FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL"
                                       " ORDER BY id DESC",
                                   {user_id}))
    out.push_back(token_from(row));
  return out;
}

bool ApiTokens::revoke(std::int64_t user_id, std::int64_t id) {
  return db_.query(
                "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ?"
                " AND revoked_at IS NULL",
                {clock_.now_ms(), id, user_id})
             .affected == 1;
}

std::int64_t ApiTokens::revoke_all(std::int64_t user_id) {
  return db_
      .query("UPDATE api_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
             {clock_.now_ms(), user_id})
      .affected;
}

std::optional<Bearer> ApiTokens::authenticate(const std::string& secret) {
  if (secret.size() != 5 + kSecretHexChars || !secret.starts_with("peto_")) return std::nullopt;
  auto rows = db_.query(std::string("SELECT ") + kColumns +
                            " FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL",
                        {token_hash(secret)});
  if (rows.empty()) return std::nullopt;
  Bearer bearer{token_from(rows[0]), {}};
  auto account = Accounts(db_, clock_).find(bearer.token.user_id);
  if (!account || !account->active) return std::nullopt;
  bearer.account = *account;
  std::int64_t now = clock_.now_ms();
  if (!bearer.token.last_used_at || *bearer.token.last_used_at < now - kTouchEveryMs)
    db_.query("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", {now, bearer.token.id});
  return bearer;
}

}  // namespace peto::domain
