#include "store/cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "app/app.h"
#include "store/migrate.h"
#include "tests/support/backends.h"

namespace peto {
namespace {

using namespace std::chrono_literals;

class CacheTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    store::Migrator m(db(), app::migrations());
    ASSERT_TRUE(m.apply());
  }
  FakeClock clock_;
};

TEST_P(CacheTest, AddOnlyWhenAbsentOrExpired) {
  store::Cache cache(db(), clock_);
  EXPECT_TRUE(cache.add("gate", "a", 1min));
  EXPECT_FALSE(cache.add("gate", "b", 1min));
  EXPECT_EQ(cache.get("gate"), "a");
  clock_.advance(61s);
  EXPECT_EQ(cache.get("gate"), std::nullopt) << "an expired row is invisible";
  EXPECT_TRUE(cache.add("gate", "c", 1min)) << "an expired row counts as absent";
  EXPECT_EQ(cache.get("gate"), "c");
}

TEST_P(CacheTest, NoTtlMeansForever) {
  store::Cache cache(db(), clock_);
  cache.set("k", "v", 0ms);
  clock_.advance(std::chrono::hours(24 * 365));
  EXPECT_EQ(cache.get("k"), "v");
  EXPECT_FALSE(cache.add("k", "w", 0ms));
}

TEST_P(CacheTest, SetOverwrites) {
  store::Cache cache(db(), clock_);
  cache.set("k", "1", 1min);
  cache.set("k", "2", 1min);
  EXPECT_EQ(cache.get("k"), "2");
}

TEST_P(CacheTest, DeleteIfOnlyDeletesItsOwnValue) {
  store::Cache cache(db(), clock_);
  ASSERT_TRUE(cache.add("lease", "mine", 1min));
  EXPECT_FALSE(cache.delete_if("lease", "someone-else"));
  EXPECT_EQ(cache.get("lease"), "mine");
  EXPECT_TRUE(cache.delete_if("lease", "mine"));
  EXPECT_EQ(cache.get("lease"), std::nullopt);
}

TEST_P(CacheTest, CountersAddUpAndRestartAfterExpiry) {
  store::Cache cache(db(), clock_);
  EXPECT_EQ(cache.incr("hits", 1, 1h), 1);
  EXPECT_EQ(cache.incr("hits", 5, 1h), 6);
  clock_.advance(30min);
  EXPECT_EQ(cache.incr("hits", 1, 1h), 7) << "a live counter keeps its first expiry";
  clock_.advance(31min);
  EXPECT_EQ(cache.incr("hits", 1, 1h), 1) << "expired: starts again";
}

TEST_P(CacheTest, PurgeRemovesOnlyExpiredRows) {
  store::Cache cache(db(), clock_);
  cache.set("old", "x", 1min);
  cache.set("forever", "x", 0ms);
  cache.incr("counter", 1, 1h);
  for (int i = 0; i < 300; ++i) cache.set("live" + std::to_string(i), "x", 1h);
  clock_.advance(2min);
  EXPECT_EQ(cache.purge_expired(), 1);
  EXPECT_EQ(cache.get("forever"), "x");
  EXPECT_EQ(cache.incr("counter", 0, 1h), 1) << "no entry limit culls a live counter";
  EXPECT_EQ(cache.get("live299"), "x");
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM cache")[0].int_at(0), 302);
}

TEST_P(CacheTest, AddIsExclusiveAcrossThreads) {
  // Real time here: both threads race on the database's own clock.
  auto other = open_again();
  store::Cache a(db(), system_clock()), b(*other, system_clock());
  constexpr int kKeys = 200;
  std::atomic<int> wins{0};
  auto contend = [&](store::Cache& cache, const char* who) {
    for (int i = 0; i < kKeys; ++i)
      if (cache.add("race" + std::to_string(i), who, 1min)) ++wins;
  };
  std::thread t1(contend, std::ref(a), "a"), t2(contend, std::ref(b), "b");
  t1.join();
  t2.join();
  EXPECT_EQ(wins.load(), kKeys);
}

TEST_P(CacheTest, AddIsExclusiveAcrossProcesses) {
  constexpr int kKeys = 200, kProcs = 2;
  int failed = testing::run_in_processes(
      kProcs,
      [&](int p) {
        int wins = 0;
        auto own = store::Db::open(url(), 1);
        store::Cache cache(*own, system_clock());
        for (int i = 0; i < kKeys; ++i)
          if (cache.add("race" + std::to_string(i), std::to_string(p), 1min)) ++wins;
        std::ofstream(dir() / ("wins" + std::to_string(p))) << wins;
        return 0;
      },
      dir());
  ASSERT_EQ(failed, 0);
  int total = 0;
  for (int p = 0; p < kProcs; ++p) {
    int wins = 0;
    std::ifstream(dir() / ("wins" + std::to_string(p))) >> wins;
    total += wins;
  }
  EXPECT_EQ(total, kKeys);
}

PETO_BOTH_BACKENDS(CacheTest);

}  // namespace
}  // namespace peto
