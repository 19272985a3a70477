// API tokens: what lets another tool (a script, a browser extension, a phone
// shortcut) act for a person through /api/v1, and no further than its scopes.
//
//   ApiTokens tokens(db, clock);
//   auto made = tokens.create(user_id, "Phone shortcut", {"listings:write"});
//   std::cout << std::get<NewToken>(made).secret;   // shown once, never again
//   auto bearer = tokens.authenticate(secret);      // on each request
//
// A secret is "peto_" followed by 48 random hex characters; only its SHA-256
// (hex) is stored, with a short hint ("peto_3f2a…") so a person can tell their
// tokens apart. A revoked token, or the token of an inactive account, no
// longer authenticates.
//
// Scopes: "read" and "write" cover every area; "<area>:read" and
// "<area>:write" cover one (areas: scope_areas()). Writing includes reading
// the same area: a client that changes a record can read it back.
//
// The same migration makes api_idempotency, where the API keeps the first
// answer to a POST sent with an Idempotency-Key (api/api.h uses it; the hourly
// purge drops rows older than 24 h). Thread-safe (state is in the Db).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/accounts.h"
#include "domain/field_errors.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

struct ApiToken {
  std::int64_t id = 0;
  std::int64_t user_id = 0;
  std::string name;
  std::vector<std::string> scopes;
  std::string hint;  // "peto_3f2a…": the start of the secret
  std::int64_t created_at = 0;
  std::optional<std::int64_t> last_used_at;
};

struct NewToken {
  std::string secret;  // the only time it exists in clear
  ApiToken token;
};

struct Bearer {
  ApiToken token;
  Account account;
};

inline constexpr std::size_t kMaxTokensPerAccount = 50;
inline constexpr std::int64_t kIdempotencyHours = 24;

// The areas a per-area scope can name, in the order the token form shows them.
const std::vector<std::string>& scope_areas();
// "read", "write", then "<area>:read" and "<area>:write" for every area.
std::vector<std::string> all_scopes();
bool valid_scope(std::string_view scope);
// True when `scopes` lets its holder read (write = false) or write `area`.
bool scope_allows(const std::vector<std::string>& scopes, std::string_view area, bool write);
// The per-area scope a refusal names ("listings:write"); the broad "write"
// (or "read") would do as well.
std::string needed_scope(std::string_view area, bool write);

class ApiTokens {
 public:
  ApiTokens(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}
  static std::vector<store::Migration> migrations();
  // Idempotency keys (docs/SPEC.md §5.1), each claimed, answered and read
  // inside the request's own transaction `tx`.
  //
  // Claims `key` of `owner` for a request whose hash is `request_hash`: true
  // when this request owns the key now (it was unused, or its use is older
  // than kIdempotencyHours). A live row blocks the claim; on PostgreSQL a
  // concurrent claim of the same key waits until the first transaction ends.
  static bool claim_idempotency_key(store::Conn& tx, std::int64_t owner, const std::string& key,
                                    const std::string& request_hash, Millis now);
  struct KeptAnswer {
    std::string request_hash;
    int status = 0;
    std::string response;  // what keep_idempotency_answer stored
  };
  static std::optional<KeptAnswer> idempotency_answer(store::Conn& tx, std::int64_t owner,
                                                      const std::string& key);
  static void keep_idempotency_answer(store::Conn& tx, std::int64_t owner, const std::string& key,
                                      int status, const std::string& response);
  // Forgets the idempotency keys made before `before`; returns how many.
  static std::int64_t purge_idempotency(store::Db& db, Millis before);

  // name: 1–100 characters; scopes: at least one, each valid (duplicates are
  // dropped). FieldErrors ("name", "scopes", "form" for too many tokens),
  // with catalogue keys as messages.
  std::variant<NewToken, FieldErrors> create(std::int64_t user_id, const std::string& name,
                                             const std::vector<std::string>& scopes);
  // The account's live tokens, newest first.
  std::vector<ApiToken> list(std::int64_t user_id);
  // False when the token is not the account's or already revoked.
  bool revoke(std::int64_t user_id, std::int64_t id);
  // Revokes every live token of the account (a changed password); how many.
  std::int64_t revoke_all(std::int64_t user_id);
  // The live token and its active account; nullopt otherwise. Records
  // last_used_at at most once a minute.
  std::optional<Bearer> authenticate(const std::string& secret);

 private:
  store::Db& db_;
  const Clock& clock_;
};

}  // namespace peto::domain
