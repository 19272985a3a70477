// The simulation of peto run wrong: several schedulers and workers on one
// database, killed at random, the database restarted under them, receivers
// and stores that fail and hang. See tests/sim/main.cpp for the run and
// tests/sim/world.cpp for what is seeded and what is checked at the end.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/config.h"
#include "store/db.h"
#include "tests/sim/scaled_clock.h"

namespace peto::sim {

inline constexpr const char* kEffectTask = "sim_effect";

// The children (children.cpp): exit codes as peto's commands.
int scheduler_child();
int worker_child();

// How big one run is.
struct Sizes {
  int reminders = 10'000;
  int quiet = 1'000;   // applications gone quiet
  int closing = 500;   // listings closing soon
  int copies = 200;    // documents copied to a store
  int syncs = 50;      // CalDAV connections
  int tasks = 2'000;   // queued tasks with an outside effect
  int accounts = 100;  // owners of the above, one webhook each
  int total() const { return reminders + quiet + closing + copies + syncs + tasks; }
};

// The faults that were injected, by kind.
struct Faults {
  int kills = 0;
  int pg_restarts = 0;
  int hook_timeouts = 0, hook_500 = 0, hook_429 = 0;
  int store_hangs = 0, store_503 = 0;
  int total() const {
    return kills + pg_restarts + hook_timeouts + hook_500 + hook_429 + store_hangs + store_503;
  }
};

// What the end of a run found.
struct Verdict {
  std::int64_t lost = 0, doubled = 0, stuck = 0;
  std::int64_t raw_repeats = 0;       // the same delivery or task effect received again
  std::int64_t requests = 0;          // webhook requests and task effects received in all
  std::vector<std::string> problems;  // one line per finding, for the log
  void lose(const std::string& why, std::int64_t n = 1) { add(lost, why, n); }
  void twice(const std::string& why, std::int64_t n = 1) { add(doubled, why, n); }
  void stick(const std::string& why, std::int64_t n = 1) { add(stuck, why, n); }

 private:
  void add(std::int64_t& counter, const std::string& why, std::int64_t n) {
    counter += n;
    if (problems.size() < 40) problems.push_back(why);
  }
};

// The outside world of one run: a webhook receiver, the task effects' receiver,
// a WebDAV store and a CalDAV server, all on 127.0.0.1 in the driver, with
// their faults switched on and off by the driver.
class World {
 public:
  World(const ScaledClock& clock, const Sizes& sizes, unsigned seed);
  ~World();

  // Seeds the migrated database `db` (its files under config.data_dir);
  // reminders fall due from an hour ago to `falling_due_for` from now.
  void seed(store::Db& db, const Config& config, Millis falling_due_for);
  void set_faults(bool on);
  const Faults& faults() const;
  std::string task_url() const;

  // The work still to do: 0 when everything is settled.
  std::int64_t outstanding(store::Db& db) const;
  // Every invariant, with the kills the driver made (pid → when) and the
  // database restarts (from, to); times are simulated.
  Verdict check(store::Db& db, const std::map<int, Millis>& kills,
                const std::vector<std::pair<Millis, Millis>>& restarts, const std::string& journal,
                Millis pass_lease_ms) const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace peto::sim
