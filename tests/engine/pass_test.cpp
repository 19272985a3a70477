// The pass runner: order, error isolation, lost lease, summary, heartbeat.
#include "engine/pass.h"

#include <fstream>

#include "core/log.h"
#include "engine/claim.h"
#include "engine/gate.h"
#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

// A step whose function returns a Result with worded figures.
class WordedStep final : public engine::Step {
 public:
  WordedStep(std::string id, std::function<engine::StepResult()> fn)
      : id_(std::move(id)), fn_(std::move(fn)) {}
  std::string_view id() const override { return id_; }
  engine::StepResult run(engine::PassContext&) override { return fn_(); }

 private:
  std::string id_;
  std::function<engine::StepResult()> fn_;
};

constexpr engine::Figure kWritten{"written", "backup written", "{n} backups written"};

using namespace std::chrono_literals;
using testing::LambdaStep;
using testing::step_list;

class PassTest : public testing::EngineTest {
 protected:
  engine::Scheduler::Options options() {
    engine::Scheduler::Options o;
    o.every = 300s;
    o.heartbeat_path = (dir() / "scheduler-heartbeat").string();
    return o;
  }
  bool heartbeat_written() { return engine::read_heartbeat(options().heartbeat_path).has_value(); }
};

TEST_P(PassTest, RunsStepsInOrderAndWritesTheHeartbeatLast) {
  std::vector<std::string> order;
  auto record = [&](const char* id) {
    return std::make_unique<LambdaStep>(id, [&order, id, this](engine::PassContext&) {
      order.push_back(id);
      EXPECT_FALSE(heartbeat_written()) << "the heartbeat comes after every step";
      return engine::Counts{};
    });
  };
  engine::Scheduler s(db(), clock_, config_, options(), step_list(record("a"), record("b")));
  auto report = s.run_pass();
  EXPECT_EQ(report.outcome, engine::PassReport::Outcome::ran);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(engine::read_heartbeat(options().heartbeat_path), clock_.now_ms());
  EXPECT_EQ(report.pass_id.rfind("pass-", 0), 0u);
}

TEST_P(PassTest, FailingStepIsLoggedTheRestRunAndNoHeartbeat) {
  std::vector<std::string> lines;
  log::set_test_sink([&](const std::string& l) { lines.push_back(l); });
  bool later_ran = false;
  engine::Scheduler s(
      db(), clock_, config_, options(),
      step_list(std::make_unique<LambdaStep>("broken",
                                             [](engine::PassContext&) -> engine::Counts {
                                               throw std::runtime_error("disk on fire");
                                             }),
                std::make_unique<LambdaStep>("later", [&](engine::PassContext&) {
                  later_ran = true;
                  return engine::Counts{{"done", 1}};
                })));
  auto report = s.run_pass();
  log::set_test_sink(nullptr);
  EXPECT_EQ(report.outcome, engine::PassReport::Outcome::failed);
  EXPECT_TRUE(later_ran) << "one failing step never ends the pass";
  EXPECT_FALSE(heartbeat_written()) << "a failed pass writes no heartbeat";
  bool logged = false;
  for (const auto& l : lines) {
    auto j = nlohmann::json::parse(l);
    if (j["level"] == "error" && j["step"] == "broken" && j["error"] == "disk on fire") {
      logged = true;
      EXPECT_EQ(j["scope"], report.pass_id) << "the line names its pass";
    }
  }
  EXPECT_TRUE(logged);
  // The lease was released all the same: the next pass starts at once.
  EXPECT_NE(s.run_pass().outcome, engine::PassReport::Outcome::skipped);
}

TEST_P(PassTest, HeldLeaseSkipsThePassWithoutHeartbeat) {
  engine::PassLease other(db(), clock_);
  ASSERT_TRUE(other.acquire(600s));
  bool ran = false;
  engine::Scheduler s(db(), clock_, config_, options(),
                      step_list(std::make_unique<LambdaStep>("a", [&](engine::PassContext&) {
                        ran = true;
                        return engine::Counts{};
                      })));
  auto report = s.run_pass();
  EXPECT_EQ(report.outcome, engine::PassReport::Outcome::skipped);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(heartbeat_written());
}

