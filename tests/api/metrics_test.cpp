// /metrics reads what the scheduler and the queue left in the database.
#include "api/metrics.h"

#include "engine/queue.h"
#include "steps/all.h"
#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

using namespace std::chrono_literals;

class MetricsTest : public testing::EngineTest {};

TEST_P(MetricsTest, SchedulerAndQueueFigures) {
  engine::Scheduler::Options o;
  engine::Scheduler s(db(), clock_, config_, o, steps::all());
  ASSERT_EQ(s.run_pass().outcome, engine::PassReport::Outcome::ran);
  engine::PassLease lease(db(), clock_);
  clock_.advance(11min);
  ASSERT_TRUE(lease.acquire(1min));  // not released: the next one is a takeover
  clock_.advance(2min);
  ASSERT_TRUE(lease.acquire(1min));

  engine::Queue q(db(), clock_);
  q.enqueue({"noop"});
  q.enqueue({"noop"});
  auto claimed = q.claim("default", "w", 1, 1min);
  q.finish(claimed[0], "w");
  clock_.advance(30s);

  std::string text = web::render_metrics({&db(), &clock_});
  EXPECT_NE(text.find("peto_up 1"), std::string::npos) << text;
  EXPECT_NE(text.find("peto_scheduler_last_pass_timestamp_seconds 1800000000"), std::string::npos)
      << text;
  EXPECT_NE(text.find("peto_scheduler_step_count{step=\"sweep\",count=\"walks\"} 0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("peto_scheduler_lease_takeovers_total 1"), std::string::npos) << text;
  EXPECT_NE(text.find("peto_scheduler_passes_total 3"), std::string::npos) << text;
  EXPECT_NE(text.find("peto_tasks{queue=\"default\",state=\"available\"} 1"), std::string::npos)
      << text;
  EXPECT_NE(text.find("peto_tasks_oldest_available_age_seconds{queue=\"default\"} 30"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("peto_tasks_finished{kind=\"noop\",state=\"done\"} 1"), std::string::npos)
      << text;
}

TEST(MetricsDown, UnreadableDatabaseSaysPetoUpZero) {
  std::string text = web::render_metrics({nullptr, nullptr});
  EXPECT_NE(text.find("\npeto_up 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("peto_scheduler"), std::string::npos) << text;
}

PETO_BOTH_BACKENDS(MetricsTest);

}  // namespace
}  // namespace peto
