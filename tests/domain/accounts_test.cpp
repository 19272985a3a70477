// Accounts on both backends: creation, passwords, sessions, invites, profile.
#include "domain/accounts.h"

#include <gtest/gtest.h>

#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPassword = "correct horse battery";

class AccountsTest : public peto::testing::MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    accounts_ = std::make_unique<Accounts>(db(), clock_);
  }
  Accounts& accounts() { return *accounts_; }
  Account make(const std::string& email, bool admin = false) {
    auto made = accounts().create(email, kPassword, admin);
    EXPECT_TRUE(std::holds_alternative<Account>(made)) << email;
    return std::get<Account>(made);
  }
  static std::string error_of(const std::variant<Account, FieldErrors>& v,
                              const std::string& field) {
    const auto* e = std::get_if<FieldErrors>(&v);
    if (e == nullptr) return "(no errors)";
    auto it = e->by_field.find(field);
    return it == e->by_field.end() ? "(none for " + field + ")" : it->second;
  }

  std::unique_ptr<Accounts> accounts_;
};

TEST_P(AccountsTest, FirstAccountIsAdmin) {
  EXPECT_FALSE(accounts().any());
  Account first = make("First@Example.com");
  EXPECT_TRUE(first.is_admin);
  EXPECT_TRUE(first.active);
  EXPECT_EQ(first.email, "first@example.com");
  EXPECT_EQ(first.time_zone, "UTC");
  EXPECT_EQ(first.quiet_after_days, 21);
  EXPECT_EQ(first.closing_notice_days, 3);
  EXPECT_EQ(first.language, "");
  EXPECT_TRUE(accounts().any());
  EXPECT_FALSE(make("second@example.com").is_admin);
  EXPECT_TRUE(make("third@example.com", true).is_admin);
}

TEST_P(AccountsTest, EmailsAreUniqueInAnyCase) {
  make("ana@example.com");
  auto again = accounts().create("  ANA@Example.COM ", kPassword, false);
  EXPECT_EQ(error_of(again, "email"), "error_email_taken");
  ASSERT_TRUE(accounts().find_by_email("Ana@EXAMPLE.com"));
  EXPECT_EQ(accounts().find_by_email("Ana@EXAMPLE.com")->email, "ana@example.com");
}

TEST_P(AccountsTest, RejectsBadEmailsAndShortPasswords) {
  for (const char* bad : {"", "ana", "ana@", "@example.com", "ana@example", "a b@example.com",
                          "ana@@example.com", "ana@example.", "ana@.com"}) {
    EXPECT_EQ(error_of(accounts().create(bad, kPassword, false), "email"), "error_email_invalid")
        << bad;
  }
  auto short_pw = accounts().create("ana@example.com", "elevenchars", false);
  EXPECT_EQ(error_of(short_pw, "password"), "error_password_short");
  // Twelve characters, counted as characters and not as bytes.
  EXPECT_TRUE(std::holds_alternative<Account>(
                  accounts().create("ana@example.com", "ééééééééééé", false)) == false);
  EXPECT_TRUE(
      std::holds_alternative<Account>(accounts().create("ana@example.com", "éééééééééééé", false)));
  EXPECT_EQ(accounts().find_by_email("ana@example.com")->email, "ana@example.com");
}

TEST_P(AccountsTest, ChecksPasswords) {
  Account a = make("ana@example.com");
  auto ok = accounts().check_password("ANA@example.com", kPassword);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->id, a.id);
  EXPECT_FALSE(accounts().check_password("ana@example.com", "wrong password here"));
  EXPECT_FALSE(accounts().check_password("nobody@example.com", kPassword));
  EXPECT_FALSE(accounts().check_password("not an address", kPassword));
  // The stored hash is argon2id, never the password.
  auto rows = db().query("SELECT password_hash FROM users WHERE id = ?", {a.id});
  EXPECT_EQ(rows[0].text(0).rfind("$argon2id$", 0), 0u);
  EXPECT_EQ(rows[0].text(0).find(kPassword), std::string::npos);
}

TEST_P(AccountsTest, InactiveAccountsCannotSignIn) {
  Account a = make("ana@example.com");
  auto s = accounts().open_session(a.id);
  ASSERT_TRUE(accounts().session(s.token));
  accounts().set_active(a.id, false);
  EXPECT_FALSE(accounts().check_password("ana@example.com", kPassword));
  EXPECT_FALSE(accounts().session(s.token));
  EXPECT_FALSE(accounts().find(a.id)->active);
  accounts().set_active(a.id, true);
  EXPECT_TRUE(accounts().check_password("ana@example.com", kPassword));
  EXPECT_FALSE(accounts().session(s.token)) << "deactivating closed the session for good";
}