// docs/SPEC.md §3.2: the work outside the lease (the scheduled backup) comes after the
// lease is released and before the summary and the heartbeat, and also runs
// when another scheduler holds the lease (it claims its own work).
TEST_P(PassTest, WorkOutsideTheLeaseRunsAfterReleaseAndBeforeTheHeartbeat) {
  auto o = options();
  std::vector<bool> lease_free_then;
  o.after_lease.push_back(std::make_shared<WordedStep>("backup", [&] {
    if (lease_free_then.empty()) {
      EXPECT_FALSE(heartbeat_written()) << "the heartbeat comes after the work outside the lease";
    }
    engine::PassLease probe(db(), clock_);
    auto held = probe.acquire(60s);
    lease_free_then.push_back(held.has_value());
    if (held) probe.release(*held);
    engine::StepResult r{kWritten};
    r.add(kWritten);
    return r;
  }));
  engine::Scheduler s(db(), clock_, config_, o,
                      step_list(std::make_unique<LambdaStep>(
                          "a", [](engine::PassContext&) { return engine::Counts{}; })));
  auto report = s.run_pass();
  EXPECT_EQ(report.outcome, engine::PassReport::Outcome::ran);
  EXPECT_TRUE(heartbeat_written());
  EXPECT_EQ(report.summary_lines(), (std::vector<std::string>{"backup written"}));
  ASSERT_EQ(report.to_json()["after_lease"].size(), 1u);
  EXPECT_EQ(report.to_json()["after_lease"][0]["id"], "backup");
  EXPECT_EQ(report.to_json()["after_lease"][0]["counts"]["written"], 1);

  engine::PassLease other(db(), clock_);
  ASSERT_TRUE(other.acquire(600s));
  auto skipped = s.run_pass();
  EXPECT_EQ(skipped.outcome, engine::PassReport::Outcome::skipped);
  EXPECT_EQ(skipped.summary_lines(), (std::vector<std::string>{"backup written"}));
  EXPECT_EQ(lease_free_then, (std::vector<bool>{true, false}))
      << "the first call found the lease released; the second ran while another pass held it";
}

// A pass that takes longer than its lease (a step blocked on a test hook)
// loses it to another scheduler, stops before its next step, and says so.
TEST_P(PassTest, PassThatOutlivesItsLeaseStopsBeforeTheNextStep) {
  std::vector<std::string> lines;
  log::set_test_sink([&](const std::string& l) { lines.push_back(l); });
  bool next_ran = false;
  engine::Scheduler* self = nullptr;
  engine::PassReport second;
  auto other_steps = step_list(
      std::make_unique<LambdaStep>("other", [](engine::PassContext&) { return engine::Counts{}; }));
  engine::Scheduler other(db(), clock_, config_, options(), std::move(other_steps));
  engine::Scheduler s(
      db(), clock_, config_, options(),
      step_list(std::make_unique<LambdaStep>("slow",
                                             [&](engine::PassContext&) {
                                               clock_.advance(self->lease_ttl() + 1s);
                                               // Another scheduler starts meanwhile.
                                               second = other.run_pass();
                                               clock_.advance(1s);
                                               return engine::Counts{};
                                             }),
                std::make_unique<LambdaStep>("next", [&](engine::PassContext&) {
                  next_ran = true;
                  return engine::Counts{};
                })));
  self = &s;
  auto report = s.run_pass();
  log::set_test_sink(nullptr);
  EXPECT_EQ(second.outcome, engine::PassReport::Outcome::ran) << "the lease had run out";
  EXPECT_EQ(report.outcome, engine::PassReport::Outcome::lost_lease);
  EXPECT_FALSE(next_ran);
  EXPECT_EQ(engine::read_heartbeat(options().heartbeat_path), clock_.now_ms() - 1000)
      << "only the other pass wrote a heartbeat";
  bool said = false;
  for (const auto& l : lines)
    if (l.find("taken over") != std::string::npos &&
        l.find("\"next_step\":\"next\"") != std::string::npos)
      said = true;
  EXPECT_TRUE(said) << "the pass says why it stopped";
}

