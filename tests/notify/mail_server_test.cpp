// E-mail through a mail server no one here wrote: aiosmtpd (Debian's
// python3-aiosmtpd) on loopback, keeping what it takes in a maildir, and the
// message read back by Python's own e-mail parser. The in-test receiver of
// notifiers_test.cpp stays for the faults a real server will not make.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "net/http.h"
#include "notify/notifiers.h"
#include "tests/support/backends.h"
#include "tests/support/external_server.h"

namespace peto::notify {
namespace {

using Outcome = plugin::Outcome::Kind;
using testing::ExternalServer;
using testing::TempDir;

class MailServerTest : public ::testing::Test {
 protected:
  MailServerTest()
      : smtp_({"/usr/bin/python3", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:{port}", "-c",
               "aiosmtpd.handlers.Mailbox", (dir_.path() / "maildir").string()},
              dir_.path()) {
    config_.allow_private_destinations = true;
    config_.smtp_url = "smtp://127.0.0.1:" + std::to_string(smtp_.port());
    n_.event = "reminder_due";
    n_.key = "reminder:7";
    n_.language = "fr";
  }

  plugin::Outcome send() {
    SendContext ctx{http_, config_, clock_, "42"};
    return email_notifier().send(n_, nlohmann::json::object(), recipient_, ctx);
  }

  std::vector<std::filesystem::path> messages() const {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path() / "maildir" / "new", ec))
      out.push_back(e.path());
    return out;
  }

  // Subject, From, To and the text of `message`, one per line, as Python's
  // e-mail package (policy.default: RFC 5322, encoded words decoded) reads
  // them.
  static std::string read_by_python(const std::filesystem::path& message) {
    std::string out;
    int code = testing::run_command(
        "/usr/bin/python3 -c 'import sys, email, email.policy\n"
        "m = email.message_from_binary_file(open(sys.argv[1], \"rb\"), "
        "policy=email.policy.default)\n"
        "print(m[\"subject\"]); print(m[\"from\"]); print(m[\"to\"]); print(m.get_content(), "
        "end=\"\")' '" +
            message.string() + "'",
        &out);
    EXPECT_EQ(code, 0) << out;
    return out;
  }

  TempDir dir_;
  ExternalServer smtp_;
  net::HttpClient http_;
  Config config_;
  FakeClock clock_{1'800'000'000'000};
  Notification n_;
  Recipient recipient_{
      .id = 1, .email = "camille@example.fr", .language = "fr", .time_zone = "UTC"};
};

TEST_F(MailServerTest, TakesAFoldedSubjectAndANamedSenderAsWritten) {
  config_.smtp_from = "Pétö, notices <peto@example.org>";
  n_.title =
      "Relancer l’équipe de recrutement d’Analytical Engines à propos du poste d’ingénieure "
      "backend";
  n_.body = "Votre candidature est restée sans réponse depuis 14 jours.";
  plugin::Outcome r = send();
  ASSERT_EQ(r.kind, Outcome::done) << r.message << "\n" << smtp_.log();
  auto taken = messages();
  ASSERT_EQ(taken.size(), 1u) << smtp_.log();
  EXPECT_EQ(read_by_python(taken[0]), "[peto] " + n_.title +
                                          "\n\"Pétö, notices\" <peto@example.org>\n"
                                          "camille@example.fr\n" +
                                          n_.title + "\n\n" + n_.body + "\n");

  std::filesystem::remove(taken[0]);

  n_.title =
      "Follow up with the hiring manager at Analytical Engines about the senior backend "
      "engineer position";
  n_.body = "Three weeks without an answer.";
  config_.smtp_from = "peto <peto@example.org>";
  ASSERT_EQ(send().kind, Outcome::done);
  taken = messages();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(read_by_python(taken[0]), "[peto] " + n_.title +
                                          "\npeto <peto@example.org>\ncamille@example.fr\n" +
                                          n_.title + "\n\n" + n_.body + "\n");
}

// aiosmtpd offers no STARTTLS without a certificate: smtp+starttls:// sends
// it nothing, not even the login.
TEST_F(MailServerTest, StarttlsRequiredSendsNothingToAServerWithoutIt) {
  config_.smtp_url = "smtp+starttls://peto:s3cret@127.0.0.1:" + std::to_string(smtp_.port());
  n_.title = "T";
  plugin::Outcome r = send();
  EXPECT_EQ(r.kind, Outcome::retry) << r.message;
  EXPECT_NE(r.message.find("STARTTLS"), std::string::npos) << r.message;
  EXPECT_TRUE(messages().empty());
}

}  // namespace
}  // namespace peto::notify