TEST_P(AccountsTest, ChangesPasswords) {
  Account a = make("ana@example.com");
  FieldErrors wrong = accounts().change_password(a.id, "not the password", "a new password 1");
  EXPECT_EQ(wrong.by_field["current"], "error_password_wrong");
  FieldErrors too_short = accounts().change_password(a.id, kPassword, "short");
  EXPECT_EQ(too_short.by_field["new"], "error_password_short");
  EXPECT_TRUE(accounts().check_password("ana@example.com", kPassword));
  EXPECT_TRUE(accounts().change_password(a.id, kPassword, "a new password 1").empty());
  EXPECT_FALSE(accounts().check_password("ana@example.com", kPassword));
  EXPECT_TRUE(accounts().check_password("ana@example.com", "a new password 1"));
}

TEST_P(AccountsTest, AChangedPasswordEndsEveryOtherSession) {
  Account a = make("ana@example.com");
  Account b = make("bob@example.com");
  auto here = accounts().open_session(a.id);
  auto elsewhere = accounts().open_session(a.id);
  auto bobs = accounts().open_session(b.id);
  ASSERT_TRUE(accounts().change_password(a.id, kPassword, "a new password 1", here.token).empty());
  EXPECT_TRUE(accounts().session(here.token));
  EXPECT_FALSE(accounts().session(elsewhere.token));
  EXPECT_TRUE(accounts().session(bobs.token)) << "other people stay signed in";
}

TEST_P(AccountsTest, SessionsStoreOnlyTheHashAndExpire) {
  Account a = make("ana@example.com");
  auto s = accounts().open_session(a.id);
  EXPECT_EQ(s.token.size(), 64u);
  EXPECT_EQ(s.csrf_token.size(), 64u);
  auto stored = db().query("SELECT id, last_seen_at FROM sessions");
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].text(0), token_hash(s.token));
  EXPECT_NE(stored[0].text(0), s.token);

  auto info = accounts().session(s.token);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->account.id, a.id);
  EXPECT_EQ(info->csrf_token, s.csrf_token);
  EXPECT_FALSE(accounts().session("not-a-token"));
  EXPECT_FALSE(accounts().session(""));

  // last_seen_at moves at most once a minute.
  std::int64_t opened = clock_.now_ms();
  clock_.advance(30s);
  accounts().session(s.token);
  EXPECT_EQ(db().query("SELECT last_seen_at FROM sessions")[0].int_at(0), opened);
  clock_.advance(31s);
  accounts().session(s.token);
  EXPECT_EQ(db().query("SELECT last_seen_at FROM sessions")[0].int_at(0), clock_.now_ms());

  clock_.set(opened + 14 * 24 * 3600 * 1000LL - 1);
  EXPECT_TRUE(accounts().session(s.token));
  clock_.advance(1ms);
  EXPECT_FALSE(accounts().session(s.token));

  auto other = accounts().open_session(a.id);
  accounts().close_session(other.token);
  EXPECT_FALSE(accounts().session(other.token));
}

TEST_P(AccountsTest, InvitesAreSingleUse) {
  Account admin = make("admin@example.com");
  std::string token = accounts().create_invite(admin.id, "");
  EXPECT_TRUE(accounts().invite_open(token));
  EXPECT_EQ(db().query("SELECT token_hash FROM invites")[0].text(0), token_hash(token));

  auto weak = accounts().accept_invite(token, "bo@example.com", "short");
  EXPECT_EQ(error_of(weak, "password"), "error_password_short");
  EXPECT_TRUE(accounts().invite_open(token)) << "a failed attempt does not use the invite";

  auto taken = accounts().accept_invite(token, "ADMIN@example.com", kPassword);
  EXPECT_EQ(error_of(taken, "email"), "error_email_taken");
  EXPECT_TRUE(accounts().invite_open(token));

  auto made = accounts().accept_invite(token, "bo@example.com", kPassword);
  ASSERT_TRUE(std::holds_alternative<Account>(made)) << error_of(made, "form");
  EXPECT_FALSE(std::get<Account>(made).is_admin);
  auto row = db().query("SELECT accepted_by, accepted_at FROM invites");
  EXPECT_EQ(row[0].int_at(0), std::get<Account>(made).id);
  EXPECT_EQ(row[0].int_at(1), clock_.now_ms());

  EXPECT_FALSE(accounts().invite_open(token));
  auto again = accounts().accept_invite(token, "cy@example.com", kPassword);
  EXPECT_EQ(error_of(again, "form"), "error_invite_invalid");
  EXPECT_FALSE(accounts().find_by_email("cy@example.com"));
  EXPECT_EQ(error_of(accounts().accept_invite("made-up", "cy@example.com", kPassword), "form"),
            "error_invite_invalid");
}

