// Two-step sign-in on both backends: codes checked against RFC 6238 and
// against Debian's oathtool as an independent generator, replays, drift,
// recovery codes, trusted browsers, sign-in challenges, turning off.
#include "domain/two_factor.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "tests/support/domain_fixture.h"
#include "tests/support/two_factor.h"

namespace peto::domain {
namespace {

using namespace std::chrono_literals;

// RFC 6238 appendix B: the SHA-1 key and the codes (8 digits) at its times.
TEST(Totp, MatchesTheRfcTestVectors) {
  const std::string key = "12345678901234567890";
  const std::pair<std::int64_t, const char*> vectors[] = {
      {59, "94287082"},         {1111111109, "07081804"}, {1111111111, "14050471"},
      {1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"}};
  for (const auto& [seconds, code] : vectors) {
    EXPECT_EQ(totp_code(key, seconds / kTotpStepSeconds, 8), code) << seconds;
    // Six digits are the last six of the eight.
    EXPECT_EQ(totp_code(key, seconds / kTotpStepSeconds), std::string(code).substr(2)) << seconds;
  }
}

// RFC 4648 §10, without the padding authenticator apps do not want.
TEST(Totp, Base32MatchesTheRfc) {
  EXPECT_EQ(base32(""), "");
  EXPECT_EQ(base32("f"), "MY");
  EXPECT_EQ(base32("fo"), "MZXQ");
  EXPECT_EQ(base32("foo"), "MZXW6");
  EXPECT_EQ(base32("foob"), "MZXW6YQ");
  EXPECT_EQ(base32("fooba"), "MZXW6YTB");
  EXPECT_EQ(base32("foobar"), "MZXW6YTBOI");
}

class TwoFactorTest : public peto::testing::MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    tf_ = std::make_unique<TwoFactor>(db(), clock_, "a secret key of at least thirty-two chars");
    ana_ = account("ana@example.com");
  }
  TwoFactor& tf() { return *tf_; }

  // The code Debian's oathtool gives for `secret` (base32) at the clock's
  // time plus `offset`.
  std::string oathtool(const std::string& secret, std::chrono::seconds offset = 0s) {
    return peto::testing::oathtool_code(secret, clock_.now_ms() / 1000 + offset.count());
  }

  // Turns the second factor on for ana; the recovery codes.
  std::vector<std::string> turn_on(std::string* secret = nullptr) {
    auto enrolment = tf().begin(ana_, "ana@example.com");
    EXPECT_TRUE(enrolment);
    if (!enrolment) return {};
    if (secret != nullptr) *secret = enrolment->secret;
    auto confirmed = tf().confirm(ana_, oathtool(enrolment->secret));
    EXPECT_TRUE(std::holds_alternative<std::vector<std::string>>(confirmed));
    if (!std::holds_alternative<std::vector<std::string>>(confirmed)) return {};
    return std::get<std::vector<std::string>>(confirmed);
  }

  std::vector<std::string> event_kinds() {
    std::vector<std::string> kinds;
    for (const auto& e : Accounts(db(), clock_).events(ana_)) kinds.push_back(e.kind);
    return kinds;
  }

  std::unique_ptr<TwoFactor> tf_;
  std::int64_t ana_ = 0;
};

TEST_P(TwoFactorTest, EnrolsWithAnAuthenticatorsCode) {
  EXPECT_FALSE(tf().on(ana_));
  auto enrolment = tf().begin(ana_, "ana@example.com");
  ASSERT_TRUE(enrolment);
  EXPECT_EQ(enrolment->secret.size(), 32u) << "160 bits in base32";
  EXPECT_EQ(enrolment->uri, "otpauth://totp/peto:ana%40example.com?secret=" + enrolment->secret +
                                "&issuer=peto&algorithm=SHA1&digits=6&period=30");
  EXPECT_FALSE(tf().on(ana_)) << "not on before the first code";
  ASSERT_TRUE(tf().pending(ana_, "ana@example.com"));
  EXPECT_EQ(tf().pending(ana_, "ana@example.com")->secret, enrolment->secret);

  // A wrong code turns nothing on.
  const std::string right = oathtool(enrolment->secret);
  const std::string wrong = right == "000000" ? "000001" : "000000";
  auto refused = tf().confirm(ana_, wrong);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(refused));
  EXPECT_EQ(std::get<FieldErrors>(refused).by_field.at("code"), "error_totp_wrong");
  EXPECT_FALSE(tf().on(ana_));

  auto confirmed = tf().confirm(ana_, right.substr(0, 3) + " " + right.substr(3));
  ASSERT_TRUE(std::holds_alternative<std::vector<std::string>>(confirmed));
  const auto codes = std::get<std::vector<std::string>>(confirmed);
  ASSERT_EQ(codes.size(), kRecoveryCodeCount);
  EXPECT_EQ(std::set<std::string>(codes.begin(), codes.end()).size(), codes.size());
  for (const auto& c : codes) EXPECT_EQ(c.size(), 14u) << c;  // xxxx-xxxx-xxxx
  EXPECT_TRUE(tf().on(ana_));
  EXPECT_FALSE(tf().pending(ana_, "ana@example.com"));
  EXPECT_FALSE(tf().begin(ana_, "ana@example.com")) << "a second enrolment while on";
  EXPECT_EQ(tf().state(ana_).recovery_codes_left, kRecoveryCodeCount);
  EXPECT_EQ(tf().state(ana_).since, clock_.now_ms());
  EXPECT_EQ(event_kinds(), std::vector<std::string>{"two_factor_on"});
  EXPECT_TRUE(Accounts(db(), clock_).list()[0].two_factor);

