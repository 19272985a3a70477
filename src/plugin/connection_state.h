// ConnectionState: what a use of a connection reads and changes on its row —
// its config with the secrets opened, the outcome of the use, and retirement
// when the other side says the connection is over. Shared by the outbox's
// deliveries (notify), document copies (media) and syncs (sync), which never
// need the plugins' registry (connections/connections.h) for it.
//
//   ConnectionState state(clock, config);
//   auto full = state.full_config(conn, id);   // nullopt: gone, or secrets unreadable
//   state.record(conn, id, ok, message);       // or state.retire(conn, id, reason, keep)
//
// Deliveries, copies and syncs do not call record() and retire() themselves:
// plugin::settle (plugin/attempt.h) chooses between them from an Outcome.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/config.h"
#include "core/secret_box.h"
#include "store/db.h"

namespace peto::plugin {

// The secrets a connection holds: {} when none are set, nullopt when they
// cannot be opened (PETO_SECRET_KEY changed) or are damaged.
std::optional<nlohmann::json> open_secrets(const SecretBox& box, const std::string& sealed);

class ConnectionState {
 public:
  ConnectionState(const Clock& clock, const Config& config);

  // Config and secrets merged (secrets win); nullopt when there is no such
  // connection or its secrets cannot be opened (PETO_SECRET_KEY changed).
  std::optional<nlohmann::json> full_config(store::Conn& conn, std::int64_t id) const;

  // The outcome of a use: ok sets last_ok_at and clears last_error; a failure
  // keeps last_ok_at and sets last_error ("Failed without saying why." when
  // empty). Both on `conn`, inside the caller's transaction if any.
  void record(store::Conn& conn, std::int64_t id, bool ok, const std::string& message) const;
  // Switches the connection off with `reason` in last_error and wipes its
  // secrets unless `keep_secrets`.
  void retire(store::Conn& conn, std::int64_t id, const std::string& reason,
              bool keep_secrets) const;

 private:
  const Clock& clock_;
  SecretBox box_;
};

}  // namespace peto::plugin
