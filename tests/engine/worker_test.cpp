// The worker: exactly-once handling across processes, rescue after kill -9,
// quiet logging and heartbeats (docs/RULES.md #1117), LISTEN/NOTIFY wake-ups, graceful stop.
#include "engine/worker.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "core/log.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/eventually.h"

namespace peto {
namespace {

using namespace std::chrono_literals;
using engine::NewTask;
using engine::Queue;

// Waits (polling) up to 20 s, the worker tests' deadline, until `done` says yes.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds deadline = 20s) {
  return testing::eventually(done, deadline);
}

engine::TaskKinds recording_kinds(store::Db& db) {
  engine::TaskKinds kinds;
  engine::TaskKind record;
  record.name = "record";
  record.handler = [&db](const engine::Task& t) -> Result<std::string> {
    db.query("INSERT INTO handled (task_id, pid) VALUES (?, ?)",
             {static_cast<long long>(t.id), static_cast<long long>(getpid())});
    return std::string();
  };
  kinds.add(record);
  return kinds;
}

class WorkerTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    db().query("CREATE TABLE handled (task_id BIGINT NOT NULL, pid BIGINT NOT NULL)");
  }
  engine::Worker::Options options() {
    engine::Worker::Options o;
    o.concurrency = 2;
    o.lease = 1min;
    return o;
  }
};

TEST_P(WorkerTest, FourWorkerProcessesHandleEachOfTenThousandTasksOnce) {
  constexpr int kTasks = 10'000, kWorkers = 4;
  Queue q(db(), system_clock());  // the workers run on the real clock
  std::vector<NewTask> batch;
  for (int i = 0; i < kTasks; ++i) {
    batch.emplace_back("record");
    if (batch.size() == 1000) q.enqueue_batch(std::exchange(batch, {}));
  }
  int failed = testing::run_in_processes(
      kWorkers,
      [&](int) {
        auto own = store::Db::open(url(), 6);
        auto kinds = recording_kinds(*own);
        auto o = options();
        o.concurrency = 4;
        engine::Worker worker(*own, system_clock(), kinds, o);
        while (worker.run_pass() > 0) {
        }
        return 0;
      },
      dir());
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM handled")[0].int_at(0), kTasks);
  EXPECT_EQ(db().query("SELECT COUNT(DISTINCT task_id) FROM handled")[0].int_at(0), kTasks)
      << "every task handled exactly once";
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM tasks WHERE state <> 'done'")[0].int_at(0), 0);
  EXPECT_GT(db().query("SELECT COUNT(DISTINCT pid) FROM handled")[0].int_at(0), 1)
      << "the work was shared";
}

TEST_P(WorkerTest, KilledWorkersTaskIsRescuedAndDoneOnce) {
  db().query("CREATE TABLE started (task_id BIGINT NOT NULL)");
  Queue q(db(), system_clock());  // the worker runs on the real clock
  auto id = q.enqueue({"hang"});
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto own = store::Db::open(url(), 4);
    engine::TaskKinds kinds;
    engine::TaskKind hang;
    hang.name = "hang";
    hang.handler = [&own](const engine::Task& t) -> Result<std::string> {
      own->query("INSERT INTO started (task_id) VALUES (?)", {static_cast<long long>(t.id)});
      for (;;) pause();  // mid-task until killed
    };
    kinds.add(hang);
    engine::Worker worker(*own, system_clock(), kinds, options());
    worker.run_pass();
    _exit(0);
  }
  ASSERT_TRUE(
      eventually([&] { return db().query("SELECT COUNT(*) FROM started")[0].int_at(0) == 1; }));
  auto claim = db().query("SELECT attempt, lease_owner FROM tasks WHERE id = ?",
                          {static_cast<long long>(id)});
  engine::Task first;
  first.id = id;
  first.attempt = static_cast<int>(claim[0].int_at(0));
  first.max_attempts = 5;
  std::string first_owner = claim[0].text(1);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);

  FakeClock later(system_clock().now_ms() + 30'000);
  Queue at_30s(db(), later);
  EXPECT_EQ(at_30s.rescue_expired(), 0) << "not before its lease runs out";
  later.advance(31s);
  EXPECT_EQ(at_30s.rescue_expired(), 1) << "rescued after its lease";

  engine::TaskKinds kinds;
  engine::TaskKind hang;
  hang.name = "hang";
  hang.handler = [this](const engine::Task& t) -> Result<std::string> {
    db().query("INSERT INTO handled (task_id, pid) VALUES (?, 0)", {static_cast<long long>(t.id)});
    return std::string();
  };
  kinds.add(hang);
  engine::Worker other(db(), later, kinds, options());
  EXPECT_EQ(other.run_pass(), 1);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM handled")[0].int_at(0), 1)
      << "done once by another worker";
  EXPECT_FALSE(at_30s.finish(first, first_owner)) << "the first attempt's late finish is refused";
  auto row =
      db().query("SELECT state, attempt FROM tasks WHERE id = ?", {static_cast<long long>(id)});
  EXPECT_EQ(row[0].text(0), "done");
  EXPECT_EQ(row[0].int_at(1), 2);
}

