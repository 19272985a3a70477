// peto_sim: peto run wrong on purpose, and what it kept.
//
//   peto_sim                       the short form (part of `make test`)
//   PETO_SIM_FULL=1 peto_sim       the full form (`make sim PETO_SIM_FULL=1`)
//   peto_sim --json FILE           also writes the table as JSON
//   peto_sim --backend postgres    one backend only
//   peto_sim --scenario 8:4        one scenario only (8 schedulers, 4 workers)
//   PETO_SIM_KEEP=1 peto_sim       keeps every run's folder (else only failed ones)
//
// For each scenario (N schedulers, M workers) and each backend (SQLite, and
// PostgreSQL when PETO_TEST_POSTGRES_URL is set), a run:
//   1. seeds a fresh database (tests/sim/world.cpp) and starts the receivers;
//   2. starts N schedulers and M workers, each a process of its own on one
//      ScaledClock (60× the machine's time: a 15-minute lease lasts 15 s);
//   3. for the fault phase, kills a random child with SIGKILL every few
//      seconds and starts another in its place, restarts PostgreSQL once
//      (`pg_ctl restart -m fast`, through scripts/pg-test-server and
//      PETO_TEST_POSTGRES_DIR), and lets the receivers and the store fail;
//   4. switches the faults off and waits until nothing is left to do (or
//      the settle limit passes);
//   5. checks the heartbeats, stops the children and checks every invariant.
// It prints one line per run and a table at the end; exits 1 when any run lost,
// doubled or left stuck anything.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "app/app.h"
#include "core/log.h"
#include "store/migrate.h"
#include "tests/sim/sim.h"

namespace peto::sim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kScale = 60;
constexpr std::int64_t kPassLeaseMs = 600'000;  // max(2 × every 300 s, 60 s)

struct Scenario {
  int schedulers = 2;
  int workers = 1;
};

struct Form {
  Sizes sizes;
  std::vector<Scenario> scenarios;
  int fault_seconds = 20;
  int kill_every_seconds = 4;
  int settle_seconds = 150;
};

Form short_form() {
  Form f;
  f.sizes = {.reminders = 1'000,
             .quiet = 100,
             .closing = 50,
             .copies = 20,
             .syncs = 5,
             .tasks = 300,
             .accounts = 20};
  f.scenarios = {{2, 2}};
  return f;
}

Form full_form() {
  Form f;
  f.scenarios = {{2, 1}, {2, 4}, {4, 1}, {4, 4}, {8, 1}, {8, 4}};
  f.fault_seconds = 60;
  f.settle_seconds = 300;
  return f;
}

struct Row {
  std::string scenario, backend;
  int items = 0;
  Faults faults;
  Verdict verdict;
  double seconds = 0;
  std::vector<std::string> crashes;  // children that ended badly by themselves
  int restarted = 0;                 // children that exited 1 (no database at their start)
};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

class Children {
 public:
  Children(const fs::path& dir) : dir_(dir) {}
  ~Children() { stop(); }

