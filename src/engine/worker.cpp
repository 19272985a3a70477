#include "engine/worker.h"

#include <algorithm>

#include "core/log.h"
#include "engine/heartbeat.h"
#include "engine/lease.h"
#include "store/postgres/pg_listen.h"

namespace peto::engine {

using namespace std::chrono_literals;

void TaskKinds::add(TaskKind kind) {
  std::string name = kind.name;
  kinds_[name] = std::move(kind);
}

const TaskKind* TaskKinds::find(const std::string& name) const {
  auto it = kinds_.find(name);
  return it == kinds_.end() ? nullptr : &it->second;
}

NewTask TaskKinds::with_defaults(NewTask task) const {
  if (task.options.max_attempts <= 0 && !task.options.owner) {
    if (const auto* k = find(task.kind)) task.options.max_attempts = k->max_attempts;
  }
  return task;
}

struct Worker::Listener {
  std::unique_ptr<store::PgListener> pg;
};

Worker::Worker(store::Db& db, const Clock& clock, const TaskKinds& kinds, Options options)
    : db_(db),
      clock_(clock),
      kinds_(kinds),
      options_(std::move(options)),
      queue_(db, clock),
      owner_("worker-" + random_token()),
      listener_(std::make_unique<Listener>()) {
  options_.concurrency = std::max(1, options_.concurrency);
  if (options_.local_queue <= 0) options_.local_queue = 4 * options_.concurrency;
  if (!options_.listen_url.empty()) {
    try {
      listener_->pg = std::make_unique<store::PgListener>(options_.listen_url);
      listener_->pg->listen(Queue::kNotifyChannel);
    } catch (const std::exception& e) {
      log::warn("worker", "cannot LISTEN for new tasks; polling instead", {{"error", e.what()}});
      listener_->pg.reset();
    }
  }
}

Worker::~Worker() {
  stopping_ = true;
  work_cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void Worker::say_started() {
  if (said_started_) return;
  said_started_ = true;
  log::info("worker", "worker started",
            {{"queue", options_.queue}, {"concurrency", options_.concurrency}, {"owner", owner_}});
}

void Worker::start_threads() {
  if (threads_started_) return;
  threads_started_ = true;
  for (int i = 0; i < options_.concurrency; ++i) threads_.emplace_back([this] { thread_main(); });
}

void Worker::thread_main() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [&] { return !local_.empty() || stopping_; });
      // Once stopping, nothing new starts: run() gives the rest back.
      if (stopping_ || local_.empty()) return;
      task = std::move(local_.front());
      local_.pop_front();
      ++running_;
    }
    execute(task);
  }
}

void Worker::execute(const Task& task) {
  log::Scope scope("task-" + std::to_string(task.id));
  Result<std::string> result = Status::internal("not run");
  const TaskKind* kind = kinds_.find(task.kind);
  if (!kind) {
    result = Status::invalid("no task kind '" + task.kind + "' is registered");
  } else {
    try {
      result = kind->handler(task);
    } catch (const std::exception& e) {
      result = Status::internal(e.what());
    }
  }
  std::lock_guard lock(mu_);
  --running_;
  outcomes_.push_back({task, std::move(result)});
  done_cv_.notify_all();
}

int Worker::flush() {
  std::vector<Outcome> outcomes;
  {
    std::lock_guard lock(mu_);
    outcomes.swap(outcomes_);
  }
  if (outcomes.empty()) return 0;
  try {
    record(outcomes);
  } catch (...) {
    // The database went away: keep every outcome for the next flush. Those
    // already written are filtered by (id, attempt, owner) the second time.
    std::lock_guard lock(mu_);
    outcomes_.insert(outcomes_.begin(), std::make_move_iterator(outcomes.begin()),
                     std::make_move_iterator(outcomes.end()));
    throw;
  }
  std::lock_guard lock(mu_);
  for (auto& o : outcomes) (o.result ? stats_.done : stats_.failed)++;
  return static_cast<int>(outcomes.size());
}

