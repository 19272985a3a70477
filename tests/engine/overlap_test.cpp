// Several schedulers at once on one database: at most one pass holds the
// lease at any instant, and every claimed item is claimed once.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "engine/claim.h"
#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

using testing::LambdaStep;
using testing::step_list;

class OverlapTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    db().query(
        "CREATE TABLE test_passes (epoch BIGINT PRIMARY KEY, pid BIGINT NOT NULL,"
        " acquired_at BIGINT NOT NULL, released_at BIGINT)");
    db().query("CREATE TABLE test_items (id INTEGER PRIMARY KEY, claimed_by BIGINT)");
    db().query("CREATE TABLE test_claims (item BIGINT PRIMARY KEY, pid BIGINT NOT NULL)");
    store::with_write(*db().acquire(), [](store::Conn& c) {
      for (int i = 1; i <= 300; ++i) c.query("INSERT INTO test_items (id) VALUES (?)", {i});
    });
  }

  // One scheduler process: `rounds` passes as fast as it can go.
  static int child(const std::string& url, const Config& config, int rounds) {
    auto db = store::Db::open(url, 2);
    long long pid = ::getpid();
    auto claim_step = std::make_unique<LambdaStep>("claims", [&](engine::PassContext& ctx) {
      engine::Counts c;
      auto rows =
          ctx.db.query("SELECT id FROM test_items WHERE claimed_by IS NULL ORDER BY id LIMIT 10");
      for (const auto& row : rows) {
        if (!engine::claim_on_value(ctx.db, "test_items", row.int_at(0), "claimed_by", store::null,
                                    pid))
          continue;
        // A second claim of one item would break this primary key.
        ctx.db.query("INSERT INTO test_claims (item, pid) VALUES (?, ?)", {row.int_at(0), pid});
        ++c["claimed"];
      }
      return c;
    });
    engine::Scheduler::Options o;
    engine::Scheduler s(*db, system_clock(), config, o, step_list(std::move(claim_step)));
    s.set_observer(
        {[&](std::int64_t epoch) {
           db->query("INSERT INTO test_passes (epoch, pid, acquired_at) VALUES (?, ?, now_ms())",
                     {epoch, pid});
         },
         [&](std::int64_t epoch) {
           db->query("UPDATE test_passes SET released_at = now_ms() WHERE epoch = ?", {epoch});
         },
         nullptr});
    for (int i = 0; i < rounds; ++i) {
      auto r = s.run_pass();
      if (r.outcome == engine::PassReport::Outcome::failed ||
          r.outcome == engine::PassReport::Outcome::lost_lease)
        return 1;
    }
    return 0;
  }

  void run_schedulers(int n, int rounds) {
    int failed = testing::run_in_processes(
        n, [&](int) { return child(url(), config_, rounds); }, dir());
    EXPECT_EQ(failed, 0) << "a scheduler process failed";
  }

  void check_invariants() {
    auto passes = db().query(
        "SELECT epoch, acquired_at, released_at FROM test_passes ORDER BY acquired_at, epoch");
    ASSERT_FALSE(passes.empty());
    Millis last_release = 0;
    std::int64_t last_epoch = 0;
    for (const auto& p : passes) {
      ASSERT_FALSE(p.is_null(2)) << "every pass released its lease";
      EXPECT_GE(p.int_at(1), last_release)
          << "pass " << p.int_at(0) << " overlapped the one before";
      EXPECT_GT(p.int_at(0), last_epoch) << "epochs grow with time";
      last_release = p.int_at(2);
      last_epoch = p.int_at(0);
    }
    auto claimed =
        db().query("SELECT COUNT(*) FROM test_items WHERE claimed_by IS NOT NULL")[0].int_at(0);
    auto recorded = db().query("SELECT COUNT(*) FROM test_claims")[0].int_at(0);
    EXPECT_EQ(claimed, recorded) << "every claimed item counted once";
    EXPECT_GT(claimed, 0);
  }
};

TEST_P(OverlapTest, TwoSchedulersTwentyRounds) {
  run_schedulers(2, 20);
  check_invariants();
}

TEST_P(OverlapTest, FourSchedulersTwentyRounds) {
  run_schedulers(4, 20);
  check_invariants();
}

// The real command, started several times at once: each exits 0, having run
// its pass or left it to the one that holds the lease, and the heartbeat is
// then fresh for `peto healthcheck scheduler`.
TEST_P(OverlapTest, ConcurrentScheduleCommandsAllExitZero) {
  std::string env = "env PETO_DATABASE_URL='" + url() + "' PETO_DATA_DIR='" + dir().string() +
                    "' PETO_LOG_LEVEL=warning ";
  std::string cmd;
  for (int i = 0; i < 4; ++i)
    cmd += env + testing::peto_binary() + " schedule > " +
           (dir() / ("out" + std::to_string(i))).string() + " 2>&1 & ";
  cmd += "\nfail=0; for j in $(jobs -p); do wait $j || fail=1; done; exit $fail\n";
  std::ofstream(dir() / "run.sh") << cmd;
  std::string out;
  EXPECT_EQ(testing::run_command("bash " + (dir() / "run.sh").string(), &out), 0) << out;
  int ran = 0;
  for (int i = 0; i < 4; ++i) {
    std::ifstream in(dir() / ("out" + std::to_string(i)));
    std::string text((std::istreambuf_iterator<char>(in)), {});
    bool nothing = text.find("Nothing due.") != std::string::npos;
    bool left =
        text.find("Another scheduler is mid-pass; leaving this one to it.") != std::string::npos;
    EXPECT_TRUE(nothing || left) << text;
    ran += nothing;
  }
  EXPECT_GE(ran, 1);
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " healthcheck scheduler", &out), 0)
      << out;
}

TEST_P(OverlapTest, HealthcheckFailsWithoutAFreshHeartbeat) {
  std::string env = "env PETO_DATABASE_URL='" + url() + "' PETO_DATA_DIR='" + dir().string() + "' ";
  std::string out;
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " healthcheck scheduler", &out), 1)
      << out;
  // 300 s passes: allowed 2 × 300 + 60 = 660 s. An 11-minute-old heartbeat is fine, 12 is not.
  ASSERT_TRUE(
      engine::write_heartbeat(config_.scheduler_heartbeat(), system_clock().now_ms() - 650'000));
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " healthcheck scheduler", &out), 0)
      << out;
  ASSERT_TRUE(
      engine::write_heartbeat(config_.scheduler_heartbeat(), system_clock().now_ms() - 720'000));
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " healthcheck scheduler", &out), 1)
      << out;
  EXPECT_EQ(testing::run_command(env + testing::peto_binary() + " healthcheck scheduler --every 60",
                                 &out),
            1)
      << out;
}

PETO_BOTH_BACKENDS(OverlapTest);

}  // namespace
}  // namespace peto