  // The code that turned it on does not sign in: it was used.
  EXPECT_EQ(tf().verify(ana_, right), TwoFactor::Check::wrong);
}

TEST_P(TwoFactorTest, ACodeWorksOnceWithinOneStepOfDrift) {
  std::string secret;
  turn_on(&secret);
  clock_.advance(30s);
  const std::string now = oathtool(secret);
  EXPECT_EQ(tf().verify(ana_, now), TwoFactor::Check::app_code);
  EXPECT_EQ(tf().verify(ana_, now), TwoFactor::Check::wrong) << "replayed";

  // The phone's clock a step ahead: its code works; then the older step's
  // code no longer does (a step at or before the last one used).
  clock_.advance(30s);
  const std::string current = oathtool(secret);
  EXPECT_EQ(tf().verify(ana_, oathtool(secret, 30s)), TwoFactor::Check::app_code);
  EXPECT_EQ(tf().verify(ana_, current), TwoFactor::Check::wrong);

  // A step behind works; two steps either way do not.
  clock_.advance(120s);
  EXPECT_EQ(tf().verify(ana_, oathtool(secret, -60s)), TwoFactor::Check::wrong);
  EXPECT_EQ(tf().verify(ana_, oathtool(secret, 60s)), TwoFactor::Check::wrong);
  EXPECT_EQ(tf().verify(ana_, oathtool(secret, -30s)), TwoFactor::Check::app_code);
  EXPECT_EQ(tf().verify(ana_, "12345"), TwoFactor::Check::wrong);
  EXPECT_EQ(tf().verify(ana_, ""), TwoFactor::Check::wrong);

  // Another account's secret is its own.
  const std::int64_t ben = account("ben@example.com");
  EXPECT_EQ(tf().verify(ben, oathtool(secret, 30s)), TwoFactor::Check::wrong);
}

TEST_P(TwoFactorTest, TheSecretIsSealedUnderTheSecretKey) {
  std::string secret;
  turn_on(&secret);
  auto rows = db().query("SELECT secret_sealed FROM two_factor");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text(0).find(secret), std::string::npos);
  // Under another PETO_SECRET_KEY no code matches: nothing is guessed.
  TwoFactor other(db(), clock_, "another key, also thirty-two characters long");
  clock_.advance(30s);
  EXPECT_EQ(other.verify(ana_, oathtool(secret)), TwoFactor::Check::wrong);
  EXPECT_EQ(tf().verify(ana_, oathtool(secret)), TwoFactor::Check::app_code);
}

TEST_P(TwoFactorTest, RecoveryCodesWorkOnceInAnySpelling) {
  const auto codes = turn_on();
  ASSERT_EQ(codes.size(), kRecoveryCodeCount);
  EXPECT_EQ(tf().verify(ana_, codes[0]), TwoFactor::Check::recovery_code);
  EXPECT_EQ(tf().verify(ana_, codes[0]), TwoFactor::Check::wrong) << "used up";
  // Upper case, spaces for dashes, and look-alikes typed for the real ones.
  std::string shouted;
  for (char c : codes[1]) shouted += c == '-' ? ' ' : static_cast<char>(std::toupper(c));
  for (char& c : shouted) {
    if (c == '1') c = 'L';
    if (c == '0') c = 'O';
  }
  EXPECT_EQ(tf().verify(ana_, shouted), TwoFactor::Check::recovery_code) << shouted;
  EXPECT_EQ(tf().state(ana_).recovery_codes_left, kRecoveryCodeCount - 2);
  auto rows = db().query("SELECT code_hash FROM recovery_codes");
  for (const auto& r : rows) EXPECT_EQ(r.text(0).find(codes[2]), std::string::npos);

  // New codes replace every old one.
  const auto fresh = tf().new_recovery_codes(ana_);
  ASSERT_EQ(fresh.size(), kRecoveryCodeCount);
  EXPECT_EQ(tf().verify(ana_, codes[2]), TwoFactor::Check::wrong);
  EXPECT_EQ(tf().verify(ana_, fresh[9]), TwoFactor::Check::recovery_code);
  const std::int64_t ben = account("ben@example.com");
  EXPECT_EQ(tf().verify(ben, fresh[8]), TwoFactor::Check::wrong) << "ana's code, not ben's";
  EXPECT_TRUE(tf().new_recovery_codes(ben).empty()) << "ben has no second factor";
  EXPECT_EQ(event_kinds(), (std::vector<std::string>{"recovery_code_used", "recovery_codes_made",
                                                     "recovery_code_used", "recovery_code_used",
                                                     "two_factor_on"}));
}

