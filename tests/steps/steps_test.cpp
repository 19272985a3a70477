// The upkeep steps that need no domain: gates, sweep, scrub, purge.
#include <filesystem>
#include <fstream>

#include "engine/gate.h"
#include "steps/all.h"
#include "steps/purge.h"
#include "steps/scrub.h"
#include "steps/sweep.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/factory.h"

namespace peto {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class StepsTest : public testing::EngineTest {
 protected:
  engine::Scheduler scheduler(std::vector<std::unique_ptr<engine::Step>> steps) {
    engine::Scheduler::Options o;
    o.heartbeat_path = (dir() / "hb").string();
    return engine::Scheduler(db(), clock_, config_, o, std::move(steps));
  }
  // Writes a media file with the given age on the fake clock.
  void media_file(const std::string& rel, std::chrono::milliseconds age,
                  const std::string& body = "x") {
    fs::path p = fs::path(config_.media_dir()) / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << body;
    auto when = std::chrono::sys_time<std::chrono::milliseconds>(
        std::chrono::milliseconds(clock_.now_ms()) - age);
    fs::last_write_time(p, std::chrono::file_clock::from_sys(when));
  }
  static std::vector<std::unique_ptr<engine::Step>> step_list_scrub() {
    return testing::step_list(std::make_unique<steps::Scrub>());
  }
  static std::vector<std::unique_ptr<engine::Step>> step_list_purge() {
    return testing::step_list(std::make_unique<steps::Purge>());
  }
  std::int64_t count_of(const engine::PassReport& r, const std::string& step,
                        const std::string& key) {
    for (const auto& s : r.steps)
      if (s.id == step && s.counts.count(key)) return s.counts.at(key);
    return 0;
  }
};

TEST_P(StepsTest, HourlyGateRunsSweepAndPurgeOncePerHour) {
  fs::create_directories(config_.media_dir());
  auto s = scheduler(steps::all());
  int sweeps = 0, purges = 0;
  for (int i = 0; i < 10; ++i) {  // 10 passes in one hour
    auto r = s.run_pass();
    ASSERT_EQ(r.outcome, engine::PassReport::Outcome::ran);
    sweeps += static_cast<int>(count_of(r, "sweep", "walks"));
    purges += static_cast<int>(count_of(r, "purge", "runs"));
    clock_.advance(6min);
  }
  EXPECT_EQ(sweeps, 1);
  EXPECT_EQ(purges, 1);
  clock_.advance(1min);  // 61 min after the first
  auto r = s.run_pass();
  EXPECT_EQ(count_of(r, "sweep", "walks"), 1) << "the next hour sweeps again";
  EXPECT_EQ(count_of(r, "purge", "runs"), 1);
}

TEST_P(StepsTest, GateIsSharedByAllSchedulers) {
  auto other_db = open_again();
  store::Cache mine(db(), clock_), theirs(*other_db, clock_);
  EXPECT_TRUE(engine::take_gate(mine, "sweep"));
  EXPECT_FALSE(engine::take_gate(theirs, "sweep"));
  clock_.advance(61min);
  EXPECT_TRUE(engine::take_gate(theirs, "sweep"));
}

TEST_P(StepsTest, SweepSwitchedOffTakesNoGate) {
  config_.media_sweep = false;
  auto s = scheduler(steps::all());
  s.run_pass();
  store::Cache cache(db(), clock_);
  EXPECT_EQ(cache.get("gate:sweep"), std::nullopt);
}

TEST_P(StepsTest, SweepRemovesOnlyOldFilesNoRowNames) {
  // Raw: rows that only name files the test placed at chosen ages; Documents
  // names the files it stores itself.
  db().query("INSERT INTO uploads (file) VALUES ('cv/named.pdf'), ('old-named.pdf')");
  media_file("cv/named.pdf", 48h);
  media_file("old-named.pdf", 100h);
  media_file("cv/orphan.pdf", 25h);
  media_file("young-orphan.pdf", 23h);
  media_file("deep/er/orphan.txt", 30h);
  auto r = steps::sweep_media(db(), media::Uploads::file_columns(), config_.media_dir(),
                              clock_.now_ms(), 24 * 3'600'000LL, /*remove=*/true);
  std::sort(r.removed.begin(), r.removed.end());
  EXPECT_EQ(r.removed, (std::vector<std::string>{"cv/orphan.pdf", "deep/er/orphan.txt"}));
  EXPECT_EQ(r.kept, 3);
  EXPECT_EQ(r.walks, 1) << "one walk of the media folder";
  EXPECT_TRUE(fs::exists(fs::path(config_.media_dir()) / "cv/named.pdf"));
  EXPECT_TRUE(fs::exists(fs::path(config_.media_dir()) / "old-named.pdf"));
  EXPECT_TRUE(fs::exists(fs::path(config_.media_dir()) / "young-orphan.pdf"));
  EXPECT_FALSE(fs::exists(fs::path(config_.media_dir()) / "cv/orphan.pdf"));
}

TEST_P(StepsTest, SweepStepHonoursGraceOfAtLeastAnHour) {
  config_.media_sweep_grace_hours = 1;
  media_file("a.pdf", 61min);
  media_file("b.pdf", 59min);
  auto s = scheduler(steps::all());
  auto r = s.run_pass();
  EXPECT_EQ(count_of(r, "sweep", "removed"), 1);
  EXPECT_EQ(r.summary_lines(), std::vector<std::string>{"1 file no record names was removed"});
  EXPECT_TRUE(fs::exists(fs::path(config_.media_dir()) / "b.pdf"));
}

// Uploads whose files match what was recorded (size and SHA-256 of "x").
// Raw: a thousand rows at a chosen verified_at, and files the test writes
// itself; Documents stores a new upload as never checked (verified_at 0).
void add_uploads(store::Db& db, int n, Millis verified_at = 0) {
  store::with_write(*db.acquire(), [&](store::Conn& c) {
    for (int i = 0; i < n; ++i)
      c.query("INSERT INTO uploads (file, size, sha256, verified_at) VALUES (?, 1, ?, ?)",
              {"u/" + std::to_string(i),
               "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
               static_cast<long long>(verified_at)});
  });
}

TEST_P(StepsTest, ScrubEverySevenDaysDoesNotReadTodaysChecksAgainTomorrow) {
  config_.scrub_every_days = 7;
  add_uploads(db(), 1000, clock_.now_ms() - 3'600'000);  // all checked an hour ago
  clock_.advance(24h);
  auto s = scheduler(step_list_scrub());
  for (int pass = 0; pass < 5; ++pass) {
    auto r = s.run_pass();
    EXPECT_EQ(count_of(r, "scrub", "checked"), 0);
    clock_.advance(5min);
  }
}

TEST_P(StepsTest, ScrubChecksNeverCheckedFirstThenOldestTwentyFiveAPass) {
  config_.scrub_every_days = 0;
  fs::create_directories(fs::path(config_.media_dir()) / "u");
  for (int i = 0; i < 60; ++i) media_file("u/" + std::to_string(i), 1h);
  add_uploads(db(), 60);
  auto s = scheduler(step_list_scrub());
  for (int pass = 0; pass < 4; ++pass) {
    auto r = s.run_pass();
    EXPECT_EQ(count_of(r, "scrub", "checked"), 25) << "with 0, 25 are read each pass";
    EXPECT_EQ(count_of(r, "scrub", "damaged"), 0);
    clock_.advance(5min);
  }
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM uploads WHERE verified_at = 0")[0].int_at(0), 0)
      << "after 100 checks all 60 were read: never-checked ones first";
}

TEST_P(StepsTest, ScrubRecordsDamageAndNeverTouchesTheFile) {
  config_.scrub_every_days = 7;
  add_uploads(db(), 3);
  media_file("u/0", 1h);       // fine
  media_file("u/1", 1h, "y");  // changed
  /* u/2 missing */
  auto s = scheduler(step_list_scrub());
  auto r = s.run_pass();
  EXPECT_EQ(count_of(r, "scrub", "checked"), 3);
  EXPECT_EQ(count_of(r, "scrub", "damaged"), 2);
  EXPECT_EQ(r.summary_lines(), std::vector<std::string>{"2 uploads found damaged"});
  auto rows = db().query("SELECT damage FROM uploads ORDER BY id");
  EXPECT_EQ(rows[0].text(0), "");
  EXPECT_EQ(rows[1].text(0), "changed");
  EXPECT_EQ(rows[2].text(0), "missing");
  std::ifstream in(fs::path(config_.media_dir()) / "u/1");
  std::string body;
  in >> body;
  EXPECT_EQ(body, "y") << "a damaged file is left as it is";
}

TEST_P(StepsTest, PurgeRemovesOnlyExpiredRowsOncePerHour) {
  store::Cache cache(db(), clock_);
  cache.set("old", "1", 1min);
  cache.incr("counter", 1, 0ms);
  clock_.advance(2min);
  auto s = scheduler(step_list_purge());
  auto r = s.run_pass();
  EXPECT_EQ(count_of(r, "purge", "purged"), 1);
  EXPECT_EQ(cache.incr("counter", 0, 0ms), 1);
}

TEST_P(StepsTest, PurgeDropsIdempotencyKeysOlderThanADay) {
  auto user = testing::Factory(db(), clock_).account("ana@example.com");
  // Raw: the API writes these around a request; here they need chosen ages.
  auto key = [&](const std::string& k, std::int64_t at) {
    db().query(
        "INSERT INTO api_idempotency (owner_id, key, request_hash, status, response, created_at)"
        " VALUES (?, ?, 'h', 201, '{}', ?)",
        {user, k, at});
  };
  const std::int64_t now = clock_.now_ms();
  key("old", now - 25 * 3600 * 1000);
  key("fresh", now - 23 * 3600 * 1000);
  auto r = scheduler(step_list_purge()).run_pass();
  EXPECT_EQ(count_of(r, "purge", "idempotency_keys"), 1);
  auto left = db().query("SELECT key FROM api_idempotency");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].text(0), "fresh");
}

PETO_BOTH_BACKENDS(StepsTest);

}  // namespace
}  // namespace peto
