// Worker: claims tasks from the queue and runs their handlers.
//
// Task kinds are registered by name with a handler and their defaults. A
// worker has a random owner token; it claims batches into a small local queue
// that `concurrency` threads drain, renews the leases of what it holds, and
// finishes tasks in batches. A handler returns a result or an error Status,
// or throws: an error is retried with the kind's backoff until its attempts
// are spent. A task of a kind nobody registered fails at once.
//
// Idle, the worker waits: on PostgreSQL LISTEN peto_tasks wakes it the moment
// a task is enqueued; polling backs off from `every` to `idle_ceiling`, and
// never sleeps past the next task that falls due. It rescues tasks whose lease
// ran out (their worker died) about twice a lease.
//
// Quiet (docs/RULES.md #1117): "worker started" is logged once per Worker; its heartbeat
// file is written on the first pass and then at most once a minute on the
// monotonic clock.
//
// A database that goes away (a restart) does not end run(): the error is
// logged, outcomes wait in memory, and it tries again after 0.5 s, doubling to
// 15 s while the outage lasts. Leases that run out meanwhile are rescued as
// after a crash.
//
// stop() (from any thread): no more claims; tasks not started go back to the
// queue at once; running ones get `grace` to finish, and what is still running
// after that is given back too.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "engine/queue.h"

namespace peto::engine {

using TaskHandler = std::function<Result<std::string>(const Task&)>;

struct TaskKind {
  std::string name;
  TaskHandler handler;
  int max_attempts = Queue::kDefaultMaxAttempts;
  Backoff backoff;
};

class TaskKinds {
 public:
  void add(TaskKind kind);
  const TaskKind* find(const std::string& name) const;
  // Fills a new task's defaults from its kind (max attempts).
  NewTask with_defaults(NewTask task) const;

 private:
  std::map<std::string, TaskKind> kinds_;
};

class Worker {
 public:
  struct Options {
    std::string queue = "default";
    int concurrency = 4;
    int local_queue = 0;  // tasks claimed ahead; 0 = 4 × concurrency
    std::chrono::milliseconds every{2000};
    std::chrono::milliseconds idle_ceiling{60'000};
    std::chrono::milliseconds lease{300'000};
    std::chrono::milliseconds grace{30'000};
    std::string heartbeat_path;  // empty: none
    std::string listen_url;      // a postgres:// URL: LISTEN for new tasks
  };

  struct Stats {
    std::int64_t done = 0;
    std::int64_t failed = 0;  // attempts that ended in an error
    std::int64_t passes = 0;
    std::int64_t heartbeats = 0;  // heartbeat files written
    std::int64_t idle_waits = 0;  // waits begun with nothing to do (run() only)
  };

  Worker(store::Db& db, const Clock& clock, const TaskKinds& kinds, Options options);
  ~Worker();

  // One pass: rescue if due, claim what fits, run it all, finish it; returns
  // how many tasks it handled. `peto work --once` and tests use it.
  int run_pass();
  // Passes until stop(). Returns true if every task was finished or given
  // back; false if a handler was still running after the grace period.
  bool run();
  void stop();
  // A hint that tasks were enqueued (the web or scheduler in this process).
  void wake();

  Stats stats() const;
  const std::string& owner() const { return owner_; }

 private:
  struct Outcome {
    Task task;
    Result<std::string> result;
  };
  void start_threads();
  void thread_main();
  void execute(const Task& task);
  // Records the outcomes waiting; on a database error they wait on and it throws.
  int flush();
  void record(const std::vector<Outcome>& outcomes);
  void upkeep();
  int claim_into_local();
  void idle_wait(std::chrono::milliseconds delay);
  void flush_if_due();
  // Waits a little for an outcome when tasks are running or claimed; false
  // when the worker is idle (nothing claimed, running or left to record).
  bool wait_while_busy();
  void wait_for_work(std::chrono::milliseconds idle);
  // After stop(): gives back what did not start, waits the grace period and
  // records the last outcomes; false when tasks were still running.
  bool shut_down();
  void give_back_unstarted();
  void say_started();

  store::Db& db_;
  const Clock& clock_;
  const TaskKinds& kinds_;
  Options options_;
  Queue queue_;
  std::string owner_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // local queue has tasks, or stopping
  std::condition_variable done_cv_;  // an outcome arrived, or wake()
  std::deque<Task> local_;
  std::vector<Outcome> outcomes_;
  int running_ = 0;
  bool woken_ = false;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
  bool threads_started_ = false;

  Stats stats_;
  bool said_started_ = false;
  std::optional<std::chrono::steady_clock::time_point> last_heartbeat_;
  std::chrono::steady_clock::time_point last_rescue_{};
  std::chrono::steady_clock::time_point last_renew_{};
  std::chrono::steady_clock::time_point last_flush_{};
  static constexpr std::chrono::milliseconds kFlushDelay{5};
  // Waits between tries while the database is out of reach.
  static constexpr std::chrono::milliseconds kFirstOutageWait{500};
  static constexpr std::chrono::milliseconds kLastOutageWait{15'000};
  std::mt19937_64 rng_{std::random_device{}()};
  struct Listener;
  std::unique_ptr<Listener> listener_;
};

}  // namespace peto::engine
