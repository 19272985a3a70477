// peto's side of the queue benchmark (bench/queue/run drives it beside the
// peers). One run, one JSON line on stdout:
//
//   queue_bench --mode throughput --url URL --jobs N --concurrency C
//     {"system":"peto","mode":"throughput","jobs":N,"seconds":S,"jobs_per_s":R}
//   queue_bench --mode latency --url URL --concurrency C --rate R --seconds S
//     {"system":"peto","mode":"latency","count":N,"p50_ms":…,"p99_ms":…}
//   queue_bench --mode idle --url URL --seconds S
//     {"mode":"idle","event":"ready"} once the worker runs, then after S s
//     {"system":"peto","mode":"idle","seconds":S}   (the driver counts statements)
//
// Throughput: N no-op tasks are enqueued in batches of 1,000 first, then
// ANALYZE (untimed, as for the peers); the clock
// runs from the worker's start until the database shows no unfinished task.
// Latency: open-loop single enqueues at a fixed rate; enqueue call → handler
// start, on one process's steady clock. The worker is the one `peto work`
// runs (LISTEN/NOTIFY on, per-task logging off).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/app.h"
#include "core/log.h"
#include "engine/worker.h"
#include "store/migrate.h"

using namespace peto;
using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now().time_since_epoch())
      .count();
}

engine::Worker::Options worker_options(const std::string& url, int concurrency) {
  engine::Worker::Options o;
  o.concurrency = concurrency;
  o.local_queue = 500;  // as graphile-worker's performance configuration
  o.every = 2s;
  o.idle_ceiling = 60s;
  if (url.rfind("postgres", 0) == 0) o.listen_url = url;
  return o;
}

std::int64_t unfinished(store::Db& db) {
  return db.query("SELECT COUNT(*) FROM tasks WHERE state IN ('available', 'running')")[0].int_at(
      0);
}

nlohmann::json throughput(store::Db& db, const std::string& url, int jobs, int concurrency) {
  engine::Queue queue(db, system_clock());
  for (int done = 0; done < jobs;) {
    std::vector<engine::NewTask> batch;
    for (int i = 0; i < 1000 && done < jobs; ++i, ++done) batch.emplace_back("noop");
    queue.enqueue_batch(batch);
  }
  // Untimed, as for the peers: the planner sees the table as it now is.
  if (db.dialect() == store::Dialect::postgres) db.query("ANALYZE");
  engine::TaskKinds kinds;
  engine::TaskKind noop;
  noop.name = "noop";
  noop.handler = [](const engine::Task&) -> Result<std::string> { return std::string(); };
  kinds.add(noop);
  engine::Worker worker(db, system_clock(), kinds, worker_options(url, concurrency));
  auto start = Steady::now();
  std::thread runner([&] { worker.run(); });
  while (worker.stats().done < jobs) std::this_thread::sleep_for(2ms);
  while (unfinished(db) > 0) std::this_thread::sleep_for(2ms);
  double seconds = std::chrono::duration<double>(Steady::now() - start).count();
  worker.stop();
  runner.join();
  return {
      {"mode", "throughput"}, {"jobs", jobs}, {"seconds", seconds}, {"jobs_per_s", jobs / seconds}};
}

nlohmann::json latency(store::Db& db, const std::string& url, int concurrency, int rate,
                       int seconds) {
  std::mutex mu;
  std::vector<double> samples;
  engine::TaskKinds kinds;
  engine::TaskKind probe;
  probe.name = "probe";
  probe.handler = [&](const engine::Task& t) -> Result<std::string> {
    auto now = steady_ns();
    auto sent = nlohmann::json::parse(t.payload)["t"].get<std::int64_t>();
    std::lock_guard lock(mu);
    samples.push_back((now - sent) / 1e6);
    return std::string();
  };
  kinds.add(probe);
  engine::Worker worker(db, system_clock(), kinds, worker_options(url, concurrency));
  std::thread runner([&] { worker.run(); });
  std::this_thread::sleep_for(500ms);  // let it go idle, as a real worker would be
  engine::Queue queue(db, system_clock());
  auto start = Steady::now();
  int total = rate * seconds;
  for (int i = 0; i < total; ++i) {
    std::this_thread::sleep_until(start + std::chrono::nanoseconds(1'000'000'000LL * i / rate));
    queue.enqueue({"probe", nlohmann::json{{"t", steady_ns()}}.dump()});
  }
  auto deadline = Steady::now() + 30s;
  while (Steady::now() < deadline) {
    std::lock_guard lock(mu);
    if (static_cast<int>(samples.size()) >= total) break;
  }
  worker.stop();
  runner.join();
  std::sort(samples.begin(), samples.end());
  auto pct = [&](double p) {
    return samples.empty() ? 0.0
                           : samples[std::min(samples.size() - 1,
                                              static_cast<std::size_t>(p * samples.size()))];
  };
  return {
      {"mode", "latency"}, {"count", samples.size()}, {"p50_ms", pct(0.50)}, {"p99_ms", pct(0.99)}};
}

nlohmann::json idle(store::Db& db, const std::string& url, int seconds) {
  engine::TaskKinds kinds;
  engine::Worker worker(db, system_clock(), kinds, worker_options(url, 1));
  std::thread runner([&] { worker.run(); });
  while (worker.stats().passes == 0) std::this_thread::sleep_for(1ms);
  std::cout << R"({"mode":"idle","event":"ready"})" << std::endl;
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  worker.stop();
  runner.join();
  return {{"mode", "idle"}, {"seconds", seconds}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"peto's side of the queue benchmark"};
  std::string mode, url;
  int jobs = 100'000, concurrency = 24, rate = 500, seconds = 20;
  cli.add_option("--mode", mode)
      ->required()
      ->check(CLI::IsMember({"throughput", "latency", "idle"}));
  cli.add_option("--url", url)->required();
  cli.add_option("--jobs", jobs);
  cli.add_option("--concurrency", concurrency);
  cli.add_option("--rate", rate);
  cli.add_option("--seconds", seconds);
  CLI11_PARSE(cli, argc, argv);
  log::configure(log::Level::warning, log::Format::json);
  try {
    auto db = store::Db::open(url, concurrency + 4);
    auto applied = store::Migrator(*db, app::migrations()).apply();
    if (!applied) {
      std::cerr << applied.status().message() << "\n";
      return 1;
    }
    db->query("DELETE FROM tasks");
    nlohmann::json out = mode == "throughput" ? throughput(*db, url, jobs, concurrency)
                         : mode == "latency"  ? latency(*db, url, concurrency, rate, seconds)
                                              : idle(*db, url, seconds);
    out["system"] = "peto";
    std::cout << out.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "queue_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
