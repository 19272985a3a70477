// The scrub on real documents with the clock moved: 1,000 uploads made
// through media::Documents, PETO_SCRUB_EVERY_DAYS=7. New uploads are read
// first, 25 a pass; then none is read again for seven days after its check;
// then 25 a pass again, oldest check first. A damaged file is recorded and
// left exactly as it is. (steps_test.cpp covers the slice order on bare rows.)
#include <filesystem>
#include <fstream>
#include <sstream>

#include "domain/accounts.h"
#include "media/documents.h"
#include "steps/scrub.h"
#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

using namespace std::chrono_literals;

class ScrubDocumentsTest : public testing::EngineTest {
 protected:
  std::int64_t checked(engine::Scheduler& s, std::int64_t* damaged = nullptr) {
    auto r = s.run_pass();
    std::int64_t n = 0;
    for (const auto& step : r.steps) {
      if (step.id != "scrub") continue;
      if (step.counts.count("checked")) n = step.counts.at("checked");
      if (damaged) *damaged = step.counts.count("damaged") ? step.counts.at("damaged") : 0;
    }
    return n;
  }
};

TEST_P(ScrubDocumentsTest, AThousandUploadsRestSevenDaysThenTwentyFiveAPass) {
  config_.scrub_every_days = 7;
  domain::set_password_cost(domain::PasswordCost::test);
  domain::Accounts accounts(db(), clock_);
  auto owner =
      std::get<domain::Account>(accounts.create("ana@example.com", "a long password!", false)).id;
  media::Documents docs(db(), clock_, config_);
  std::vector<media::Document> made;
  for (int i = 0; i < 1000; ++i) {
    std::istringstream bytes("Letter number " + std::to_string(i) + "\n");
    auto m = docs.create_from(owner, {.title = "Letter " + std::to_string(i), .filename = "l.txt"},
                              bytes);
    ASSERT_TRUE(std::holds_alternative<media::Document>(m)) << i;
    made.push_back(std::get<media::Document>(m));
  }
  engine::Scheduler::Options o;
  o.heartbeat_path = (dir() / "hb").string();
  engine::Scheduler s(db(), clock_, config_, o,
                      testing::step_list(std::make_unique<steps::Scrub>()));
  const Millis start = clock_.now_ms();
  // Never-checked uploads first, 25 a pass: 40 passes, a minute apart.
  for (int pass = 0; pass < 40; ++pass) {
    ASSERT_EQ(checked(s), 25) << "pass " << pass;
    clock_.advance(1min);
  }
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM uploads WHERE verified_at = 0")[0].int_at(0), 0);
  // None is read again within seven days of its check.
  for (int day = 0; day < 6; ++day) {
    EXPECT_EQ(checked(s), 0) << "day " << day;
    clock_.advance(24h);
  }
  // The first one checked is changed on disk before its next check.
  const std::string first_path = docs.path_of(made.front());
  {
    std::ofstream out(first_path, std::ios::app);
    out << "changed";
  }
  clock_.set(start + 7 * 86'400'000LL - 60'000);
  EXPECT_EQ(checked(s), 0) << "a minute before seven days";
  clock_.advance(1min);
  std::int64_t damaged = 0;
  EXPECT_EQ(checked(s, &damaged), 25) << "seven days after the first slice";
  EXPECT_EQ(damaged, 1);
  EXPECT_EQ(docs.get(owner, made.front().id)->damage, "changed");
  std::ifstream in(first_path);
  std::string body((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(body, "Letter number 0\nchanged") << "the damaged file is left as it is";
  clock_.advance(1min);
  EXPECT_EQ(checked(s), 25) << "then the next slice, a minute later";
  EXPECT_EQ(checked(s), 0) << "and nothing more in the same minute";
}

PETO_BOTH_BACKENDS(ScrubDocumentsTest);

}  // namespace
}  // namespace peto