TEST_P(TwoFactorTest, TrustedBrowsersLastThirtyDays) {
  turn_on();
  const std::string token = tf().trust_browser(ana_);
  const std::int64_t ben = account("ben@example.com");
  EXPECT_TRUE(tf().trusted(ana_, token));
  EXPECT_FALSE(tf().trusted(ben, token));
  EXPECT_FALSE(tf().trusted(ana_, ""));
  EXPECT_FALSE(tf().trusted(ana_, token + "0"));
  EXPECT_EQ(tf().state(ana_).trusted_browsers, 1u);
  clock_.advance(std::chrono::hours(24 * kTrustedBrowserDays) - 1ms);
  EXPECT_TRUE(tf().trusted(ana_, token));
  clock_.advance(1ms);
  EXPECT_FALSE(tf().trusted(ana_, token));

  const std::string again = tf().trust_browser(ana_);
  EXPECT_EQ(tf().forget_trusted_browsers(ana_), 1u);
  EXPECT_FALSE(tf().trusted(ana_, again));
}

TEST_P(TwoFactorTest, ChallengesTakeFiveTriesWithinTenMinutes) {
  turn_on();
  const std::string challenge = tf().open_challenge(ana_);
  EXPECT_EQ(tf().challenge_user(challenge), ana_);
  EXPECT_FALSE(tf().challenge_user("not a challenge"));
  for (int i = 1; i <= kChallengeTries; ++i) {
    auto attempt = tf().try_challenge(challenge);
    ASSERT_TRUE(attempt) << i;
    EXPECT_EQ(attempt->user_id, ana_);
    EXPECT_EQ(attempt->last, i == kChallengeTries) << i;
  }
  EXPECT_FALSE(tf().try_challenge(challenge));
  EXPECT_FALSE(tf().challenge_user(challenge));

  const std::string later = tf().open_challenge(ana_);
  clock_.advance(std::chrono::minutes(kChallengeMinutes));
  EXPECT_FALSE(tf().challenge_user(later));
  EXPECT_FALSE(tf().try_challenge(later));
  const std::string closed = tf().open_challenge(ana_);
  tf().close_challenge(closed);
  EXPECT_FALSE(tf().challenge_user(closed));
}

TEST_P(TwoFactorTest, TurningOffForgetsEverythingAndSaysWho) {
  std::string secret;
  const auto codes = turn_on(&secret);
  const std::string trusted = tf().trust_browser(ana_);
  const std::int64_t admin = account("admin@example.com");
  EXPECT_TRUE(tf().turn_off(ana_, admin));
  EXPECT_FALSE(tf().on(ana_));
  EXPECT_FALSE(tf().trusted(ana_, trusted));
  EXPECT_EQ(tf().verify(ana_, codes[0]), TwoFactor::Check::wrong);
  clock_.advance(30s);
  EXPECT_EQ(tf().verify(ana_, oathtool(secret)), TwoFactor::Check::wrong);
  EXPECT_FALSE(tf().turn_off(ana_, admin)) << "off already";
  auto events = Accounts(db(), clock_).events(ana_);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].kind, "two_factor_reset");
  EXPECT_EQ(events[0].actor_id, admin);

  // On again with a new secret, then off by the person.
  turn_on();
  EXPECT_TRUE(tf().turn_off(ana_, ana_));
  EXPECT_EQ(Accounts(db(), clock_).events(ana_)[0].kind, "two_factor_off");
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM recovery_codes")[0].int_at(0), 0);
}

TEST_P(TwoFactorTest, CommandsListAndResetIt) {
  clock_.set(system_clock().now_ms());  // the command runs on the real clock
  turn_on();
  std::string out;
  const std::string peto = "env PETO_DATABASE_URL='" + url() + "' PETO_DATA_DIR='" +
                           dir().string() + "' " + peto::testing::peto_binary();
  ASSERT_EQ(peto::testing::run_command(peto + " user list", &out), 0) << out;
  EXPECT_NE(out.find("\tana@example.com\tadmin\tactive\t"), std::string::npos) << out;
  EXPECT_NE(out.find("\ttwo-step\n"), std::string::npos) << out;
  EXPECT_EQ(
      peto::testing::run_command(peto + " user reset-two-factor --email nobody@example.com", &out),
      2);
  EXPECT_NE(out.find("there is no account for nobody@example.com"), std::string::npos) << out;
  ASSERT_EQ(
      peto::testing::run_command(peto + " user reset-two-factor --email ANA@example.com", &out), 0)
      << out;
  EXPECT_NE(out.find("two-step sign-in is off for ana@example.com"), std::string::npos) << out;
  EXPECT_FALSE(tf().on(ana_));
  EXPECT_EQ(Accounts(db(), clock_).events(ana_)[0].actor_id, 0) << "the command line";
  ASSERT_EQ(
      peto::testing::run_command(peto + " user reset-two-factor --email ana@example.com", &out), 0);
  EXPECT_NE(out.find("nothing changed"), std::string::npos) << out;
}

PETO_BOTH_BACKENDS(TwoFactorTest);

}  // namespace
}  // namespace peto::domain
