// The task queue: claims, leases, finishes filtered by the claim, rescue,
// retries, idempotency keys, pruning.
#include "engine/queue.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <thread>

#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

using namespace std::chrono_literals;
using engine::NewTask;
using engine::Queue;
using engine::Task;

class QueueTest : public testing::EngineTest {
 protected:
  std::string state_of(std::int64_t id) {
    return db().query("SELECT state FROM tasks WHERE id = ?", {static_cast<long long>(id)})[0].text(
        0);
  }
};

TEST_P(QueueTest, EnqueueClaimFinish) {
  Queue q(db(), clock_);
  auto id = q.enqueue({"noop", R"({"n":1})"});
  auto claimed = q.claim("default", "w1", 10, 5min);
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, id);
  EXPECT_EQ(claimed[0].attempt, 1);
  EXPECT_EQ(claimed[0].payload, R"({"n":1})");
  EXPECT_TRUE(q.claim("default", "w2", 10, 5min).empty()) << "a running task is not claimed again";
  EXPECT_TRUE(q.finish(claimed[0], "w1", "ok"));
  EXPECT_EQ(state_of(id), "done");
}

TEST_P(QueueTest, ClaimTakesOnlyDueTasksOfItsQueueInOrder) {
  Queue q(db(), clock_);
  engine::EnqueueOptions later;
  later.run_at = clock_.now_ms() + 60'000;
  engine::EnqueueOptions other;
  other.queue = "mail";
  auto a = q.enqueue({"noop"});
  q.enqueue({"noop", "{}", later});
  q.enqueue({"noop", "{}", other});
  auto b = q.enqueue({"noop"});
  auto claimed = q.claim("default", "w", 10, 5min);
  ASSERT_EQ(claimed.size(), 2u);
  EXPECT_EQ(claimed[0].id, a);
  EXPECT_EQ(claimed[1].id, b);
  clock_.advance(61s);
  EXPECT_EQ(q.claim("default", "w", 10, 5min).size(), 1u) << "due now";
  EXPECT_EQ(q.claim("mail", "w", 10, 5min).size(), 1u);
}

TEST_P(QueueTest, LateFinishCannotOverwriteANewerAttempt) {
  Queue q(db(), clock_);
  auto id = q.enqueue({"noop"});
  auto first = q.claim("default", "w1", 1, 1min);
  ASSERT_EQ(first.size(), 1u);
  clock_.advance(2min);  // w1 hangs past its lease
  EXPECT_EQ(q.rescue_expired(), 1);
  auto second = q.claim("default", "w2", 1, 1min);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].attempt, 2);
  EXPECT_FALSE(q.finish(first[0], "w1")) << "the first attempt's late finish is refused";
  EXPECT_FALSE(q.fail(first[0], "w1", "late", {}, 0.5)) << "and so is its late failure";
  EXPECT_EQ(state_of(id), "running");
  EXPECT_TRUE(q.finish(second[0], "w2"));
  EXPECT_EQ(state_of(id), "done");
}

TEST_P(QueueTest, RescueLeavesFinishedAndRenewedTasksAlone) {
  Queue q(db(), clock_);
  q.enqueue({"noop"});
  q.enqueue({"noop"});
  auto claimed = q.claim("default", "w1", 2, 1min);
  ASSERT_EQ(claimed.size(), 2u);
  ASSERT_TRUE(q.finish(claimed[0], "w1"));
  clock_.advance(50s);
  EXPECT_EQ(q.renew("w1", 1min), 1) << "only the running one is renewed";
  clock_.advance(50s);
  EXPECT_EQ(q.rescue_expired(), 0) << "renewed: still within its lease";
  EXPECT_EQ(state_of(claimed[0].id), "done");
  clock_.advance(11s);
  EXPECT_EQ(q.rescue_expired(), 1);
  EXPECT_EQ(state_of(claimed[1].id), "available");
}

TEST_P(QueueTest, BackoffAndFinalFailureFollowTheSchedule) {
  Queue q(db(), clock_);
  engine::EnqueueOptions o;
  o.max_attempts = 3;
  auto id = q.enqueue({"flaky", "{}", o});
  engine::Backoff backoff{10s, 1h, 0.25};
  std::vector<std::chrono::milliseconds> expected = {10s, 20s};
  for (int attempt = 1; attempt <= 3; ++attempt) {
    auto claimed = q.claim("default", "w", 1, 1min);
    ASSERT_EQ(claimed.size(), 1u) << "attempt " << attempt;
    EXPECT_EQ(claimed[0].attempt, attempt);
    ASSERT_TRUE(q.fail(claimed[0], "w", "boom", backoff, /*jitter unit*/ 1.0));
    if (attempt == 3) break;
    // Jitter at its top: +25 %.
    auto wait = expected[attempt - 1] * 5 / 4;
    clock_.advance(wait - 1s);
    EXPECT_TRUE(q.claim("default", "w", 1, 1min).empty()) << "not due before the backoff";
    clock_.advance(1s);
  }
  EXPECT_EQ(state_of(id), "failed") << "attempts spent: failed, not retried for ever";
  clock_.advance(24h);
  EXPECT_TRUE(q.claim("default", "w", 1, 1min).empty());
  auto error = db().query("SELECT error FROM tasks WHERE id = ?", {static_cast<long long>(id)});
  EXPECT_EQ(error[0].text(0), "boom");
}