  // The child's output goes to "<role>-<n>.log" in the run's folder. The
  // driver has threads: between fork and exec the child only calls dup2 and
  // execl.
  void spawn(const std::string& role) {
    std::string log = (dir_ / (role + "-" + std::to_string(++spawned_) + ".log")).string();
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot write " + log);
    const char* role_arg = role.c_str();
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execl("/proc/self/exe", "peto_sim", "child", role_arg, static_cast<char*>(nullptr));
      std::_Exit(4);
    }
    ::close(fd);
    roles_[pid] = role;
  }

  // Kills one child at random; its pid and when it was dead.
  std::pair<int, Millis> kill_one(std::mt19937& random, const Clock& clock) {
    auto it = roles_.begin();
    std::advance(it, static_cast<long>(random() % roles_.size()));
    pid_t pid = it->first;
    std::string role = it->second;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    Millis at = clock.now_ms();
    roles_.erase(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    spawn(role);
    return {pid, at};
  }

  // Children that ended by themselves are started again, as a service
  // manager would. One that exited 1 said why (a database that could not be
  // reached at its start, during the restart): counted in `restarted`. Any
  // other end (a signal, an abort) is a crash, named.
  void reap(std::vector<std::string>& crashes, int& restarted) {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = roles_.find(pid);
      if (it == roles_.end()) continue;
      std::string role = it->second;
      roles_.erase(it);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
        ++restarted;
      else
        crashes.push_back(role + " " + std::to_string(pid) + " ended by itself (status " +
                          std::to_string(status) + ")");
      spawn(role);
    }
  }

  // SIGTERM to all; SIGKILL to what is left after 20 s.
  void stop() {
    for (auto& [pid, role] : roles_) ::kill(pid, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!roles_.empty() && std::chrono::steady_clock::now() < deadline) {
      pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
      if (pid > 0)
        roles_.erase(pid);
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (auto& [pid, role] : roles_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    roles_.clear();
  }

 private:
  fs::path dir_;
  std::map<pid_t, std::string> roles_;
  int spawned_ = 0;
};

// A fresh database for one run: a SQLite file, or a schema of its own on the
// PostgreSQL server (search_path in the URL, so the children land in it too).
std::string database_url(const std::string& backend, const fs::path& dir, std::string& schema) {
  if (backend == "sqlite") return "sqlite://" + (dir / "peto.db").string();
  std::string base = env("PETO_TEST_POSTGRES_URL");
  schema = "sim_" + std::to_string(::getpid()) + "_" + dir.filename().string().substr(9);
  for (char& c : schema)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  store::Db::open(base, 1)->query("CREATE SCHEMA " + schema);
  return base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
         schema;
}

bool fresh(const std::string& path, std::int64_t within_s) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return std::time(nullptr) - st.st_mtime <= within_s;
}

