// `peto token create|list|revoke`, the real binary against a real database
// on both backends: the secret is printed last and authenticates, bad input
// is one line on stderr with exit 2 and nothing written, list and revoke.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "domain/accounts.h"
#include "domain/api_tokens.h"
#include "tests/support/domain_fixture.h"

namespace peto {
namespace {

using testing::Ran;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class TokenCommandTest : public testing::MigratedTest {
 protected:
  // Runs `peto <args>` on this test's database, stdout and stderr apart.
  Ran peto(const std::string& args) {
    return testing::run_peto(url(), dir().string(), args, dir());
  }

  domain::ApiTokens tokens() { return domain::ApiTokens(db(), clock_); }
  std::int64_t live_tokens() {
    return db().query("SELECT COUNT(*) FROM api_tokens WHERE revoked_at IS NULL")[0].int_at(0);
  }
};

TEST_P(TokenCommandTest, CreatePrintsASecretThatAuthenticatesWithTheScopesGiven) {
  std::int64_t ana = account("ana@example.com");
  Ran r = peto(
      "token create --user ana@example.com --scope listings:write --scope notes:read"
      " --name 'My script'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 2u) << r.out;
  const std::string secret = lines.back();
  EXPECT_TRUE(std::regex_match(secret, std::regex("peto_[0-9a-f]{48}"))) << "[" << secret << "]";
  EXPECT_NE(lines[lines.size() - 2].find("shown only this once"), std::string::npos) << r.out;

  auto bearer = tokens().authenticate(secret);
  ASSERT_TRUE(bearer);
  EXPECT_EQ(bearer->account.id, ana);
  EXPECT_EQ(bearer->token.name, "My script");
  EXPECT_EQ(bearer->token.scopes, (std::vector<std::string>{"listings:write", "notes:read"}));

  // Without --name it is "Command line"; commas separate scopes too.
  Ran plain = peto("token create --user ANA@example.com --scope read,contacts:write");
  ASSERT_EQ(plain.code, 0) << plain.out << plain.err;
  auto second = tokens().authenticate(lines_of(plain.out).back());
  ASSERT_TRUE(second);
  EXPECT_EQ(second->token.name, "Command line");
  EXPECT_EQ(second->token.scopes, (std::vector<std::string>{"read", "contacts:write"}));
}

TEST_P(TokenCommandTest, BadInputIsOneLineAndExitTwoWithNothingWritten) {
  std::int64_t ben = account("ben@example.com");
  struct Case {
    std::string args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {"--user nobody@example.com --scope read", "nobody@example.com"},
           {"--user ben@example.com --scope listings:delete", "listings:delete"},
           {"--user ben@example.com --scope read --scope everything", "everything"},
           {"--user ben@example.com", "--scope"},
           {"--user ben@example.com --scope ''", "--scope"},
           {"--user ben@example.com --scope read --name ''", "--name"},
           {"--user ben@example.com --scope read --name " + std::string(101, 'x'), "--name"},
       }) {
    Ran r = peto("token create " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
  }
  EXPECT_EQ(live_tokens(), 0);

  domain::Accounts(db(), clock_).set_active(ben, false);
  Ran inactive = peto("token create --user ben@example.com --scope read");
  EXPECT_EQ(inactive.code, 2) << inactive.out << inactive.err;
  EXPECT_EQ(lines_of(inactive.err).size(), 1u) << inactive.err;
  EXPECT_EQ(live_tokens(), 0);
}

TEST_P(TokenCommandTest, ListShowsLiveTokensAndRevokeEndsThem) {
  std::int64_t ana = account("ana@example.com");
  std::int64_t ben = account("ben@example.com");
  auto first = std::get<domain::NewToken>(tokens().create(ana, "Phone", {"read"}));
  clock_.advance(std::chrono::minutes(5));
  auto second = std::get<domain::NewToken>(tokens().create(ana, "Laptop", {"write", "notes:read"}));
  auto bens = std::get<domain::NewToken>(tokens().create(ben, "Ben's", {"read"}));
  clock_.advance(std::chrono::minutes(5));
  ASSERT_TRUE(tokens().authenticate(first.secret));

  Ran list = peto("token list --user ana@example.com");
  ASSERT_EQ(list.code, 0) << list.out << list.err;
  auto hint = [](const std::string& secret) { return secret.substr(0, 9) + "…"; };
  // 1'800'000'000'000 ms is 2027-01-15T08:00:00Z.
  EXPECT_EQ(lines_of(list.out),
            (std::vector<std::string>{
                std::to_string(second.token.id) + "\tLaptop\twrite notes:read\t" +
                    hint(second.secret) + "\t2027-01-15T08:05:00Z\tnever",
                std::to_string(first.token.id) + "\tPhone\tread\t" + hint(first.secret) +
                    "\t2027-01-15T08:00:00Z\t2027-01-15T08:10:00Z",
            }))
      << list.out;
  EXPECT_EQ(list.out.find("peto_" + first.secret.substr(5, 20)), std::string::npos);

  Ran revoke = peto("token revoke --user ana@example.com --id " + std::to_string(first.token.id));
  EXPECT_EQ(revoke.code, 0) << revoke.out << revoke.err;
  EXPECT_FALSE(tokens().authenticate(first.secret));
  EXPECT_TRUE(tokens().authenticate(second.secret));
  Ran after = peto("token list --user ana@example.com");
  ASSERT_EQ(lines_of(after.out).size(), 1u) << after.out;
  EXPECT_EQ(after.out.rfind(std::to_string(second.token.id) + "\tLaptop", 0), 0u) << after.out;

  // Again, someone else's, unknown: one line, exit 2, nothing changes.
  for (std::int64_t id : {first.token.id, bens.token.id, std::int64_t{999999}}) {
    Ran r = peto("token revoke --user ana@example.com --id " + std::to_string(id));
    EXPECT_EQ(r.code, 2) << id << r.out << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  }
  EXPECT_TRUE(tokens().authenticate(bens.secret));
  EXPECT_EQ(peto("token list --user nobody@example.com").code, 2);
}

PETO_BOTH_BACKENDS(TokenCommandTest);

TEST(TokenCommandHelp, ListsEveryScope) {
  std::string out;
  ASSERT_EQ(testing::run_command(testing::peto_binary() + " token create --help", &out), 0) << out;
  for (const auto& scope : domain::all_scopes())
    EXPECT_NE(out.find(" " + scope), std::string::npos) << scope << "\n" << out;
}

}  // namespace
}  // namespace peto