// docs/RULES.md #1117: 100 idle passes two seconds apart write one "started" line and at
// most four heartbeats.
TEST_P(WorkerTest, HundredIdlePassesLogOnceAndBeatAtMostFourTimes) {
  std::vector<std::string> lines;
  log::configure(log::Level::info, log::Format::json);
  log::set_test_sink([&](const std::string& l) { lines.push_back(l); });
  engine::TaskKinds kinds;
  auto o = options();
  o.heartbeat_path = (dir() / "worker-heartbeat").string();
  engine::Worker worker(db(), clock_, kinds, o);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(worker.run_pass(), 0);
    clock_.advance(2s);
  }
  log::set_test_sink(nullptr);
  EXPECT_EQ(lines.size(), 1u);
  EXPECT_NE(lines.at(0).find("worker started"), std::string::npos);
  EXPECT_EQ(worker.stats().heartbeats, 4) << "first pass, then at 60, 120 and 180 s";
  EXPECT_EQ(engine::read_heartbeat(o.heartbeat_path), clock_.now_ms() - 200'000 + 180'000);
}

TEST_P(WorkerTest, FailedTaskIsRetriedLaterAndUnknownKindFailsAtOnce) {
  engine::TaskKinds kinds;
  engine::TaskKind flaky;
  flaky.name = "flaky";
  flaky.handler = [](const engine::Task&) -> Result<std::string> {
    return Status::unavailable("server said 503");
  };
  flaky.backoff = {10s, 1h, 0.0};
  kinds.add(flaky);
  Queue q(db(), clock_);
  auto a = q.enqueue(kinds.with_defaults({"flaky"}));
  auto b = q.enqueue({"mystery"});
  engine::Worker worker(db(), clock_, kinds, options());
  EXPECT_EQ(worker.run_pass(), 2);
  auto ra = db().query("SELECT state, attempt, error, run_at FROM tasks WHERE id = ?",
                       {static_cast<long long>(a)});
  EXPECT_EQ(ra[0].text(0), "available");
  EXPECT_EQ(ra[0].text(2), "server said 503");
  EXPECT_EQ(ra[0].int_at(3), clock_.now_ms() + 10'000);
  auto rb = db().query("SELECT state, error FROM tasks WHERE id = ?", {static_cast<long long>(b)});
  EXPECT_EQ(rb[0].text(0), "failed");
  EXPECT_NE(rb[0].text(1).find("no task kind 'mystery'"), std::string::npos);
  EXPECT_EQ(worker.run_pass(), 0) << "not due before its backoff";
  clock_.advance(10s);
  EXPECT_EQ(worker.run_pass(), 1);
}

// The idle wait is measured on the worker's clock: a task due in a minute is
// started once the clock passes it, not after a minute of real time.
TEST_P(WorkerTest, IdleWaitFollowsTheWorkersClock) {
  auto kinds = recording_kinds(db());
  auto o = options();
  o.every = 1min;
  o.idle_ceiling = 1h;
  Queue q(db(), clock_);
  engine::EnqueueOptions in_a_minute;
  in_a_minute.run_at = clock_.now_ms() + 60'000;
  q.enqueue({"record", "{}", in_a_minute});
  engine::Worker worker(db(), clock_, kinds, o);
  std::thread runner([&] { worker.run(); });
  ASSERT_TRUE(eventually([&] { return worker.stats().idle_waits >= 1; }));
  auto handled = [&] { return db().query("SELECT COUNT(*) AS n FROM handled")[0].int_at("n"); };
  EXPECT_EQ(handled(), 0);
  clock_.advance(60s);
  bool done = eventually([&] { return handled() == 1; }, 5s);
  worker.stop();
  runner.join();
  EXPECT_TRUE(done) << "the worker waits out its clock's minute, not a real one";
}

// An idle worker polling only every 10 s still starts a new task at once:
// NOTIFY on PostgreSQL, wake() within one process.
TEST_P(WorkerTest, IdleWorkerIsWokenAtOnce) {
  auto kinds = recording_kinds(db());
  auto o = options();
  o.every = 10s;
  o.idle_ceiling = 60s;
  if (postgres()) o.listen_url = url();
  engine::Worker worker(db(), system_clock(), kinds, o);
  std::thread runner([&] { worker.run(); });
  // Let it go idle (its first empty claim and the wait after it), then enqueue.
  ASSERT_TRUE(eventually([&] { return worker.stats().idle_waits >= 1; }));
  auto started = std::chrono::steady_clock::now();
  Queue(db(), system_clock()).enqueue({"record"});
  if (!postgres()) worker.wake();
  bool done =
      eventually([&] { return db().query("SELECT COUNT(*) FROM handled")[0].int_at(0) == 1; }, 5s);
  auto took = std::chrono::steady_clock::now() - started;
  worker.stop();
  runner.join();
  EXPECT_TRUE(done);
  EXPECT_LT(took, 5s) << "woken, not waiting out the 10 s poll";
}

// A database that goes away under a running worker (a restart: its
// connections are cut) is waited out, not the end of the worker. Found by the
// simulation (tests/sim), where `peto work` ended on std::terminate.
TEST_P(WorkerTest, WorkerOutlivesItsConnectionsBeingCut) {
  if (!postgres()) GTEST_SKIP() << "a SQLite file does not go away under its connections";
  const std::string name = "peto_worker_cut_" + std::to_string(::getpid());
  auto own = store::Db::open(url() + "&application_name=" + name, 2);
  auto kinds = recording_kinds(db());
  auto o = options();
  o.every = 50ms;
  o.idle_ceiling = 200ms;
  engine::Worker worker(*own, system_clock(), kinds, o);
  std::string ended;
  std::thread runner([&] {
    try {
      worker.run();
    } catch (const std::exception& e) {
      ended = e.what();
    }
  });
  EXPECT_TRUE(eventually([&] { return worker.stats().passes >= 1; }));
  auto cut = [&] {
    return db()
        .query(
            "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = ?",
            {name})[0]
        .int_at(0);
  };
  EXPECT_GT(cut(), 0) << "the worker's connections were cut";
  Queue(db(), system_clock()).enqueue({"record"});
  bool done =
      eventually([&] { return db().query("SELECT COUNT(*) FROM handled")[0].int_at(0) == 1; }, 20s);
  worker.stop();
  runner.join();
  EXPECT_TRUE(done) << "the task was done once the database answered again";
  EXPECT_EQ(ended, "") << "run() ended on the lost connection";
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM tasks WHERE state = 'done'")[0].int_at(0), 1);
}

TEST_P(WorkerTest, StopGivesBackUnstartedTasksAndFinishesRunningOnes) {
  std::atomic<bool> release{false};
  std::atomic<int> began{0};
  engine::TaskKinds kinds;
  engine::TaskKind slow;
  slow.name = "slow";
  slow.handler = [&](const engine::Task&) -> Result<std::string> {
    ++began;
    while (!release) std::this_thread::sleep_for(1ms);
    return std::string();
  };
  kinds.add(slow);
  Queue q(db(), system_clock());
  auto first = q.enqueue({"slow"});
  auto second = q.enqueue({"slow"});
  auto third = q.enqueue({"slow"});
  auto o = options();
  o.concurrency = 1;
  engine::Worker worker(db(), system_clock(), kinds, o);
  bool clean = false;
  std::thread runner([&] { clean = worker.run(); });
  ASSERT_TRUE(eventually([&] { return began.load() == 1; }));
  worker.stop();
  release = true;
  runner.join();
  EXPECT_TRUE(clean);
  EXPECT_EQ(began.load(), 1);
  auto state = [&](std::int64_t id) {
    return db().query("SELECT state, attempt FROM tasks WHERE id = ?",
                      {static_cast<long long>(id)})[0];
  };
  EXPECT_EQ(state(first).text(0), "done");
  EXPECT_EQ(state(second).text(0), "available");
  EXPECT_EQ(state(second).int_at(1), 0) << "given back unspent";
  EXPECT_EQ(state(third).text(0), "available");
}

PETO_BOTH_BACKENDS(WorkerTest);

}  // namespace
}  // namespace peto
