// `peto token create|list|revoke`: API tokens from a shell on the server, for
// scripts set up by the person who runs peto. The web page /profile/tokens
// does the same for everybody else.
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "app/app.h"
#include "core/clock.h"
#include "domain/accounts.h"
#include "domain/api_tokens.h"

namespace peto::app {

namespace {

// "read write companies:read …", for messages that list what is accepted.
std::string scope_list() {
  std::string out;
  for (const auto& s : domain::all_scopes()) out += (out.empty() ? "" : " ") + s;
  return out;
}

// The English text of the error keys ApiTokens::create can return, with the
// flag each belongs to.
std::string describe(const domain::FieldErrors& errors) {
  static const std::map<std::string, std::string> texts = {
      {"error_required", "--name: give the token a name"},
      {"error_too_long", "--name: a name is at most 100 characters"},
      {"error_scope_unknown", "--scope: unknown scope; accepted: " + scope_list()},
      {"error_scope_required", "--scope: give at least one scope; accepted: " + scope_list()},
      {"error_too_many_tokens",
       "the account has " + std::to_string(domain::kMaxTokensPerAccount) +
           " tokens already; revoke one first (peto token list, peto token revoke)"},
  };
  const auto& [field, key] = *errors.by_field.begin();
  auto it = texts.find(key);
  return it == texts.end() ? field + ": " + key : it->second;
}

// The active account behind --user, or nullopt after printing why not.
std::optional<domain::Account> account_of(App& app, const std::string& email) {
  auto account = domain::Accounts(*app.db, *app.clock).find_by_email(email);
  if (!account || !account->active) {
    std::cerr << "peto: --user: " << email << " is not an active account\n";
    return std::nullopt;
  }
  return account;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

int cmd_token_create(App& app, const std::string& user_email, const std::string& name,
                     const std::vector<std::string>& scopes) {
  // Scopes are checked before the database is opened, so the message can name
  // the one that is wrong.
  if (scopes.empty()) {
    std::cerr << "peto: --scope: give at least one scope; accepted: " << scope_list() << "\n";
    return 2;
  }
  for (const auto& s : scopes) {
    if (!domain::valid_scope(s)) {
      std::cerr << "peto: --scope: unknown scope '" << s << "'; accepted: " << scope_list() << "\n";
      return 2;
    }
  }
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto account = account_of(app, user_email);
  if (!account) return 2;
  auto made = domain::ApiTokens(*app.db, *app.clock).create(account->id, name, scopes);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
    std::cerr << "peto: " << describe(*errors) << "\n";
    return 2;
  }
  const auto& created = std::get<domain::NewToken>(made);
  app.say_database();
  std::cout << "created token " << created.token.id << " (" << created.token.name << ") for "
            << account->email << " with scopes: " << joined(created.token.scopes) << "\n"
            << "It is shown only this once; keep it somewhere safe:\n"
            << created.secret << "\n";
  return 0;
}

int cmd_token_list(App& app, const std::string& user_email) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto account = account_of(app, user_email);
  if (!account) return 2;
  // Tab-separated: id, name, scopes, hint, created, last used.
  for (const auto& t : domain::ApiTokens(*app.db, *app.clock).list(account->id)) {
    std::cout << t.id << "\t" << t.name << "\t" << joined(t.scopes) << "\t" << t.hint << "\t"
              << format_time_s(t.created_at) << "\t"
              << (t.last_used_at ? format_time_s(*t.last_used_at) : std::string("never")) << "\n";
  }
  return 0;
}

int cmd_token_revoke(App& app, const std::string& user_email, std::int64_t id) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto account = account_of(app, user_email);
  if (!account) return 2;
  if (!domain::ApiTokens(*app.db, *app.clock).revoke(account->id, id)) {
    std::cerr << "peto: --id: " << account->email << " has no live token " << id << "\n";
    return 2;
  }
  app.say_database();
  std::cout << "revoked token " << id << " of " << account->email << "\n";
  return 0;
}

}  // namespace peto::app
