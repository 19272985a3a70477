// Notification: one announcement, already in the words of the person it is for.
//
//   Notification n{.event = "reminder_due", .title = "Call Ada back", .body = "…",
//                  .url = "/reminders/7", .key = "reminder:7:2026-12-01T09:00:00Z"};
//   std::string bytes = payload(n);   // what a webhook signs and sends; what the outbox keeps
//
// The key is the stable identity of one announcement: the outbox keeps one
// delivery per (connection, key), and every attempt sends the same key and the
// same words (docs/RULES.md #1163). Events are the seven below; a notifier's per-event switch
// is the config key "event_<name>".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"

namespace peto::notify {

// reminder_due, capture_received, went_quiet, posting_closing, status_changed,
// interview_scheduled, offer_recorded — in that order.
const std::vector<std::string>& events();
bool is_event(std::string_view event);
// status_changed, interview_scheduled, offer_recorded: news of what the person
// did themselves, off unless a notifier says otherwise.
bool about_what_you_did(std::string_view event);

struct Notification {
  std::string event;
  std::string title;  // already in the recipient's language
  std::string body;
  std::string url;       // absolute when PETO_PUBLIC_URL is set, else a path
  std::string key;       // "" = no identity (a test): never de-duplicated
  std::string language;  // the catalogue language the words are in
  std::optional<Millis> occurred_at;
  nlohmann::json data = nlohmann::json::object();  // machine hints: ids, ISO dates
};

// The version-1 payload: {"version":1,"event","key","occurred_at" (RFC 3339
// or null),"language","title","body","url","data"} as canonical JSON (keys
// sorted, no spaces, UTF-8 as is). These bytes are signed and sent unchanged.
std::string payload(const Notification& n);
// The Notification a payload holds; nullopt for anything else.
std::optional<Notification> from_payload(std::string_view bytes);

// prefix + ":" + the first 40 hex characters of SHA-256 over the parts
// joined with no separator (a key for an announcement about many things).
std::string announcement_key(std::string_view prefix, const std::vector<std::string>& parts);
// A key of at most 200 characters: longer keys become
// announcement_key(key[:150], {key}).
std::string bounded_key(const std::string& key);

using peto::absolute_url;  // core/config.h

}  // namespace peto::notify