void Worker::record(const std::vector<Outcome>& outcomes) {
  std::vector<Task> plain;
  for (auto& o : outcomes) {
    if (o.result && o.result->empty()) {
      plain.push_back(o.task);
    } else if (o.result) {
      queue_.finish(o.task, owner_, *o.result);
    } else {
      const TaskKind* kind = kinds_.find(o.task.kind);
      Backoff backoff = kind ? kind->backoff : Backoff{};
      double unit = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
      bool given_back = queue_.fail(o.task, owner_, o.result.status().message(), backoff, unit,
                                    /*give_up=*/kind == nullptr);
      log::warn("worker", "task failed",
                {{"task", o.task.id},
                 {"kind", o.task.kind},
                 {"attempt", o.task.attempt},
                 {"of", o.task.max_attempts},
                 {"error", o.result.status().message()},
                 {"recorded", given_back}});
    }
  }
  queue_.finish_batch(plain, owner_);
}

void Worker::upkeep() {
  auto now = clock_.mono();
  if (!last_heartbeat_ || now - *last_heartbeat_ >= 1min) {
    if (!options_.heartbeat_path.empty()) {
      if (Status s = write_heartbeat(options_.heartbeat_path, clock_.now_ms()); !s)
        log::warn("worker", "could not write the heartbeat", {{"error", s.message()}});
      std::lock_guard lock(mu_);
      ++stats_.heartbeats;
    }
    last_heartbeat_ = now;
  }
  if (last_rescue_ == std::chrono::steady_clock::time_point{} ||
      now - last_rescue_ >= options_.lease / 2) {
    if (auto n = queue_.rescue_expired())
      log::warn("worker", "rescued tasks whose worker stopped answering", {{"tasks", n}});
    last_rescue_ = now;  // only once done: a database away means trying again next loop
  }
  bool holding;
  {
    std::lock_guard lock(mu_);
    holding = running_ > 0 || !local_.empty();
  }
  if (holding && now - last_renew_ >= options_.lease / 3) {
    queue_.renew(owner_, options_.lease);
    last_renew_ = now;
  }
}

int Worker::claim_into_local() {
  int room;
  bool idle;
  {
    std::lock_guard lock(mu_);
    int in_flight = static_cast<int>(local_.size()) + running_ + static_cast<int>(outcomes_.size());
    room = options_.local_queue - in_flight;
    idle = in_flight == 0;
  }
  // While busy, claim only once a thread's worth of room has opened: one
  // statement for many tasks rather than one for each.
  if (room <= 0 || stopping_ || (!idle && room < options_.concurrency)) return 0;
  auto tasks = queue_.claim(options_.queue, owner_, room, options_.lease);
  if (tasks.empty()) return 0;
  {
    std::lock_guard lock(mu_);
    for (auto& t : tasks) local_.push_back(std::move(t));
    if (last_renew_ == std::chrono::steady_clock::time_point{}) last_renew_ = clock_.mono();
  }
  work_cv_.notify_all();
  return static_cast<int>(tasks.size());
}

int Worker::run_pass() {
  say_started();
  {
    std::lock_guard lock(mu_);
    ++stats_.passes;
  }
  upkeep();
  int claimed = claim_into_local();
  if (claimed == 0) return 0;
  start_threads();
  int handled = 0;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      done_cv_.wait_for(
          lock, std::chrono::milliseconds(std::max<long long>(10, options_.lease.count() / 3)),
          [&] { return local_.empty() && running_ == 0; });
    }
    handled += flush();
    std::lock_guard lock(mu_);
    if (local_.empty() && running_ == 0 && outcomes_.empty()) break;
  }
  return handled + flush();
}

// Waits `delay` of the worker's clock, in real-time slices of at most a
// second so that stop(), wake() and a moved clock are seen within one.
void Worker::idle_wait(std::chrono::milliseconds delay) {
  {
    std::lock_guard lock(mu_);
    ++stats_.idle_waits;
  }
  auto until = clock_.mono() + delay;
  while (!stopping_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock_.mono());
    if (left <= 0ms) return;
    auto slice = std::min<std::chrono::milliseconds>(left, 1s);
    if (listener_->pg) {
      if (listener_->pg->wait(slice)) return;
      std::lock_guard lock(mu_);
      if (woken_) {
        woken_ = false;
        return;
      }
    } else {
      std::unique_lock lock(mu_);
      if (done_cv_.wait_for(lock, slice, [&] { return woken_ || stopping_.load(); })) {
        woken_ = false;
        return;
      }
    }
  }
}

