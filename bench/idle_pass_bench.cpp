// The cost of a scheduler pass with nothing due (docs/SPEC.md §3.4; the
// goal is ≤ 12 statements and < 2 ms on SQLite), with 10,000 uploads checked
// recently and 10,000 files in the media folder. The first pass takes the
// hourly gates (and sweeps once); the measured passes are the idle ones
// that follow within the hour. Counters: statements per pass.
//
//   idle_pass_bench                       SQLite in a temp folder
//   PETO_BENCH_POSTGRES_URL=… idle_pass_bench   also PostgreSQL
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "app/app.h"
#include "core/log.h"
#include "engine/pass.h"
#include "steps/all.h"
#include "steps/sweep.h"
#include "store/migrate.h"

using namespace peto;
namespace fs = std::filesystem;

namespace {

constexpr int kUploads = 10'000;

struct Instance {
  fs::path dir;
  std::unique_ptr<store::Db> db;
  Config config;
  std::unique_ptr<engine::Scheduler> scheduler;

  explicit Instance(const std::string& url_or_empty) {
    dir = fs::temp_directory_path() / ("peto-bench-" + std::to_string(::getpid()) + "-" +
                                       std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(dir / "media" / "u");
    std::string url = "sqlite://" + (dir / "peto.db").string();
    if (!url_or_empty.empty()) {
      // A schema of its own, dropped afterwards, so runs never see each other.
      base_url = url_or_empty;
      schema = "bench_" + std::to_string(::getpid()) + "_" + std::to_string(++counter());
      store::Db::open(base_url, 1)->query("CREATE SCHEMA " + schema);
      url = base_url + (base_url.find('?') == std::string::npos ? "?" : "&") +
            "options=-csearch_path%3D" + schema;
    }
    db = store::Db::open(url, 4);
    if (!store::Migrator(*db, app::migrations()).apply())
      throw std::runtime_error("migrate failed");
    config.data_dir = dir.string();
    store::with_write(*db->acquire(), [&](store::Conn& c) {
      for (int i = 0; i < kUploads; ++i) {
        std::string rel = "u/" + std::to_string(i) + ".pdf";
        std::ofstream(dir / "media" / rel) << "x";
        c.query("INSERT INTO uploads (file, size, verified_at) VALUES (?, 1, now_ms())", {rel});
      }
    });
    scheduler = std::make_unique<engine::Scheduler>(*db, system_clock(), config,
                                                    engine::Scheduler::Options{}, steps::all());
    scheduler->run_pass();  // takes the hourly gates and sweeps once
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string base_url, schema;

  ~Instance() {
    scheduler.reset();
    db.reset();
    if (!schema.empty()) store::Db::open(base_url, 1)->query("DROP SCHEMA " + schema + " CASCADE");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

void idle_pass(benchmark::State& state, const std::string& url) {
  log::configure(log::Level::error, log::Format::json);
  Instance inst(url);
  auto before = inst.db->statements_run();
  for (auto _ : state) {
    auto r = inst.scheduler->run_pass();
    if (r.outcome != engine::PassReport::Outcome::ran) state.SkipWithError("the pass did not run");
  }
  state.counters["statements_per_pass"] = static_cast<double>(inst.db->statements_run() - before) /
                                          static_cast<double>(state.iterations());
}

// The hourly sweep itself, for comparison: one walk of 10,000 files and
// one query per file-bearing table.
void hourly_sweep(benchmark::State& state, const std::string& url) {
  log::configure(log::Level::error, log::Format::json);
  Instance inst(url);
  for (auto _ : state) {
    auto r = steps::sweep_media(*inst.db, media::Uploads::file_columns(), inst.config.media_dir(),
                                system_clock().now_ms(), 3'600'000, /*remove=*/false);
    benchmark::DoNotOptimize(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("idle_pass/sqlite", idle_pass, std::string())
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("hourly_sweep/sqlite", hourly_sweep, std::string())
      ->Unit(benchmark::kMillisecond);
  if (const char* pg = std::getenv("PETO_BENCH_POSTGRES_URL"); pg && *pg) {
    benchmark::RegisterBenchmark("idle_pass/postgres", idle_pass, std::string(pg))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("hourly_sweep/postgres", hourly_sweep, std::string(pg))
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
