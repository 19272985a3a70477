// The recovery link by e-mail, through a real mail server (aiosmtpd on
// loopback, into a maildir) on both backends: an active account gets a link
// that works; an unknown or a deactivated address gets nothing, and the task
// says so without failing.
#include "notify/recovery_mail.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "domain/accounts.h"
#include "tests/support/domain_fixture.h"
#include "tests/support/external_server.h"

namespace peto::notify {
namespace {

class RecoveryMailTest : public peto::testing::MigratedTest {
 protected:
  RecoveryMailTest()
      : smtp_({"/usr/bin/python3", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:{port}", "-c",
               "aiosmtpd.handlers.Mailbox", (mail_.path() / "maildir").string()},
              mail_.path()) {
    config_.allow_private_destinations = true;
    config_.smtp_url = "smtp://127.0.0.1:" + std::to_string(smtp_.port());
    config_.public_url = "https://peto.example";
  }

  Result<std::string> run(const std::string& typed) {
    const auto made = recovery_mail_task(typed);
    engine::Task task;
    task.kind = made.kind;
    task.payload = made.payload;
    return send_recovery_mail(db(), clock_, config_, http_, task);
  }

  // The text of each message the server took, as Python's e-mail package
  // reads it (quoted-printable undone).
  std::vector<std::string> mails() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(mail_.path() / "maildir" / "new", ec)) {
      std::string text;
      EXPECT_EQ(peto::testing::run_command(
                    "/usr/bin/python3 -c 'import sys, email, email.policy\n"
                    "m = email.message_from_binary_file(open(sys.argv[1], \"rb\"), "
                    "policy=email.policy.default)\n"
                    "print(m[\"to\"]); print(m[\"subject\"]); print(m.get_content(), end=\"\")' '" +
                        e.path().string() + "'",
                    &text),
                0)
          << text;
      out.push_back(text);
    }
    return out;
  }

  peto::testing::TempDir mail_;
  peto::testing::ExternalServer smtp_;
  net::HttpClient http_;
  Config config_;
};

TEST_P(RecoveryMailTest, AnActiveAccountGetsALinkThatWorks) {
  account("ana@example.com");
  auto sent = run("  ANA@example.com ");
  ASSERT_TRUE(sent) << sent.status().message();
  EXPECT_EQ(*sent, "sent");
  auto got = mails();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rfind("ana@example.com\n", 0), 0u) << got[0];
  EXPECT_NE(got[0].find("Set a new password"), std::string::npos) << got[0];
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(got[0], m, std::regex("https://peto\\.example/recover/([0-9a-f]{64})")))
      << got[0];
  domain::Accounts accounts(db(), clock_);
  ASSERT_TRUE(accounts.recovery_account(m[1]));
  EXPECT_EQ(accounts.recovery_account(m[1])->email, "ana@example.com");
}

TEST_P(RecoveryMailTest, AnUnknownOrDeactivatedAddressGetsNothing) {
  const std::int64_t bo = account("bo@example.com");
  domain::Accounts(db(), clock_).set_active(bo, false);
  for (const char* typed : {"nobody@example.com", "bo@example.com", "not an address"}) {
    auto r = run(typed);
    ASSERT_TRUE(r) << typed;
    EXPECT_EQ(*r, "no account") << typed;
  }
  EXPECT_TRUE(mails().empty());
  EXPECT_TRUE(db().query("SELECT 1 FROM recovery_links").empty());
}

TEST_P(RecoveryMailTest, AMailServerThatIsNotThereFailsTheTask) {
  account("ana@example.com");
  config_.smtp_url = "smtp://127.0.0.1:1";
  auto r = run("ana@example.com");
  EXPECT_FALSE(r);
}

PETO_BOTH_BACKENDS(RecoveryMailTest);

}  // namespace
}  // namespace peto::notify