// Finishes in batches: once a thread's worth of outcomes is waiting, or the
// oldest has waited a few milliseconds, or nothing else is in flight.
void Worker::flush_if_due() {
  std::unique_lock lock(mu_);
  bool drained = running_ == 0 && local_.empty();
  bool due = outcomes_.size() >= static_cast<std::size_t>(options_.concurrency) || drained ||
             std::chrono::steady_clock::now() - last_flush_ >= kFlushDelay;
  lock.unlock();
  if (due) {
    flush();
    last_flush_ = std::chrono::steady_clock::now();
  }
}

bool Worker::wait_while_busy() {
  std::unique_lock lock(mu_);
  // Outcomes of tasks that ended after flush_if_due() looked are flushed on
  // the next turn, not left waiting through an idle wait.
  if (running_ == 0 && local_.empty() && outcomes_.empty()) return false;
  // Full or draining: wait for an outcome to flush.
  done_cv_.wait_for(lock, kFlushDelay, [&] {
    return outcomes_.size() >= static_cast<std::size_t>(options_.concurrency) ||
           (running_ == 0 && local_.empty()) || stopping_.load();
  });
  return true;
}

// The idle wait: until the next task is due, at most `idle`.
void Worker::wait_for_work(std::chrono::milliseconds idle) {
  auto delay = idle;
  if (auto due = queue_.next_due(options_.queue)) {
    auto until_due = std::chrono::milliseconds(std::max<Millis>(0, *due - clock_.now_ms()));
    delay = std::min(delay, until_due);
  }
  idle_wait(delay);
}

bool Worker::run() {
  say_started();
  start_threads();
  auto idle = options_.every;
  auto outage = kFirstOutageWait;
  while (!stopping_) try {
      {
        std::lock_guard lock(mu_);
        ++stats_.passes;
      }
      upkeep();
      flush_if_due();
      int claimed = claim_into_local();
      outage = kFirstOutageWait;  // the database answered
      if (claimed > 0) {
        idle = options_.every;
        continue;
      }
      if (wait_while_busy()) continue;
      wait_for_work(idle);
      idle = std::min(idle * 2, options_.idle_ceiling);
    } catch (const std::exception& e) {
      // The database is out of reach (restarting, say): what is running goes
      // on, outcomes wait, and the worker tries again, less often as it lasts.
      log::warn("worker", "the database is out of reach; trying again",
                {{"error", e.what()}, {"in_ms", static_cast<std::int64_t>(outage.count())}});
      idle_wait(outage);
      outage = std::min(outage * 2, kLastOutageWait);
    }
  return shut_down();
}

bool Worker::shut_down() {
  try {
    give_back_unstarted();
  } catch (const std::exception& e) {
    log::warn("worker", "could not give back the tasks not started", {{"error", e.what()}});
  }
  {
    std::unique_lock lock(mu_);
    done_cv_.wait_for(lock, options_.grace, [&] { return running_ == 0; });
  }
  try {
    flush();
  } catch (const std::exception& e) {
    log::warn("worker", "could not record the last outcomes", {{"error", e.what()}});
  }
  std::lock_guard lock(mu_);
  work_cv_.notify_all();
  if (running_ > 0) {
    // Their leases run out and the tasks are rescued; this process is ending.
    log::warn("worker", "tasks still running after the grace period", {{"tasks", running_}});
    for (auto& t : threads_) t.detach();
    threads_.clear();
    return false;
  }
  return true;
}

void Worker::give_back_unstarted() {
  std::deque<Task> unstarted;
  {
    std::lock_guard lock(mu_);
    unstarted.swap(local_);
  }
  for (const auto& t : unstarted) queue_.release(t, owner_);
  if (!unstarted.empty())
    log::info("worker", "gave back tasks not yet started", {{"tasks", unstarted.size()}});
}

void Worker::stop() {
  stopping_ = true;
  work_cv_.notify_all();
  done_cv_.notify_all();
}

void Worker::wake() {
  std::lock_guard lock(mu_);
  woken_ = true;
  done_cv_.notify_all();
}

Worker::Stats Worker::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace peto::engine