TEST_P(AccountsTest, InvitesExpireAfterFourteenDays) {
  Account admin = make("admin@example.com");
  std::string token = accounts().create_invite(admin.id, "");
  clock_.advance(std::chrono::hours(14 * 24) - 1ms);
  EXPECT_TRUE(accounts().invite_open(token));
  clock_.advance(1ms);
  EXPECT_FALSE(accounts().invite_open(token));
  auto late = accounts().accept_invite(token, "bo@example.com", kPassword);
  EXPECT_EQ(error_of(late, "form"), "error_invite_invalid");
  EXPECT_FALSE(accounts().find_by_email("bo@example.com"));
}

TEST_P(AccountsTest, BoundInvitesTakeOnlyTheirAddress) {
  Account admin = make("admin@example.com");
  std::string token = accounts().create_invite(admin.id, "Bo@Example.com");
  auto other = accounts().accept_invite(token, "eve@example.com", kPassword);
  EXPECT_EQ(error_of(other, "email"), "error_invite_email");
  EXPECT_FALSE(accounts().find_by_email("eve@example.com"));
  EXPECT_TRUE(accounts().invite_open(token));
  auto bo = accounts().accept_invite(token, "bo@EXAMPLE.com", kPassword);
  EXPECT_TRUE(std::holds_alternative<Account>(bo)) << error_of(bo, "email");
}

TEST_P(AccountsTest, ProfileIsValidatedAsAWhole) {
  Account a = make("ana@example.com");
  auto profile = [&](const std::string& language, const std::string& zone, int quiet, int closing,
                     int follow_up = 7) {
    Account wanted = a;
    wanted.language = language;
    wanted.time_zone = zone;
    wanted.quiet_after_days = quiet;
    wanted.closing_notice_days = closing;
    wanted.reminders.follow_up_days = follow_up;
    return accounts().update_profile(a.id, wanted);
  };
  FieldErrors e = profile("fr", "Mars/Base", 0, 91);
  EXPECT_EQ(e.by_field["time_zone"], "error_time_zone_invalid");
  EXPECT_EQ(e.by_field["quiet_after_days"], "error_quiet_after_days_range");
  EXPECT_EQ(e.by_field["closing_notice_days"], "error_closing_notice_days_range");
  EXPECT_FALSE(e.has("language"));
  EXPECT_EQ(accounts().find(a.id)->language, "") << "nothing is saved unless all is valid";

  EXPECT_TRUE(profile("x y", "UTC", 21, 3).has("language"));
  EXPECT_TRUE(profile("fr", "UTC", 366, 3).has("quiet_after_days"));
  EXPECT_TRUE(profile("fr", "UTC", 21, 0).has("closing_notice_days"));
  EXPECT_TRUE(profile("fr", "UTC", 21, 3, -1).has("follow_up_days"));
  EXPECT_TRUE(profile("fr", "UTC", 21, 3, 91).has("follow_up_days"));

  EXPECT_TRUE(profile("fr", "Europe/Lisbon", 365, 90).empty());
  Account saved = *accounts().find(a.id);
  EXPECT_EQ(saved.language, "fr");
  EXPECT_EQ(saved.time_zone, "Europe/Lisbon");
  EXPECT_EQ(saved.quiet_after_days, 365);
  EXPECT_EQ(saved.closing_notice_days, 90);
  EXPECT_EQ(saved.reminders.follow_up_days, 7);
  EXPECT_TRUE(saved.reminders.interviews);
  EXPECT_FALSE(saved.reminders.closing) << "a closing date is announced already";
  Account switched = saved;
  switched.reminders = {
      .follow_up_days = 0, .interviews = false, .answer_by = false, .closing = true};
  EXPECT_TRUE(accounts().update_profile(a.id, switched).empty());
  EXPECT_EQ(accounts().find(a.id)->reminders.follow_up_days, 0);
  EXPECT_FALSE(accounts().find(a.id)->reminders.answer_by);
  EXPECT_TRUE(accounts().find(a.id)->reminders.closing);
  EXPECT_TRUE(profile("", "UTC", 1, 1).empty());
  EXPECT_EQ(accounts().find(a.id)->language, "");
}

