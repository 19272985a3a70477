// Cache: a table-backed key/value store for gates, leases, memo and counters.
//
// Rows are (key, value, expires_at); an expired row is invisible to every read
// and is replaced by add() as if absent. There is no entry limit, so nothing
// live is ever culled: a gate or a counter lasts exactly as long as its TTL.
// The hourly purge (purge_expired) only removes rows already past expiry.
//
// Every decision is one statement, so add() is exclusive across threads and
// processes: of any number of concurrent add()s of one absent key, one wins.
// Times come from the Clock: the database's clock on PostgreSQL in production,
// the pinned time under a FakeClock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::store {

class Cache {
 public:
  using Ttl = std::chrono::milliseconds;  // zero = never expires

  Cache(Db& db, const Clock& clock) : db_(db), clock_(clock) {}

  // Stores the value only if the key is absent or expired; true if stored.
  bool add(const std::string& key, const std::string& value, Ttl ttl);
  std::optional<std::string> get(const std::string& key);
  void set(const std::string& key, const std::string& value, Ttl ttl);
  // Deletes the key only if it holds `value` (a lease released by its holder).
  bool delete_if(const std::string& key, const std::string& value);
  bool erase(const std::string& key);
  // Adds `delta` to a counter (absent or expired counts as 0, and then gets
  // `ttl`); returns the new value. A live counter keeps its expiry.
  std::int64_t incr(const std::string& key, std::int64_t delta, Ttl ttl);
  // Deletes the rows already past their expiry; returns how many.
  std::int64_t purge_expired();

  static std::vector<Migration> migrations();

 private:
  Db& db_;
  const Clock& clock_;
};

}  // namespace peto::store