TEST(Backoff, DoublesCapsAndJitters) {
  engine::Backoff b{10s, 60s, 0.5};
  EXPECT_EQ(b.delay(1, 0.5), 10s);
  EXPECT_EQ(b.delay(2, 0.5), 20s);
  EXPECT_EQ(b.delay(3, 0.5), 40s);
  EXPECT_EQ(b.delay(4, 0.5), 60s) << "capped";
  EXPECT_EQ(b.delay(1, 0.0), 5s);
  EXPECT_EQ(b.delay(1, 1.0), 15s);
}

TEST_P(QueueTest, ErrandsAreNeverRetried) {
  Queue q(db(), clock_);
  engine::EnqueueOptions o;
  o.owner = 7;
  auto id = q.enqueue({"export", "{}", o});
  auto claimed = q.claim("default", "w", 1, 1min);
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].max_attempts, 1);
  EXPECT_EQ(claimed[0].owner, 7);
  clock_.advance(2min);  // its worker died
  EXPECT_EQ(q.rescue_expired(), 1);
  EXPECT_EQ(state_of(id), "failed");
  auto error = db().query("SELECT error FROM tasks WHERE id = ?", {static_cast<long long>(id)});
  EXPECT_EQ(error[0].text(0), "interrupted, please try again");
}

TEST_P(QueueTest, ErrandsWaitingADayAreFailedAsInterrupted) {
  Queue q(db(), clock_);
  engine::EnqueueOptions o;
  o.owner = 7;
  o.queue = "nobody-works-here";
  auto old_one = q.enqueue({"export", "{}", o});
  clock_.advance(23h);
  auto young = q.enqueue({"export", "{}", o});
  clock_.advance(2h);
  EXPECT_EQ(q.fail_interrupted_errands(24h), 1);
  EXPECT_EQ(state_of(old_one), "failed");
  EXPECT_EQ(state_of(young), "available");
}

TEST_P(QueueTest, CancelAndRelease) {
  Queue q(db(), clock_);
  auto a = q.enqueue({"noop"});
  auto b = q.enqueue({"noop"});
  EXPECT_TRUE(q.cancel(a));
  EXPECT_FALSE(q.cancel(a));
  auto claimed = q.claim("default", "w", 5, 1min);
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, b);
  EXPECT_TRUE(q.release(claimed[0], "w"));
  auto again = q.claim("default", "w", 5, 1min);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempt, 1) << "a given-back task's unmade attempt is not counted";
}

TEST_P(QueueTest, IdempotencyKeyMakesOneLiveTask) {
  Queue q(db(), clock_);
  engine::EnqueueOptions o;
  o.idempotency_key = "export:7";
  auto a = q.enqueue({"export", "{}", o});
  EXPECT_EQ(q.enqueue({"export", "{}", o}), a);
  auto claimed = q.claim("default", "w", 1, 1min);
  EXPECT_EQ(q.enqueue({"export", "{}", o}), a) << "still unfinished while running";
  ASSERT_TRUE(q.finish(claimed[0], "w"));
  EXPECT_NE(q.enqueue({"export", "{}", o}), a) << "finished: the key is free again";
}

TEST_P(QueueTest, HundredConcurrentEnqueuesWithOneKeyMakeOneTask) {
  std::vector<std::unique_ptr<store::Db>> dbs;
  for (int i = 0; i < 4; ++i) dbs.push_back(open_again(4));
  std::vector<std::thread> threads;
  std::mutex mu;
  std::set<std::int64_t> ids;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Queue q(*dbs[t], system_clock());
      engine::EnqueueOptions o;
      o.idempotency_key = "one";
      for (int i = 0; i < 25; ++i) {
        auto id = q.enqueue({"noop", "{}", o});
        std::lock_guard lock(mu);
        ids.insert(id);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM tasks")[0].int_at(0), 1);
}

TEST_P(QueueTest, BatchEnqueueAndBatchFinish) {
  Queue q(db(), clock_);
  std::vector<NewTask> tasks(50, NewTask{"noop"});
  auto ids = q.enqueue_batch(tasks);
  ASSERT_EQ(ids.size(), 50u);
  auto claimed = q.claim("default", "w", 100, 1min);
  ASSERT_EQ(claimed.size(), 50u);
  auto stale = claimed[0];
  stale.attempt = 9;  // not our claim
  std::vector<Task> finish(claimed.begin() + 1, claimed.end());
  finish.push_back(stale);
  EXPECT_EQ(q.finish_batch(finish, "w"), 49);
  EXPECT_EQ(q.finish_batch({claimed[0]}, "someone-else"), 0);
  EXPECT_EQ(state_of(claimed[0].id), "running");
}

TEST_P(QueueTest, PrunesFinishedTasksAfterSevenDays) {
  Queue q(db(), clock_);
  auto finish_one = [&](bool ok) {
    auto id = q.enqueue({"noop"});
    auto c = q.claim("default", "w", 1, 1min);
    if (ok)
      q.finish(c[0], "w");
    else
      q.fail(c[0], "w", "x", {}, 0.5, /*give_up=*/true);
    return id;
  };
  auto eight_days_old = finish_one(true);
  auto failed_eight = finish_one(false);
  clock_.advance(48h);
  auto six_days_old = finish_one(true);
  engine::EnqueueOptions idle;
  idle.queue = "idle";
  auto waiting = q.enqueue({"noop", "{}", idle});
  clock_.advance(6 * 24h);
  EXPECT_EQ(q.prune_finished(7 * 24h, /*batch=*/1), 2);
  auto left = db().query("SELECT id FROM tasks ORDER BY id");
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].int_at(0), six_days_old);
  EXPECT_EQ(left[1].int_at(0), waiting);
  (void)eight_days_old;
  (void)failed_eight;
}

PETO_BOTH_BACKENDS(QueueTest);

}  // namespace
}  // namespace peto
