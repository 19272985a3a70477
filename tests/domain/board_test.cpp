// What a board card says beyond its title, on both backends: since when the
// application is in its status, the soonest reminder (overdue first) or
// interview ahead, its tags; another person's applications say nothing.
#include "domain/board.h"

#include <gtest/gtest.h>

#include "domain/applications.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

constexpr std::int64_t kHour = 3600LL * 1000;

class BoardTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    apps_ = std::make_unique<Applications>(*records_);
  }

  std::int64_t create(const std::string& kind_name, json values, std::int64_t owner = 0) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    auto w = records().create(owner == 0 ? owner_ : owner, kind(kind_name), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind_name;
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }
  std::int64_t application(std::int64_t owner = 0) {
    owner = owner == 0 ? owner_ : owner;
    const auto company = create("companies", {{"name", "Acme"}}, owner);
    const auto listing = create("listings", {{"role", "SRE"}, {"company_id", company}}, owner);
    auto w = apps_->apply(owner, listing, "applied");
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }

  std::unique_ptr<Applications> apps_;
};

TEST_P(BoardTest, SinceTheLastStatusChange) {
  const auto app = application();
  const std::int64_t applied = clock_.now_ms();
  clock_.advance(std::chrono::hours(50));
  auto facts = card_facts(db(), owner_, {app}, clock_.now_ms());
  EXPECT_EQ(facts[app].stage_since, applied);

  StatusChange change;
  change.to = "interviewing";
  ASSERT_TRUE(std::holds_alternative<Record>(apps_->change_status(owner_, app, change)));
  facts = card_facts(db(), owner_, {app}, clock_.now_ms());
  EXPECT_EQ(facts[app].stage_since, clock_.now_ms());
}

TEST_P(BoardTest, TheSoonestThingAheadAnOverdueReminderFirst) {
  const auto app = application();
  const std::int64_t now = clock_.now_ms();
  EXPECT_FALSE(card_facts(db(), owner_, {app}, now)[app].next) << "nothing ahead yet";

  create("interviews",
         {{"application_id", app}, {"kind", "video"}, {"starts_at", now + 48 * kHour}});
  create("interviews",
         {{"application_id", app}, {"kind", "phone"}, {"starts_at", now - 2 * kHour}});
  auto next = card_facts(db(), owner_, {app}, now)[app].next;
  ASSERT_TRUE(next);
  EXPECT_EQ(next->kind, "interviews");
  EXPECT_EQ(next->title, "video") << "an interview already past is not ahead";

  create("reminders",
         {{"application_id", app}, {"title", "Follow up"}, {"due_at", now + 24 * kHour}});
  next = card_facts(db(), owner_, {app}, now)[app].next;
  ASSERT_TRUE(next);
  EXPECT_EQ(next->title, "Follow up");

  const auto late =
      create("reminders",
             {{"application_id", app}, {"title", "Send forms"}, {"due_at", now - 72 * kHour}});
  next = card_facts(db(), owner_, {app}, now)[app].next;
  ASSERT_TRUE(next);
  EXPECT_EQ(next->title, "Send forms");
  EXPECT_LT(next->at, now);

  ASSERT_TRUE(std::holds_alternative<Record>(apps_->set_done(owner_, late, true)));
  EXPECT_EQ(card_facts(db(), owner_, {app}, now)[app].next->title, "Follow up")
      << "a reminder done is not ahead";
}

TEST_P(BoardTest, TagsAToZAndOnlyTheOwnersApplications) {
  const auto app = application();
  const auto zeta = create("tags", {{"name", "zeta"}, {"colour", "red"}});
  const auto alpha = create("tags", {{"name", "alpha"}, {"colour", "blue"}});
  ASSERT_TRUE(std::holds_alternative<bool>(apps_->set_tags(owner_, app, {zeta, alpha})));
  auto facts = card_facts(db(), owner_, {app}, clock_.now_ms());
  ASSERT_EQ(facts[app].tags.size(), 2u);
  EXPECT_EQ(facts[app].tags[0], (std::pair<std::string, std::string>{"alpha", "blue"}));
  EXPECT_EQ(facts[app].tags[1].first, "zeta");

  const auto theirs = application(other_);
  facts = card_facts(db(), owner_, {app, theirs}, clock_.now_ms());
  EXPECT_EQ(facts.count(theirs), 0u);
  EXPECT_TRUE(card_facts(db(), owner_, {}, clock_.now_ms()).empty());
}

PETO_BOTH_BACKENDS(BoardTest);

}  // namespace
}  // namespace peto::domain