TEST_P(PassTest, SummaryAndJson) {
  static constexpr engine::Figure kDue{"due", "{n} reminder due", "{n} reminders due"};
  static constexpr engine::Figure kDeliveries{"deliveries", "{n} delivery", "{n} deliveries"};
  auto counting = std::make_unique<WordedStep>("reminders", [] {
    engine::StepResult r{kDue, kDeliveries};
    r.add(kDue, 3);
    return r;
  });
  auto quiet =
      std::make_unique<LambdaStep>("quiet", [](engine::PassContext&) { return engine::Counts{}; });
  engine::Scheduler s(db(), clock_, config_, options(),
                      step_list(std::move(counting), std::move(quiet)));
  auto report = s.run_pass();
  EXPECT_EQ(report.summary_lines(), std::vector<std::string>{"3 reminders due"})
      << "a figure of 0 and one without words are not summarised";
  auto j = report.to_json();
  EXPECT_EQ(j["outcome"], "ran");
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][0]["id"], "reminders");
  EXPECT_EQ(j["steps"][0]["counts"]["due"], 3);
  EXPECT_EQ(j["steps"][0]["counts"]["deliveries"], 0) << "every declared figure is reported";
  EXPECT_TRUE(j["steps"][1].contains("duration_ms"));
}

TEST_P(PassTest, LeaseTtlIsTwiceEveryButAtLeastAMinute) {
  auto o = options();
  o.every = 10s;
  EXPECT_EQ(engine::Scheduler(db(), clock_, config_, o, {}).lease_ttl(), 60s);
  o.every = 300s;
  EXPECT_EQ(engine::Scheduler(db(), clock_, config_, o, {}).lease_ttl(), 600s);
  o.every = 1s;  // floors at 10 s
  EXPECT_EQ(engine::Scheduler(db(), clock_, config_, o, {}).lease_ttl(), 60s);
}

// Seed docs/RULES.md #576, test 2: a sync connection claimed by one pass is not run by an
// overlapping pass. The sync step here is a test double with the real
// mechanisms: the turn claim on synced_at and the per-connection key lease.
TEST_P(PassTest, ClaimedConnectionIsNotRunByAnOverlappingPass) {
  db().query("CREATE TABLE test_sync (id INTEGER PRIMARY KEY, synced_at BIGINT)");
  db().query("INSERT INTO test_sync (id, synced_at) VALUES (1, NULL)");
  int plugin_calls = 0;
  std::function<void()> during_sync;
  auto sync_step = [&] {
    return std::make_unique<LambdaStep>("syncs", [&](engine::PassContext& ctx) {
      engine::Counts c;
      Millis interval = 3600'000;
      auto due = ctx.db.query(
          "SELECT id, synced_at FROM test_sync WHERE synced_at IS NULL OR synced_at <= ?",
          {ctx.clock.now_ms() - interval});
      for (const auto& row : due) {
        if (!engine::claim_on_value(ctx.db, "test_sync", row.int_at(0), "synced_at", row[1],
                                    static_cast<long long>(ctx.clock.now_ms())))
          continue;  // claimed by another run
        auto guard = engine::KeyLease::take(ctx.cache, "sync:" + row.text(0), 15min);
        if (!guard) continue;  // already running
        ++plugin_calls;
        ++c["ran"];
        if (during_sync) std::exchange(during_sync, nullptr)();
      }
      return c;
    });
  };
  engine::Scheduler second(db(), clock_, config_, options(), step_list(sync_step()));
  engine::PassReport overlapping;
  during_sync = [&] {
    clock_.advance(11min);  // the first pass overruns its lease mid-sync
    overlapping = second.run_pass();
  };
  engine::Scheduler first(db(), clock_, config_, options(), step_list(sync_step()));
  first.run_pass();
  EXPECT_EQ(overlapping.outcome, engine::PassReport::Outcome::ran) << "the passes did overlap";
  EXPECT_EQ(plugin_calls, 1) << "the connection ran once";
}

PETO_BOTH_BACKENDS(PassTest);

}  // namespace
}  // namespace peto
