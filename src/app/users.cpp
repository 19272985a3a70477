// `peto user create` and `peto invite create`: accounts from a shell on the
// server, for the first account (there is nobody to invite it yet) and for
// administrators who prefer the command line.
#include <iostream>
#include <map>
#include <string>

#include "app/app.h"
#include "domain/accounts.h"

namespace peto::app {

namespace {

// The English text of the domain's error keys a command can meet.
std::string describe(const domain::FieldErrors& errors) {
  static const std::map<std::string, std::string> texts = {
      {"error_email_invalid", "expected an e-mail address such as name@example.com"},
      {"error_email_taken", "an account with this e-mail address exists already"},
      {"error_password_short", "the password must have at least 12 characters"},
      {"error_password_long", "the password is too long (at most 1024 bytes)"},
  };
  const auto& [field, key] = *errors.by_field.begin();
  auto it = texts.find(key);
  return field + ": " + (it == texts.end() ? key : it->second);
}

}  // namespace

int cmd_user_create(App& app, const std::string& email, bool admin, std::istream& password_in) {
  std::string password;
  if (!std::getline(password_in, password)) {
    std::cerr << "peto: no password on standard input (one line)\n";
    return 2;
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (!domain::normalise_email(email)) {
    std::cerr << "peto: --email: expected an e-mail address such as name@example.com\n";
    return 2;
  }
  if (!app.open_migrated_db()) return 1;
  domain::Accounts accounts(*app.db, *app.clock);
  auto made = accounts.create(email, password, admin);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
    std::cerr << "peto: " << describe(*errors) << "\n";
    return 2;
  }
  const auto& a = std::get<domain::Account>(made);
  std::cout << "created account " << a.id << " for " << a.email
            << (a.is_admin ? " (administrator)" : "") << "\n";
  return 0;
}

int cmd_invite_create(App& app, const std::string& by_email, const std::string& bound_email) {
  if (!bound_email.empty() && !domain::normalise_email(bound_email)) {
    std::cerr << "peto: --email: expected an e-mail address such as name@example.com\n";
    return 2;
  }
  if (!app.open_migrated_db()) return 1;
  domain::Accounts accounts(*app.db, *app.clock);
  auto admin = accounts.find_by_email(by_email);
  if (!admin || !admin->is_admin || !admin->active) {
    std::cerr << "peto: --by: " << by_email << " is not an active administrator's account\n";
    return 2;
  }
  std::string token = accounts.create_invite(admin->id, bound_email);
  std::cout << "invite created; it works once, for 14 days. Send this link:\n";
  std::cout << absolute_url(app.config.public_url, "/invite/" + token) << "\n";
  return 0;
}

}  // namespace peto::app