TEST_P(AccountsTest, ARecoveryLinkWorksOnceForAnHourAndEndsEverySession) {
  Account admin = make("root@example.com");
  Account a = make("ana@example.com");
  auto phone = accounts().open_session(a.id);
  std::string token = accounts().create_recovery(a.id, admin.id);
  EXPECT_EQ(token.size(), 64u);
  EXPECT_EQ(
      db().query("SELECT 1 FROM recovery_links WHERE token_hash = ?", {token_hash(token)}).size(),
      1u)
      << "only the hash is stored";
  ASSERT_TRUE(accounts().recovery_account(token));
  EXPECT_EQ(accounts().recovery_account(token)->id, a.id);
  EXPECT_FALSE(accounts().recovery_account(token + "0"));

  auto too_short = accounts().use_recovery(token, "short");
  EXPECT_EQ(error_of(too_short, "password"), "error_password_short");
  EXPECT_TRUE(accounts().recovery_account(token)) << "a refused password does not use the link";

  auto used = accounts().use_recovery(token, "a new password at last");
  ASSERT_TRUE(std::holds_alternative<Account>(used));
  EXPECT_FALSE(accounts().session(phone.token)) << "every session ended";
  EXPECT_TRUE(accounts().check_password("ana@example.com", "a new password at last"));
  EXPECT_FALSE(accounts().check_password("ana@example.com", kPassword));
  EXPECT_EQ(error_of(accounts().use_recovery(token, "yet another password"), "form"),
            "error_recovery_invalid")
      << "once";

  std::string late = accounts().create_recovery(a.id, admin.id);
  clock_.advance(std::chrono::minutes(59));
  EXPECT_TRUE(accounts().recovery_account(late));
  clock_.advance(std::chrono::minutes(1));
  EXPECT_FALSE(accounts().recovery_account(late)) << "an hour";
  EXPECT_EQ(error_of(accounts().use_recovery(late, "yet another password"), "form"),
            "error_recovery_invalid");

  auto events = accounts().events(a.id);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, "recovery_link_created");
  EXPECT_EQ(events[0].actor_id, admin.id);
  EXPECT_EQ(events[1].kind, "recovery_link_used");
  EXPECT_EQ(events[1].actor_id, a.id);
  EXPECT_EQ(events[2].kind, "recovery_link_created");
}

TEST_P(AccountsTest, ANewerRecoveryLinkReplacesTheOlderAndAnInactiveAccountHasNone) {
  Account a = make("ana@example.com");
  std::string first = accounts().create_recovery(a.id, 0);
  std::string second = accounts().create_recovery(a.id, 0);
  EXPECT_FALSE(accounts().recovery_account(first));
  EXPECT_TRUE(accounts().recovery_account(second));
  accounts().set_active(a.id, false);
  EXPECT_FALSE(accounts().recovery_account(second));
  EXPECT_EQ(error_of(accounts().use_recovery(second, "a new password at last"), "form"),
            "error_recovery_invalid");
  EXPECT_TRUE(accounts().check_password("ana@example.com", kPassword) == std::nullopt)
      << "inactive";
  accounts().set_active(a.id, true);
  EXPECT_TRUE(accounts().check_password("ana@example.com", kPassword)) << "password unchanged";
}

TEST_P(AccountsTest, AnAdministratorSetsAPasswordAndEverySessionEnds) {
  Account root = make("root@example.com");
  Account a = make("ana@example.com");
  auto s = accounts().open_session(a.id);
  EXPECT_EQ(accounts().set_password(a.id, "short", root.id).by_field.at("password"),
            "error_password_short");
  EXPECT_TRUE(accounts().session(s.token));
  EXPECT_TRUE(accounts().set_password(a.id, "another long password", root.id).empty());
  EXPECT_FALSE(accounts().session(s.token));
  EXPECT_TRUE(accounts().check_password("ana@example.com", "another long password"));
  EXPECT_EQ(accounts().set_password(9999, "another long password", 0).by_field.at("form"),
            "error_account_unknown");
  EXPECT_FALSE(accounts().set_active(9999, false));
  ASSERT_FALSE(accounts().events(a.id).empty());
  EXPECT_EQ(accounts().events(a.id)[0].kind, "password_set");
  EXPECT_EQ(accounts().events(a.id)[0].actor_id, root.id);
}