Row run(const Form& form, const Scenario& sc, const std::string& backend, unsigned seed) {
  Row row;
  row.scenario = std::to_string(sc.schedulers) + " schedulers, " + std::to_string(sc.workers) +
                 (sc.workers == 1 ? " worker" : " workers");
  row.backend = backend;
  std::cout << "== " << row.scenario << " on " << backend << std::endl;
  row.items = form.sizes.total();
  char tmpl[] = "/tmp/peto-sim-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  const fs::path dir = tmpl;
  std::string schema;
  const std::string url = database_url(backend, dir, schema);

  Config config;
  config.data_dir = dir.string();
  config.database_url = url;
  config.secret_key = "simulation-secret-key-0123456789abcdef";
  config.allow_private_destinations = true;
  const ScaledClock clock(system_clock().now_ms(), ScaledClock::machine_ms(), kScale);
  World world(clock, form.sizes, seed);
  {
    auto db = store::Db::open(url);
    auto applied = store::Migrator(*db, app::migrations()).apply();
    if (!applied) throw std::runtime_error("migration failed: " + applied.status().message());
    world.seed(*db, config, Millis{form.fault_seconds} * 1000 * kScale / 2);
  }

  const std::string journal = (dir / "journal").string();
  ::setenv("PETO_DATABASE_URL", url.c_str(), 1);
  ::setenv("PETO_DATA_DIR", config.data_dir.c_str(), 1);
  ::setenv("PETO_SECRET_KEY", config.secret_key.c_str(), 1);
  ::setenv("PETO_ALLOW_PRIVATE_DESTINATIONS", "true", 1);
  ::setenv("PETO_LOG_LEVEL", "error", 1);
  ::setenv("PETO_LOG_FORMAT", "text", 1);
  // Every process computes the same time from the same two origins.
  const std::int64_t mono0 = ScaledClock::machine_ms();
  ::setenv("PETO_SIM_WALL0", std::to_string(clock.now_ms()).c_str(), 1);
  ::setenv("PETO_SIM_MONO0", std::to_string(mono0).c_str(), 1);
  ::setenv("PETO_SIM_SCALE", std::to_string(kScale).c_str(), 1);
  ::setenv("PETO_SIM_JOURNAL", journal.c_str(), 1);
  ::setenv("PETO_SIM_TASK_URL", world.task_url().c_str(), 1);

  auto started = std::chrono::steady_clock::now();
  std::map<int, Millis> kills;
  std::vector<std::pair<Millis, Millis>> restarts;
  {
    Children children(dir);
    for (int i = 0; i < sc.schedulers; ++i) children.spawn("scheduler");
    for (int i = 0; i < sc.workers; ++i) children.spawn("worker");
    world.set_faults(true);
    std::mt19937 random(seed);
    const auto fault_end = started + std::chrono::seconds(form.fault_seconds);
    auto next_kill = started + std::chrono::seconds(form.kill_every_seconds);
    bool restarted = backend == "sqlite" || env("PETO_TEST_POSTGRES_DIR").empty();
    const auto restart_at = started + std::chrono::seconds(form.fault_seconds * 2 / 5);
    while (std::chrono::steady_clock::now() < fault_end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      children.reap(row.crashes, row.restarted);
      auto now = std::chrono::steady_clock::now();
      if (now >= next_kill) {
        kills.insert(children.kill_one(random, clock));
        ++row.faults.kills;
        next_kill = now + std::chrono::milliseconds(form.kill_every_seconds * 500 +
                                                    random() % (form.kill_every_seconds * 1000));
      }
      if (!restarted && now >= restart_at) {
        restarted = true;
        Millis from = clock.now_ms();
        std::string cmd = std::string(PETO_SOURCE_DIR) + "/scripts/pg-test-server restart '" +
                          env("PETO_TEST_POSTGRES_DIR") + "' >/dev/null";
        if (std::system(cmd.c_str()) != 0)
          throw std::runtime_error("the PostgreSQL restart failed");
        restarts.emplace_back(from, clock.now_ms());
        ++row.faults.pg_restarts;
      }
    }
    world.set_faults(false);

    // Settle: until nothing is left to do (the database may still be coming back).
    std::unique_ptr<store::Db> db;
    const auto settle_end =
        std::chrono::steady_clock::now() + std::chrono::seconds(form.settle_seconds);
    std::int64_t left = -1;
    while (std::chrono::steady_clock::now() < settle_end) {
      children.reap(row.crashes, row.restarted);
      try {
        if (!db) db = store::Db::open(url, 1);
        left = world.outstanding(*db);
        if (left == 0) break;
      } catch (const std::exception& e) {
        db.reset();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    if (left != 0)
      row.verdict.problems.push_back("the settle limit passed with " + std::to_string(left) +
                                     " left to do");
    // A few passes more, so the heartbeats are those of a quiet system.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    if (!fresh(config.scheduler_heartbeat(), 10))
      row.verdict.stick("the scheduler heartbeat is not fresh");
    if (!fresh(config.worker_heartbeat(), 10))
      row.verdict.stick("the worker heartbeat is not fresh");
    children.stop();
  }
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  row.faults.hook_timeouts = world.faults().hook_timeouts;
  row.faults.hook_500 = world.faults().hook_500;
  row.faults.hook_429 = world.faults().hook_429;
  row.faults.store_hangs = world.faults().store_hangs;
  row.faults.store_503 = world.faults().store_503;
  {
    auto db = store::Db::open(url, 1);
    Verdict found = world.check(*db, kills, restarts, journal, kPassLeaseMs);
    found.stuck += row.verdict.stuck;
    for (auto& p : row.verdict.problems) found.problems.push_back(p);
    row.verdict = found;
  }
  if (!schema.empty())
    store::Db::open(env("PETO_TEST_POSTGRES_URL"), 1)->query("DROP SCHEMA " + schema + " CASCADE");
  bool clean = row.verdict.lost == 0 && row.verdict.doubled == 0 && row.verdict.stuck == 0 &&
               row.crashes.empty();
  if (clean && env("PETO_SIM_KEEP").empty())
    fs::remove_all(dir);
  else
    std::cout << "  (kept " << dir.string() << " for a look)\n";
  return row;
}

std::string faults_text(const Faults& f) {
  std::ostringstream s;
  s << f.total() << " (" << f.kills << " kill -9";
  if (f.pg_restarts) s << ", " << f.pg_restarts << " restart";
  s << ", hook " << f.hook_timeouts << "/" << f.hook_500 << "/" << f.hook_429 << ", store "
    << f.store_hangs << "/" << f.store_503 << ")";
  return s.str();
}

void print_table(const std::vector<Row>& rows) {
  std::cout << "\n| scenario | backend | items | faults injected | lost | doubled | stuck |"
               " raw repeats | time |\n|---|---|---:|---|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows)
    std::cout << "| " << r.scenario << " | " << r.backend << " | " << r.items << " | "
              << faults_text(r.faults) << " | " << r.verdict.lost << " | " << r.verdict.doubled
              << " | " << r.verdict.stuck << " | " << r.verdict.raw_repeats << " | " << std::fixed
              << std::setprecision(0) << r.seconds << " s |\n";
  std::cout << "\nfaults: kill -9 of schedulers and workers, PostgreSQL restarts, webhook"
               " timeouts/500/429, store hangs/503\n";
}

json to_json(const std::vector<Row>& rows) {
  json all = json::array();
  for (const auto& r : rows)
    all.push_back({{"scenario", r.scenario},
                   {"backend", r.backend},
                   {"items", r.items},
                   {"faults",
                    {{"total", r.faults.total()},
                     {"kills", r.faults.kills},
                     {"pg_restarts", r.faults.pg_restarts},
                     {"hook_timeouts", r.faults.hook_timeouts},
                     {"hook_500", r.faults.hook_500},
                     {"hook_429", r.faults.hook_429},
                     {"store_hangs", r.faults.store_hangs},
                     {"store_503", r.faults.store_503}}},
                   {"lost", r.verdict.lost},
                   {"doubled", r.verdict.doubled},
                   {"stuck", r.verdict.stuck},
                   {"raw_repeats", r.verdict.raw_repeats},
                   {"seconds", r.seconds},
                   {"problems", r.verdict.problems},
                   {"crashes", r.crashes},
                   {"restarted_children", r.restarted}});
  return all;
}

int driver(int argc, char** argv) {
  std::string json_path, only;
  Scenario pick{0, 0};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else if (a == "--scenario" && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%d:%d", &pick.schedulers, &pick.workers) == 2 &&
               pick.schedulers > 0 && pick.workers > 0) {
      ++i;
    } else if (a == "--backend" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "sqlite" || std::string(argv[i + 1]) == "postgres")) {
      only = argv[++i];
    } else {
      std::cerr << "peto_sim: bad argument " << a
                << "\nusage: peto_sim [--json FILE] [--backend sqlite|postgres] [--scenario N:M]\n";
      return 2;
    }
  }
  const bool full = env("PETO_SIM_FULL") == "1";
  Form form = full ? full_form() : short_form();
  if (pick.schedulers > 0) form.scenarios = {pick};
  std::vector<std::string> backends = {"sqlite"};
  if (!env("PETO_TEST_POSTGRES_URL").empty())
    backends.push_back("postgres");
  else
    std::cout << "peto_sim: PETO_TEST_POSTGRES_URL is not set; SQLite only\n";
  if (!only.empty()) {
    if (std::find(backends.begin(), backends.end(), only) == backends.end()) {
      std::cerr << "peto_sim: --backend postgres needs PETO_TEST_POSTGRES_URL\n";
      return 2;
    }
    backends = {only};
  }
  log::configure(log::Level::error, log::Format::text);
  std::vector<Row> rows;
  unsigned seed = 1;
  for (const auto& sc : form.scenarios)
    for (const auto& backend : backends) {
      Row row = run(form, sc, backend, seed++);
      std::cout << "   lost " << row.verdict.lost << ", doubled " << row.verdict.doubled
                << ", stuck " << row.verdict.stuck << ", raw repeats " << row.verdict.raw_repeats
                << ", " << row.verdict.requests << " requests received"
                << ", " << faults_text(row.faults) << ", " << std::fixed << std::setprecision(0)
                << row.seconds << " s" << std::endl;
      for (const auto& p : row.verdict.problems) std::cout << "   - " << p << "\n";
      for (const auto& c : row.crashes) std::cout << "   - " << c << "\n";
      if (row.restarted)
        std::cout << "   - " << row.restarted
                  << " children exited 1 (no database at their start) and were started again\n";
      rows.push_back(std::move(row));
    }
  print_table(rows);
  if (!json_path.empty()) std::ofstream(json_path) << to_json(rows).dump(2) << "\n";
  for (const auto& r : rows)
    if (r.verdict.lost || r.verdict.doubled || r.verdict.stuck || !r.crashes.empty()) return 1;
  return 0;
}

}  // namespace
}  // namespace peto::sim

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "child") == 0) {
    if (std::strcmp(argv[2], "scheduler") == 0) return peto::sim::scheduler_child();
    if (std::strcmp(argv[2], "worker") == 0) return peto::sim::worker_child();
    return 2;
  }
  return peto::sim::driver(argc, argv);
}
