// `peto user …` and `peto invite create`: accounts from a shell on the
// server, for the first account (there is nobody to invite it yet), for the
// administrator who is locked out, and for those who prefer the command line.
#include <termios.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <string>

#include "app/app.h"
#include "core/clock.h"
#include "domain/accounts.h"
#include "domain/two_factor.h"
#include "purge/accounts.h"

namespace peto::app {

namespace {

// The English text of the domain's error keys a command can meet.
std::string describe(const domain::FieldErrors& errors) {
  static const std::map<std::string, std::string> texts = {
      {"error_email_invalid", "expected an e-mail address such as name@example.com"},
      {"error_email_taken", "an account with this e-mail address exists already"},
      {"error_password_short", "the password must have at least 12 characters"},
      {"error_password_long", "the password is too long (at most 1024 bytes)"},
      {"error_account_unknown", "there is no such account"},
  };
  const auto& [field, key] = *errors.by_field.begin();
  auto it = texts.find(key);
  return field + ": " + (it == texts.end() ? key : it->second);
}

// Reads one line from the terminal on standard input with its echo off, after
// `prompt` on stderr. Nothing when the line does not come (end of input).
std::optional<std::string> ask_hidden(const std::string& prompt) {
  termios before{};
  const bool quiet = ::tcgetattr(STDIN_FILENO, &before) == 0;
  if (quiet) {
    termios hidden = before;
    hidden.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    hidden.c_lflag |= ECHONL;
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden);
  }
  // The prompt once the echo is off: what is typed after it is never shown.
  std::cerr << prompt << std::flush;
  std::string line;
  const bool read = static_cast<bool>(std::getline(std::cin, line));
  if (quiet) ::tcsetattr(STDIN_FILENO, TCSANOW, &before);
  if (!read) return std::nullopt;
  return line;
}

// The account behind --email, active or not, or nullopt after printing why not.
std::optional<domain::Account> any_account(domain::Accounts& accounts, const std::string& email) {
  auto account = accounts.find_by_email(email);
  if (!account) std::cerr << "peto: --email: there is no account for " << email << "\n";
  return account;
}

}  // namespace

std::optional<std::string> read_password(std::istream& in, bool from_stdin,
                                         const std::string& email) {
  if (&in == &std::cin && ::isatty(STDIN_FILENO)) {
    auto first = ask_hidden("Password for " + email + " (at least 12 characters): ");
    auto again = first ? ask_hidden("The same password again: ") : std::nullopt;
    if (!again) {
      std::cerr << "\npeto: no password was given; nothing was changed\n";
      return std::nullopt;
    }
    if (*first != *again) {
      std::cerr << "peto: the two passwords differ; nothing was changed\n";
      return std::nullopt;
    }
    return first;
  }
  std::string password;
  if (!from_stdin) {
    std::cerr << "peto: --password-stdin: no terminal to ask at; give the password as one line "
                 "on standard input\n";
    return std::nullopt;
  }
  if (!std::getline(in, password)) {
    std::cerr << "peto: no password on standard input (one line)\n";
    return std::nullopt;
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  return password;
}

int cmd_user_create(App& app, const std::string& email, bool admin, bool password_stdin,
                    std::istream& password_in) {
  auto password = read_password(password_in, password_stdin, email);
  if (!password) return 2;
  if (!domain::normalise_email(email)) {
    std::cerr << "peto: --email: expected an e-mail address such as name@example.com\n";
    return 2;
  }
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto made = accounts.create(email, *password, admin);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
    std::cerr << "peto: " << describe(*errors) << "\n";
    return 2;
  }
  const auto& a = std::get<domain::Account>(made);
  app.say_database();
  std::cout << "created account " << a.id << " for " << a.email
            << (a.is_admin ? " (administrator)" : "") << "\n";
  return 0;
}

int cmd_user_list(App& app) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  // Tab-separated: id, e-mail, role, state, created, last sign-in, second step.
  for (const auto& s : domain::Accounts(*app.db, *app.clock).list()) {
    std::cout << s.account.id << "\t" << s.account.email << "\t"
              << (s.account.is_admin ? "admin" : "user") << "\t"
              << (s.account.active ? "active" : "inactive") << "\t" << format_time_s(s.created_at)
              << "\t" << (s.last_signin_at > 0 ? format_time_s(s.last_signin_at) : "never") << "\t"
              << (s.two_factor ? "two-step" : "password") << "\n";
  }
  return 0;
}

