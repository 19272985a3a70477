// Queue: background work as rows of the tasks table (docs/SPEC.md §4).
//
// A task is (kind, queue, payload JSON) with a state: available → running →
// done | failed | cancelled. enqueue() writes it; a worker claims a batch
// (running, attempt + 1, a lease owned by the worker's token until
// lease_expires_at), renews the lease while it works, and finishes each task
// with finish() or fail(). Both are filtered by (id, attempt, owner token), so
// a late finisher whose lease ran out can never overwrite a newer attempt.
//
// A task whose lease ran out (its worker died) is rescued: put back as
// available, or failed when its attempts are spent, in one statement that
// matches only rows still running past their lease, so a task finished in the
// meantime is never touched (the rescuer race of River #1302). Retries back
// off exponentially with jitter; a task that exhausts max_attempts is failed.
//
// An idempotency key is unique among unfinished tasks: enqueueing with a key
// that an available or running task has returns that task's id instead.
//
// Errands are tasks with an owner (the person who asked): max_attempts 1, so
// they are never retried, and they are failed as interrupted when still
// unfinished after 24 h (fail_interrupted_errands).
//
// Times are the database's clock (the Clock's pinned time in tests). All
// methods are thread-safe; each runs one statement or one transaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::engine {

struct EnqueueOptions {
  std::string queue = "default";
  std::optional<Millis> run_at;       // default: now
  int max_attempts = 0;               // 0: the kind's default
  std::string idempotency_key;        // "" = none
  std::optional<std::int64_t> owner;  // set for errands
};

struct NewTask {
  NewTask(std::string kind_in, std::string payload_in = "{}", EnqueueOptions options_in = {})
      : kind(std::move(kind_in)), payload(std::move(payload_in)), options(std::move(options_in)) {}
  std::string kind;
  std::string payload;  // JSON text
  EnqueueOptions options;
};

struct Task {
  std::int64_t id = 0;
  std::string kind;
  std::string queue;
  std::string payload;
  int attempt = 0;
  int max_attempts = 0;
  std::optional<std::int64_t> owner;
};

// An errand as its page shows it.
struct Errand {
  std::int64_t id = 0;
  std::string kind;
  std::string payload;
  std::string state;   // available, running, done, failed, cancelled
  std::string result;  // what the handler returned, when done
  std::string error;   // why, when failed
};

struct Backoff {
  std::chrono::milliseconds base{10'000};  // first retry after about this long
  std::chrono::milliseconds cap{3'600'000};
  double jitter = 0.25;  // ± this fraction
  // Delay before the retry that follows failed attempt `attempt` (1-based):
  // base × 2^(attempt−1), capped, then jittered by `unit` in [0, 1).
  std::chrono::milliseconds delay(int attempt, double unit) const;
};

class Queue {
 public:
  static constexpr int kDefaultMaxAttempts = 5;
  static constexpr const char* kNotifyChannel = "peto_tasks";

  Queue(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}

  // What /metrics shows of the queue table.
  struct Stats {
    struct Count {
      std::string group;  // the queue, or the kind for finished tasks
      std::string state;
      std::int64_t count = 0;
    };
    std::vector<Count> by_queue;  // every task, by queue and state
    std::vector<Count> finished;  // done and failed tasks kept, by kind and state
    std::map<std::string, Millis> oldest_available;  // queue → run_at of its oldest due task
  };
  Stats stats() const;

  // Returns the task's id (an existing one for a live idempotency key).
  std::int64_t enqueue(const NewTask& task);
  // The same on `conn`, inside the caller's transaction: the task exists
  // exactly when the caller's other writes do.
  std::int64_t enqueue_in(store::Conn& conn, const NewTask& task);
  // Several tasks in one transaction; ids in the same order.
  std::vector<std::int64_t> enqueue_batch(const std::vector<NewTask>& tasks);

  // Claims up to `limit` due tasks of `queue` for `owner` for `lease`.
  std::vector<Task> claim(const std::string& queue, const std::string& owner, int limit,
                          std::chrono::milliseconds lease);
  // Extends the lease of every task `owner` is running; returns how many.
  std::int64_t renew(const std::string& owner, std::chrono::milliseconds lease);
  // True if the task was still ours (same attempt, same owner, running).
  bool finish(const Task& task, const std::string& owner, const std::string& result = "");
  // Several finished tasks of one owner in one statement; returns how many
  // were still ours.
  std::int64_t finish_batch(const std::vector<Task>& tasks, const std::string& owner);
  // Retries after the backoff, or fails for good when attempts are spent
  // (or at once with `give_up`, for an error no retry can mend).
  bool fail(const Task& task, const std::string& owner, const std::string& error,
            const Backoff& backoff, double jitter_unit, bool give_up = false);
  // Gives a task back untouched (a worker stopping): available at once, and
  // the attempt it did not make is not counted.
  bool release(const Task& task, const std::string& owner);
  // Cancels a task that has not finished; true if it was cancelled.
  bool cancel(std::int64_t id);
  // Rescues tasks whose lease ran out; returns how many.
  std::int64_t rescue_expired();
  // The time the next available task of `queue` falls due, if any.
  std::optional<Millis> next_due(const std::string& queue);

  // Deletes every task of `owner` (their errands: exports, imports, captures)
  // on `conn`, inside the caller's transaction; returns how many. A worker
  // holding one finds it gone when it reports, and reports nothing.
  static std::int64_t forget_owner_in(store::Conn& conn, std::int64_t owner);

  // Upkeep: deletes finished (done, failed, cancelled) tasks older than
  // `age`, `batch` rows a statement; returns how many.
  std::int64_t prune_finished(std::chrono::milliseconds age, int batch = 1000);
  // Upkeep: fails errands still unfinished `age` after they were asked for.
  std::int64_t fail_interrupted_errands(std::chrono::milliseconds age);

  // `owner`'s errand `id`; nullopt for anybody else's or a pruned one.
  std::optional<Errand> errand(std::int64_t owner, std::int64_t id) const;
  // How many of `owner`'s errands of a kind in `kinds` wait or run.
  std::int64_t unfinished_errands(std::int64_t owner, const std::vector<std::string>& kinds) const;

  static std::vector<store::Migration> migrations();

 private:
  std::optional<std::int64_t> insert(store::Conn& c, const NewTask& task);
  store::Db& db_;
  const Clock& clock_;
};

}  // namespace peto::engine
