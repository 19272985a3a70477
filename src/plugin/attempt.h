// An attempt against a connection: the one way the outbox's deliveries
// (notify), document copies (media) and syncs (sync) settle what a use of a
// connection came to. Each of them loads the connection
// (ConnectionState::full_config), calls its plugin, and turns the answer into
// an Outcome; settle() then writes the outcome on the connection's row — the
// connection retired when it is unusable, marked working or failing
// otherwise — and next_attempt() says when the piece of work is tried again.
// The work's own row (a delivery, a copy, a sync's report) stays with the
// module that owns its table.
//
//   plugin::Outcome out = ...;                  // the plugin's answer
//   plugin::settle(state, conn, id, out);       // retire, or record
//   auto wait = plugin::next_attempt(out, attempts, {max, first_wait});
//
// Everything here is stateless and may be used from several threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "plugin/connection_state.h"
#include "store/db.h"

namespace peto::plugin {

// What one use of a connection came to.
struct Outcome {
  enum class Kind {
    done,      // the other side did it (2xx, mail accepted, file stored, sync ran)
    retry,     // try again later (5xx, 408, 429, timeout, refused connection, DNS)
    final,     // trying again cannot help (4xx, a refused destination, a declined file)
    unusable,  // the connection itself is over (token revoked, credentials refused): retire it
  };
  Kind kind = Kind::retry;
  std::string message;             // a sentence for the person; "" when done
  std::optional<int> http_status;  // the answer's status, when there was one
  bool keep_secrets = false;       // for unusable: retire without wiping the secrets
};

// How a piece of work backs off: at most `max_attempts` attempts, the wait
// after failed attempt n (1-based) being first_wait × 2^(n−1).
struct Backoff {
  int max_attempts = 1;
  Millis first_wait = 0;
};

// first_wait × 2^(attempts−1), the exponent kept within [0, 20].
Millis retry_wait(const Backoff& backoff, int attempts);

// The wait before the next attempt after attempt `attempts` (1-based) came to
// `outcome`: only a retry with attempts left is tried again; nullopt
// otherwise (done, final, unusable, or the last attempt spent).
std::optional<Millis> next_attempt(const Outcome& outcome, int attempts, const Backoff& backoff);

// Which outcomes settle() writes on the connection's row.
enum class Record {
  every_outcome,  // done and failures alike (deliveries, syncs)
  done_only,      // only done; a failure leaves the row as it was (copies)
};

// Writes `outcome` on connection `id`, on `conn` (inside the caller's
// transaction if any): unusable retires it (ConnectionState::retire, secrets
// wiped unless keep_secrets); otherwise ConnectionState::record, as `which`
// says. True when the connection was retired.
bool settle(const ConnectionState& state, store::Conn& conn, std::int64_t id,
            const Outcome& outcome, Record which = Record::every_outcome);

}  // namespace peto::plugin
