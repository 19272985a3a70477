// The simulation's children: a scheduler and a worker, each the engine peto
// runs (engine::Scheduler with steps::all(), engine::Worker), on the run's
// ScaledClock, in a process of its own that the driver may kill -9 at any
// moment. They are this binary started again with "child scheduler" or
// "child worker"; everything else comes from the environment the driver set
// (PETO_* as for peto itself, PETO_SIM_* for the clock and the journal).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "app/app.h"
#include "app/signals.h"
#include "engine/pass.h"
#include "engine/worker.h"
#include "net/http.h"
#include "steps/all.h"
#include "tests/sim/sim.h"

namespace peto::sim {

namespace {

std::int64_t env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::strtoll(v, nullptr, 10) : 0;
}

ScaledClock clock_from_env() {
  return ScaledClock(env_int("PETO_SIM_WALL0"), env_int("PETO_SIM_MONO0"),
                     static_cast<int>(env_int("PETO_SIM_SCALE")));
}

// Appends one line to the run's journal: "<simulated ms> <pid> <what> <epoch>".
// O_APPEND writes of one short line are whole, whatever the other processes
// write at the same moment.
class Journal {
 public:
  Journal() : fd_(::open(std::getenv("PETO_SIM_JOURNAL"), O_WRONLY | O_APPEND | O_CREAT, 0600)) {}
  ~Journal() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(Millis at, const std::string& what, std::int64_t epoch) {
    std::string line = std::to_string(at) + " " + std::to_string(::getpid()) + " " + what + " " +
                       std::to_string(epoch) + "\n";
    if (fd_ >= 0 && ::write(fd_, line.data(), line.size()) < 0) std::perror("journal");
  }

 private:
  int fd_;
};

std::optional<app::App> load(const ScaledClock& clock) {
  auto loaded = app::load(true);
  if (!loaded) return std::nullopt;
  loaded->clock = &clock;
  if (loaded->open_db() != 0) return std::nullopt;
  return loaded;
}

}  // namespace

int scheduler_child() {
  const ScaledClock clock = clock_from_env();
  auto app = load(clock);
  if (!app) return 1;
  Journal journal;
  engine::Scheduler::Options options;  // peto's defaults: every 300 s, a 600 s lease
  options.heartbeat_path = app->config.scheduler_heartbeat();
  engine::Scheduler scheduler(*app->db, clock, app->config, options, steps::all());
  // The lease as the database gave it: from when it was confirmed (taken or
  // renewed) until it was released.
  engine::Scheduler::Observer observer;
  // "acquired" is read after the statement (the earliest the lease can be
  // said to be ours), "confirmed" before it (the lease runs out that long after).
  observer.acquired = [&](std::int64_t e) { journal.write(clock.now_ms(), "acquired", e); };
  observer.confirmed = [&](std::int64_t e, Millis at) { journal.write(at, "confirmed", e); };
  observer.releasing = [&](std::int64_t e) { journal.write(clock.now_ms(), "releasing", e); };
  scheduler.set_observer(observer);
  app::StopSignals signals;
  std::mt19937 random(static_cast<unsigned>(::getpid()));
  while (!signals.stopping()) {
    try {
      scheduler.run_pass();
    } catch (const std::exception& e) {
      std::cerr << "sim scheduler " << ::getpid() << ": pass failed: " << e.what() << "\n";
    }
    // Passes follow each other closely (10–30 simulated seconds apart), so
    // that the schedulers overlap all the time.
    signals.wait_for(std::chrono::milliseconds(150 + random() % 350));
  }
  return 0;
}

int worker_child() {
  const ScaledClock clock = clock_from_env();
  auto app = load(clock);
  if (!app) return 1;
  const std::string effect_url = std::getenv("PETO_SIM_TASK_URL");
  net::HttpClient http;
  engine::TaskKinds kinds;
  // The task's effect is a request to the driver, which records it: what a
  // real task does to the outside world, and what must not happen twice.
  engine::TaskKind effect;
  effect.name = kEffectTask;
  effect.handler = [&](const engine::Task& task) -> Result<std::string> {
    net::HttpRequest req;
    req.method = "POST";
    req.url = effect_url + "?task=" + std::to_string(task.id) +
              "&attempt=" + std::to_string(task.attempt) + "&pid=" + std::to_string(::getpid());
    req.allow_private = true;
    req.timeout = std::chrono::seconds(5);
    auto got = http.send(req);
    if (auto* r = std::get_if<net::HttpResponse>(&got); r && r->status / 100 == 2)
      return std::string();
    return Status::unavailable("the effect was not recorded");
  };
  kinds.add(std::move(effect));
  engine::Worker::Options options;  // peto's defaults: a 300 s lease, renewed every 100 s
  options.concurrency = 4;
  options.every = std::chrono::milliseconds(200);
  options.idle_ceiling = std::chrono::milliseconds(1000);
  options.grace = std::chrono::seconds(5);
  options.heartbeat_path = app->config.worker_heartbeat();
  if (app->db->dialect() == store::Dialect::postgres) options.listen_url = app->config.database_url;
  engine::Worker worker(*app->db, clock, kinds, options);
  app::StopSignals signals;
  const auto unhook = signals.on_stop([&worker] { worker.stop(); });
  if (!worker.run()) std::_Exit(0);  // handlers still running: end now, as peto work does
  return 0;
}

}  // namespace peto::sim
