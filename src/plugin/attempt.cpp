#include "plugin/attempt.h"

#include <algorithm>

namespace peto::plugin {

Millis retry_wait(const Backoff& backoff, int attempts) {
  return backoff.first_wait << std::clamp(attempts - 1, 0, 20);
}

std::optional<Millis> next_attempt(const Outcome& outcome, int attempts, const Backoff& backoff) {
  if (outcome.kind != Outcome::Kind::retry || attempts >= backoff.max_attempts) return std::nullopt;
  return retry_wait(backoff, attempts);
}

bool settle(const ConnectionState& state, store::Conn& conn, std::int64_t id,
            const Outcome& outcome, Record which) {
  if (outcome.kind == Outcome::Kind::unusable) {
    state.retire(conn, id, outcome.message, outcome.keep_secrets);
    return true;
  }
  const bool done = outcome.kind == Outcome::Kind::done;
  if (done || which == Record::every_outcome) state.record(conn, id, done, outcome.message);
  return false;
}

}  // namespace peto::plugin