TEST_P(AccountsTest, SessionsKeepWhereTheyCameFromAndEndOneByOne) {
  Account a = make("ana@example.com");
  Account b = make("bo@example.com");
  EXPECT_EQ(accounts().list()[0].last_signin_at, 0) << "never signed in";
  auto laptop = accounts().open_session(a.id, {"192.0.2.7", "Firefox on Linux"});
  clock_.advance(std::chrono::minutes(5));
  auto phone = accounts().open_session(a.id, {"2001:db8::1", std::string(400, 'x')});
  auto bos = accounts().open_session(b.id);
  auto list = accounts().sessions_of(a.id, laptop.token);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].address, "2001:db8::1") << "the newest first";
  EXPECT_EQ(list[0].user_agent.size(), 300u) << "a long user agent is cut";
  EXPECT_FALSE(list[0].current);
  EXPECT_TRUE(list[1].current);
  EXPECT_EQ(list[1].user_agent, "Firefox on Linux");
  EXPECT_EQ(list[0].handle.size(), 24u);
  EXPECT_EQ(list[0].handle.find(token_hash(phone.token).substr(0, 24)), std::string::npos)
      << "a handle is not the stored id";
  EXPECT_EQ(accounts().list()[0].last_signin_at, clock_.now_ms());

  EXPECT_FALSE(accounts().close_session_by_handle(b.id, list[0].handle)) << "not Bo's";
  EXPECT_TRUE(accounts().session(phone.token));
  EXPECT_TRUE(accounts().close_session_by_handle(a.id, list[0].handle));
  EXPECT_FALSE(accounts().session(phone.token));
  EXPECT_TRUE(accounts().session(laptop.token));

  auto tablet = accounts().open_session(a.id);
  EXPECT_EQ(accounts().close_other_sessions(a.id, laptop.token), 1);
  EXPECT_FALSE(accounts().session(tablet.token));
  EXPECT_TRUE(accounts().session(laptop.token));
  EXPECT_TRUE(accounts().session(bos.token)) << "another person's sessions stay";
}

TEST_P(AccountsTest, CommandsCreateUsersAndInvites) {
  clock_.set(system_clock().now_ms());  // the command runs on the real clock
  std::string out;
  std::string env = "env PETO_PASSWORD_COST=test PETO_DATABASE_URL='" + url() +
                    "' PETO_DATA_DIR='" + dir().string() + "' ";
  std::string peto = env + peto::testing::peto_binary();
  auto run = [&](const std::string& args, const std::string& stdin_text) {
    return peto::testing::run_command("printf '%s\\n' '" + stdin_text + "' | " + peto + args, &out);
  };
  EXPECT_EQ(run(" user create --email Root@Example.com --password-stdin", kPassword), 0) << out;
  auto root = accounts().find_by_email("root@example.com");
  ASSERT_TRUE(root);
  EXPECT_TRUE(root->is_admin) << "the first account is the admin";
  EXPECT_TRUE(accounts().check_password("root@example.com", kPassword));

  EXPECT_EQ(run(" user create --email root@example.com --password-stdin", kPassword), 2) << out;
  EXPECT_NE(out.find("exists already"), std::string::npos) << out;
  EXPECT_EQ(run(" user create --email bo@example.com --password-stdin", "short"), 2) << out;
  EXPECT_NE(out.find("at least 12 characters"), std::string::npos) << out;
  EXPECT_EQ(run(" user create --email not-an-address --password-stdin", kPassword), 2) << out;
  EXPECT_EQ(run(" user create --email bo@example.com --password-stdin", kPassword), 0) << out;
  EXPECT_FALSE(accounts().find_by_email("bo@example.com")->is_admin);

  EXPECT_EQ(run(" invite create --by bo@example.com", ""), 2) << out;  // not an admin
  EXPECT_EQ(run(" invite create --by root@example.com --email cy@example.com", ""), 0) << out;
  std::string last = out.substr(out.find_last_of('\n', out.size() - 2) + 1);
  ASSERT_EQ(last.rfind("/invite/", 0), 0u) << out;
  ASSERT_EQ(last.size(), 8u + 64u + 1u) << "[" << last << "]";
  std::string token = last.substr(8, 64);
  EXPECT_TRUE(accounts().invite_open(token));
  auto wrong = accounts().accept_invite(token, "eve@example.com", kPassword);
  EXPECT_EQ(error_of(wrong, "email"), "error_invite_email");
}