int cmd_user_set_password(App& app, const std::string& email, bool password_stdin,
                          std::istream& password_in) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto account = any_account(accounts, email);
  if (!account) return 2;
  auto password = read_password(password_in, password_stdin, account->email);
  if (!password) return 2;
  auto errors = accounts.set_password(account->id, *password, 0);
  if (!errors.empty()) {
    std::cerr << "peto: " << describe(errors) << "\n";
    return 2;
  }
  app.say_database();
  std::cout << "password set for " << account->email << "; every session of the account ended\n";
  return 0;
}

int cmd_user_set_active(App& app, const std::string& email, bool active) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto account = any_account(accounts, email);
  if (!account) return 2;
  if (account->active == active) {
    std::cout << account->email << " is " << (active ? "active" : "inactive")
              << " already; nothing changed\n";
    return 0;
  }
  accounts.set_active(account->id, active, 0);
  app.say_database();
  std::cout << (active ? "activated " : "deactivated ") << account->email
            << (active ? "; it can sign in again\n" : "; its sessions ended\n");
  return 0;
}

int cmd_user_recover(App& app, const std::string& email) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto account = any_account(accounts, email);
  if (!account) return 2;
  if (!account->active) {
    std::cerr << "peto: --email: " << account->email
              << " is deactivated; activate it first (peto user activate)\n";
    return 2;
  }
  std::string token = accounts.create_recovery(account->id, 0);
  app.say_database();
  std::cout << "recovery link for " << account->email << "; it works once, for "
            << domain::kRecoveryMinutes << " minutes, and replaces earlier links:\n";
  std::cout << absolute_url(app.config.public_url, "/recover/" + token) << "\n";
  return 0;
}

int cmd_user_reset_two_factor(App& app, const std::string& email) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto account = any_account(accounts, email);
  if (!account) return 2;
  // Turning off reads no secret: the key is not needed.
  if (!domain::TwoFactor(*app.db, *app.clock, app.config.secret_key).turn_off(account->id, 0)) {
    std::cout << account->email << " has no two-step sign-in; nothing changed\n";
    return 0;
  }
  app.say_database();
  std::cout << "two-step sign-in is off for " << account->email
            << "; the password alone signs in, and it can be set up again\n";
  return 0;
}

int cmd_user_delete(App& app, const std::string& email, bool yes) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto account = any_account(accounts, email);
  if (!account) return 2;
  if (!yes) {
    std::cerr << "peto: this deletes " << account->email
              << " and everything in the account for good; add --yes to go ahead\n";
    return 2;
  }
  auto gone = purge::delete_account(*app.db, *app.clock, app.config, account->id);
  if (!gone) {
    std::cerr << "peto: --email: " << account->email << " was deleted meanwhile\n";
    return 2;
  }
  app.say_database();
  std::cout << "deleted " << gone->email << " and everything in the account (" << gone->files
            << (gone->files == 1 ? " file or folder" : " files and folders") << " removed)\n";
  return 0;
}

int cmd_invite_create(App& app, const std::string& by_email, const std::string& bound_email) {
  if (!bound_email.empty() && !domain::normalise_email(bound_email)) {
    std::cerr << "peto: --email: expected an e-mail address such as name@example.com\n";
    return 2;
  }
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  domain::Accounts accounts(*app.db, *app.clock);
  auto admin = accounts.find_by_email(by_email);
  if (!admin || !admin->is_admin || !admin->active) {
    std::cerr << "peto: --by: " << by_email << " is not an active administrator's account\n";
    return 2;
  }
  std::string token = accounts.create_invite(admin->id, bound_email);
  app.say_database();
  std::cout << "invite created; it works once, for 14 days. Send this link:\n";
  std::cout << absolute_url(app.config.public_url, "/invite/" + token) << "\n";
  return 0;
}

}  // namespace peto::app
