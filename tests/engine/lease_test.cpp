// The fenced pass lease (docs/RULES.md #576).
#include "engine/lease.h"

#include "engine/claim.h"
#include "engine/gate.h"
#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

using namespace std::chrono_literals;

class LeaseTest : public testing::EngineTest {};

TEST_P(LeaseTest, OnlyOneHolderUntilItExpires) {
  engine::PassLease lease(db(), clock_);
  auto a = lease.acquire(60s);
  ASSERT_TRUE(a);
  EXPECT_FALSE(lease.acquire(60s)) << "held";
  clock_.advance(59s);
  EXPECT_FALSE(lease.acquire(60s)) << "still held";
  clock_.advance(2s);
  auto b = lease.acquire(60s);
  ASSERT_TRUE(b) << "expired: taken";
  EXPECT_EQ(b->epoch, a->epoch + 1);
  EXPECT_NE(b->token, a->token);
}

TEST_P(LeaseTest, ReleaseFreesAndEpochsOnlyGrow) {
  engine::PassLease lease(db(), clock_);
  auto a = lease.acquire(60s);
  ASSERT_TRUE(a);
  EXPECT_TRUE(lease.release(*a));
  auto b = lease.acquire(60s);
  ASSERT_TRUE(b) << "released: free at once";
  EXPECT_EQ(b->epoch, a->epoch + 1);
  EXPECT_FALSE(lease.release(*a)) << "an old holder cannot release again";
}

TEST_P(LeaseTest, RenewExtends) {
  engine::PassLease lease(db(), clock_);
  auto a = lease.acquire(60s);
  ASSERT_TRUE(a);
  clock_.advance(50s);
  EXPECT_TRUE(lease.renew(*a, 60s));
  clock_.advance(50s);
  EXPECT_FALSE(lease.acquire(60s)) << "renewed at 50 s: held until 110 s";
}

// Seed docs/RULES.md #576, test 1: a pass whose lease ran out and was taken by a second
// pass ends without deleting or renewing the second pass's lease, and a third
// pass cannot start beside the second.
TEST_P(LeaseTest, OutlivedPassCannotTouchTheNextPassLease) {
  engine::PassLease lease(db(), clock_);
  auto first = lease.acquire(60s);
  ASSERT_TRUE(first);
  clock_.advance(61s);  // the first pass overruns
  auto second = lease.acquire(60s);
  ASSERT_TRUE(second);

  EXPECT_FALSE(lease.renew(*first, 60s)) << "the first pass learns it lost the lease";
  EXPECT_FALSE(lease.release(*first)) << "and its release changes nothing";

  auto row = db().query("SELECT owner_token, epoch, released FROM scheduler_lease");
  ASSERT_EQ(row.size(), 1u);
  EXPECT_EQ(row[0].text(0), second->token) << "the second pass's lease is still there";
  EXPECT_EQ(row[0].int_at(1), second->epoch);
  EXPECT_EQ(row[0].int_at(2), 0);
  EXPECT_FALSE(lease.acquire(60s)) << "a third pass cannot start beside the second";
  EXPECT_TRUE(lease.release(*second));
}

TEST_P(LeaseTest, TakeoversAreCounted) {
  engine::PassLease lease(db(), clock_);
  auto a = lease.acquire(60s);
  ASSERT_TRUE(lease.release(*a));
  ASSERT_TRUE(lease.acquire(60s));  // after a release: not a takeover
  clock_.advance(61s);
  ASSERT_TRUE(lease.acquire(60s));  // ran out unreleased: a takeover
  EXPECT_EQ(db().query("SELECT takeovers FROM scheduler_lease")[0].int_at(0), 1);
}

TEST_P(LeaseTest, KeyLeaseIsReleasedOnlyByItsHolder) {
  store::Cache cache(db(), clock_);
  {
    auto held = engine::KeyLease::take(cache, "sync:1", 15min);
    ASSERT_TRUE(held);
    EXPECT_FALSE(engine::KeyLease::take(cache, "sync:1", 15min));
    clock_.advance(16min);
    // Expired; somebody else takes it. Our release must leave theirs alone.
    auto theirs = engine::KeyLease::take(cache, "sync:1", 15min);
    ASSERT_TRUE(theirs);
    std::string their_token = theirs->token();
    auto moved = std::move(*theirs);
    theirs.reset();
    EXPECT_EQ(cache.get("sync:1"), their_token) << "a moved-from lease releases nothing";
    held.reset();
    EXPECT_EQ(cache.get("sync:1"), their_token) << "an old holder's release leaves it alone";
  }
  EXPECT_EQ(cache.get("sync:1"), std::nullopt) << "released by its holder";
}

TEST_P(LeaseTest, ClaimOnValueTakesEachReadingOnce) {
  db().query("CREATE TABLE items (id INTEGER PRIMARY KEY, stamp BIGINT)");
  db().query("INSERT INTO items (id, stamp) VALUES (1, NULL), (2, 5)");
  EXPECT_TRUE(engine::claim_on_value(db(), "items", 1, "stamp", store::null, 10));
  EXPECT_FALSE(engine::claim_on_value(db(), "items", 1, "stamp", store::null, 11))
      << "the same reading claims once";
  EXPECT_TRUE(engine::claim_on_value(db(), "items", 2, "stamp", 5, 12));
  EXPECT_FALSE(engine::claim_on_value(db(), "items", 2, "stamp", 5, 13));
  EXPECT_EQ(db().query("SELECT stamp FROM items ORDER BY id")[0].int_at(0), 10);
}

PETO_BOTH_BACKENDS(LeaseTest);

}  // namespace
}  // namespace peto
