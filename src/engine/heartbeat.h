// Heartbeat: a file saying when a loop last finished a round.
//
// write() replaces the file atomically (a temp file in the same folder, then
// rename), with the time as RFC 3339 text; parent folders are created. read()
// trusts the text first and the file's mtime only when the text is unreadable,
// since a restored volume can carry a wrong mtime.
#pragma once

#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"

namespace peto::engine {

Status write_heartbeat(const std::string& path, Millis at);
std::optional<Millis> read_heartbeat(const std::string& path);

// For `peto healthcheck`: healthy when the heartbeat is at most `max_age_ms` old.
bool heartbeat_fresh(const std::string& path, Millis now, Millis max_age_ms);

}  // namespace peto::engine
