// Gates and key leases on the cache table.
//
// A gate lets work run at most once per period across every scheduler: the
// first pass to add the key runs the work, the others see it taken until it
// expires. A key lease guards one thing (a sync connection, a backup) with a
// random token, so only its holder can release it.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "store/cache.h"

namespace peto::engine {

// True for the first caller per `period` (one hour by default) across all
// processes sharing the database.
bool take_gate(store::Cache& cache, const std::string& name,
               std::chrono::milliseconds period = std::chrono::hours(1));

class KeyLease {
 public:
  // Takes `key` for `ttl` if nobody holds it; nullopt otherwise.
  static std::optional<KeyLease> take(store::Cache& cache, std::string key,
                                      std::chrono::milliseconds ttl);
  KeyLease(KeyLease&& other) noexcept;
  KeyLease& operator=(KeyLease&&) = delete;
  // Releases the key if it still holds our token (never somebody else's).
  ~KeyLease();
  const std::string& token() const { return token_; }

 private:
  KeyLease(store::Cache& cache, std::string key, std::string token)
      : cache_(&cache), key_(std::move(key)), token_(std::move(token)) {}
  store::Cache* cache_;
  std::string key_;
  std::string token_;
};

}  // namespace peto::engine
