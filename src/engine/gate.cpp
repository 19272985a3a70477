#include "engine/gate.h"

#include "core/log.h"
#include "engine/lease.h"

namespace peto::engine {

bool take_gate(store::Cache& cache, const std::string& name, std::chrono::milliseconds period) {
  return cache.add("gate:" + name, random_token(), period);
}

std::optional<KeyLease> KeyLease::take(store::Cache& cache, std::string key,
                                       std::chrono::milliseconds ttl) {
  std::string token = random_token();
  if (!cache.add(key, token, ttl)) return std::nullopt;
  return KeyLease(cache, std::move(key), std::move(token));
}

KeyLease::KeyLease(KeyLease&& other) noexcept
    : cache_(other.cache_), key_(std::move(other.key_)), token_(std::move(other.token_)) {
  other.cache_ = nullptr;
}

KeyLease::~KeyLease() {
  if (!cache_) return;
  try {
    cache_->delete_if(key_, token_);
  } catch (const std::exception& e) {
    // The key runs out by itself; nobody else's lease is at risk.
    log::warn("lease", "could not release a key lease", {{"key", key_}, {"error", e.what()}});
  }
}

}  // namespace peto::engine
