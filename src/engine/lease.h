// PassLease: the scheduler's fenced lease (docs/RULES.md #576).
//
// One row per lease name in scheduler_lease(name, owner_token, epoch,
// acquired_at, expires_at). Taking it is one statement that succeeds only if
// the row is absent or expired; the taker gets a fresh random token and the
// epoch one above the last holder's. Renewing and releasing are filtered by
// (token, epoch), so a pass that outlived its lease can neither extend nor
// end the lease a later pass has taken: its renew() answers false and it
// stops. Release expires the row rather than deleting it, so epochs only grow.
//
// Times are the database's clock on PostgreSQL (the Clock's pinned time in
// tests). The lease is a courtesy that keeps passes from overlapping in the
// common case; correctness rests on each step's row claims.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/token.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::engine {

struct HeldLease {
  std::string token;
  std::int64_t epoch = 0;
};

class PassLease {
 public:
  using Ttl = std::chrono::milliseconds;

  PassLease(store::Db& db, const Clock& clock, std::string name = "scheduler")
      : db_(db), clock_(clock), name_(std::move(name)) {}

  // Passes that have taken the lease (its epoch) and takeovers of a lease
  // its holder let run out; zeros before the first pass. For /metrics.
  struct Stats {
    std::int64_t passes = 0;
    std::int64_t takeovers = 0;
  };
  Stats stats() const;

  // Takes the lease if it is free; nullopt if another holder's is live.
  std::optional<HeldLease> acquire(Ttl ttl);
  // Extends our lease; false when it is no longer ours (taken over).
  bool renew(const HeldLease& held, Ttl ttl);
  // Ends our lease now; false when it was no longer ours (nothing changed).
  bool release(const HeldLease& held);

  static std::vector<store::Migration> migrations();

 private:
  store::Db& db_;
  const Clock& clock_;
  std::string name_;
};

}  // namespace peto::engine
