#include "store/cache.h"

namespace peto::store {

namespace {
Value ttl_param(Cache::Ttl ttl) {
  if (ttl.count() <= 0) return Value();
  return Value(static_cast<long long>(ttl.count()));
}
}  // namespace

std::vector<Migration> Cache::migrations() {
  return {{1, "cache",
           "CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at BIGINT);"
           "CREATE INDEX cache_expires_at ON cache (expires_at);",
           ""}};
}

bool Cache::add(const std::string& key, const std::string& value, Ttl ttl) {
  Value now = now_param(clock_);
  auto r = db_.query(
      "INSERT INTO cache (key, value, expires_at) VALUES (?, ?, COALESCE(?, now_ms()) + ?)"
      " ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at"
      " WHERE cache.expires_at IS NOT NULL AND cache.expires_at <= COALESCE(?, now_ms())",
      {key, value, now, ttl_param(ttl), now});
  return r.affected == 1;
}

std::optional<std::string> Cache::get(const std::string& key) {
  auto r = db_.query(
      "SELECT value FROM cache WHERE key = ?"
      " AND (expires_at IS NULL OR expires_at > COALESCE(?, now_ms()))",
      {key, now_param(clock_)});
  if (r.empty()) return std::nullopt;
  return r[0].text("value");
}

void Cache::set(const std::string& key, const std::string& value, Ttl ttl) {
  db_.query(
      "INSERT INTO cache (key, value, expires_at) VALUES (?, ?, COALESCE(?, now_ms()) + ?)"
      " ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
      {key, value, now_param(clock_), ttl_param(ttl)});
}

bool Cache::delete_if(const std::string& key, const std::string& value) {
  return db_.query("DELETE FROM cache WHERE key = ? AND value = ?", {key, value}).affected == 1;
}

bool Cache::erase(const std::string& key) {
  return db_.query("DELETE FROM cache WHERE key = ?", {key}).affected == 1;
}

std::int64_t Cache::incr(const std::string& key, std::int64_t delta, Ttl ttl) {
  Value now = now_param(clock_);
  auto r = db_.query(
      "INSERT INTO cache (key, value, expires_at) VALUES (?, ?, COALESCE(?, now_ms()) + ?)"
      " ON CONFLICT (key) DO UPDATE SET"
      "  value = CASE WHEN cache.expires_at IS NOT NULL AND cache.expires_at <= COALESCE(?, "
      "now_ms())"
      "   THEN excluded.value"
      "   ELSE CAST(CAST(cache.value AS BIGINT) + CAST(excluded.value AS BIGINT) AS TEXT) END,"
      "  expires_at = CASE WHEN cache.expires_at IS NOT NULL"
      "   AND cache.expires_at <= COALESCE(?, now_ms()) THEN excluded.expires_at"
      "   ELSE cache.expires_at END"
      " RETURNING value",
      {key, std::to_string(delta), now, ttl_param(ttl), now, now});
  return r[0].int_at("value");
}

std::int64_t Cache::purge_expired() {
  return db_
      .query(
          "DELETE FROM cache WHERE expires_at IS NOT NULL AND expires_at <= COALESCE(?, now_ms())",
          {now_param(clock_)})
      .affected;
}

}  // namespace peto::store