TEST_P(AccountsTest, CommandsListSetPasswordsDeactivateAndMakeRecoveryLinks) {
  clock_.set(system_clock().now_ms());  // the command runs on the real clock
  Account root = make("root@example.com");
  Account a = make("ana@example.com");
  auto s = accounts().open_session(a.id);
  std::string out;
  std::string peto = "env PETO_PASSWORD_COST=test PETO_DATABASE_URL='" + url() +
                     "' PETO_DATA_DIR='" + dir().string() + "' " + peto::testing::peto_binary();
  auto run = [&](const std::string& args, const std::string& stdin_text = "") {
    return peto::testing::run_command("printf '%s\\n' '" + stdin_text + "' | " + peto + args, &out);
  };
  ASSERT_EQ(run(" user list"), 0) << out;
  EXPECT_NE(out.find(std::to_string(a.id) + "\tana@example.com\tuser\tactive\t"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\troot@example.com\tadmin\tactive\t"), std::string::npos) << out;
  EXPECT_NE(out.find("\tnever\tpassword\n"), std::string::npos) << out;

  EXPECT_EQ(run(" user set-password --email nobody@example.com --password-stdin", kPassword), 2);
  EXPECT_NE(out.find("there is no account for nobody@example.com"), std::string::npos) << out;
  EXPECT_EQ(run(" user set-password --email ana@example.com --password-stdin", "short"), 2);
  EXPECT_NE(out.find("at least 12 characters"), std::string::npos) << out;
  EXPECT_TRUE(accounts().session(s.token)) << "a refused password changes nothing";
  ASSERT_EQ(
      run(" user set-password --email ANA@example.com --password-stdin", "set from the shell"), 0)
      << out;
  EXPECT_FALSE(accounts().session(s.token));
  EXPECT_TRUE(accounts().check_password("ana@example.com", "set from the shell"));
  EXPECT_EQ(accounts().events(a.id)[0].actor_id, 0) << "the command line";

  ASSERT_EQ(run(" user deactivate --email ana@example.com"), 0) << out;
  EXPECT_FALSE(accounts().find(a.id)->active);
  EXPECT_EQ(run(" user recover --email ana@example.com"), 2) << out;
  EXPECT_NE(out.find("activate it first"), std::string::npos) << out;
  EXPECT_EQ(run(" user deactivate --email ana@example.com"), 0) << out;
  EXPECT_NE(out.find("already"), std::string::npos) << out;
  ASSERT_EQ(run(" user activate --email ana@example.com"), 0) << out;
  EXPECT_TRUE(accounts().find(a.id)->active);

  ASSERT_EQ(run(" user recover --email ana@example.com"), 0) << out;
  std::string last = out.substr(out.find_last_of('\n', out.size() - 2) + 1);
  ASSERT_EQ(last.rfind("/recover/", 0), 0u) << out;
  std::string token = last.substr(9, 64);
  ASSERT_TRUE(accounts().recovery_account(token));
  EXPECT_EQ(accounts().recovery_account(token)->id, a.id);
  EXPECT_EQ(run(" user recover --email nobody@example.com"), 2) << out;
  EXPECT_EQ(run(" user list --email x"), 2) << "CLI11 refuses an unknown option";

  EXPECT_EQ(run(" user delete --email ana@example.com"), 2) << out;
  EXPECT_NE(out.find("add --yes"), std::string::npos) << out;
  EXPECT_TRUE(accounts().find(a.id));
  ASSERT_EQ(run(" user delete --email ana@example.com --yes"), 0) << out;
  EXPECT_FALSE(accounts().find(a.id));
  EXPECT_FALSE(accounts().recovery_account(token));
  EXPECT_EQ(run(" user delete --email ana@example.com --yes"), 2) << out;
  EXPECT_TRUE(accounts().find(root.id));
}

PETO_BOTH_BACKENDS(AccountsTest);

}  // namespace
}  // namespace peto::domain
