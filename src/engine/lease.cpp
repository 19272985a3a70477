#include "engine/lease.h"

namespace peto::engine {

std::vector<store::Migration> PassLease::migrations() {
  return {{2, "scheduler_lease",
           "CREATE TABLE scheduler_lease ("
           " name TEXT PRIMARY KEY, owner_token TEXT NOT NULL, epoch BIGINT NOT NULL,"
           " acquired_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,"
           // released: the holder ended it; takeovers: leases taken after they
           // ran out without a release (a pass that died or overran).
           " released INTEGER NOT NULL DEFAULT 0, takeovers BIGINT NOT NULL DEFAULT 0)",
           ""}};
}

PassLease::Stats PassLease::stats() const {
  auto rows = db_.query("SELECT epoch, takeovers FROM scheduler_lease WHERE name = ?", {name_});
  if (rows.empty()) return {};
  return {rows[0].int_at("epoch"), rows[0].int_at("takeovers")};
}

std::optional<HeldLease> PassLease::acquire(Ttl ttl) {
  std::string token = random_token();
  store::Value now = store::now_param(clock_);
  auto rows = db_.query(
      "INSERT INTO scheduler_lease (name, owner_token, epoch, acquired_at, expires_at)"
      " VALUES (?, ?, 1, COALESCE(?, now_ms()), COALESCE(?, now_ms()) + ?)"
      " ON CONFLICT (name) DO UPDATE SET owner_token = excluded.owner_token,"
      "  epoch = scheduler_lease.epoch + 1, acquired_at = excluded.acquired_at,"
      "  expires_at = excluded.expires_at, released = 0,"
      "  takeovers = scheduler_lease.takeovers"
      "   + CASE WHEN scheduler_lease.released = 0 THEN 1 ELSE 0 END"
      " WHERE scheduler_lease.expires_at <= excluded.acquired_at"
      " RETURNING epoch, takeovers",
      {name_, token, now, now, static_cast<long long>(ttl.count())});
  if (rows.empty()) return std::nullopt;
  return HeldLease{token, rows[0].int_at("epoch")};
}

bool PassLease::renew(const HeldLease& held, Ttl ttl) {
  return db_.query(
                "UPDATE scheduler_lease SET expires_at = COALESCE(?, now_ms()) + ?"
                " WHERE name = ? AND owner_token = ? AND epoch = ?",
                {store::now_param(clock_), static_cast<long long>(ttl.count()), name_, held.token,
                 held.epoch})
             .affected == 1;
}

bool PassLease::release(const HeldLease& held) {
  return db_.query(
                "UPDATE scheduler_lease SET expires_at = COALESCE(?, now_ms()), released = 1"
                " WHERE name = ? AND owner_token = ? AND epoch = ?",
                {store::now_param(clock_), name_, held.token, held.epoch})
             .affected == 1;
}

}  // namespace peto::engine
