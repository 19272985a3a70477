// Events: what the domain tells the rest of peto about a change a person made,
// inside the transaction that made it. The domain never knows who listens:
// the announcer (notify/domain_events.h) installs itself as the sink when a
// program starts, and turns each event into inbox notices and deliveries in
// the same transaction, so an event is announced exactly when its change
// commits.
//
//   domain::Event e;  // name, owner, at, the record and what it is about
//   domain::publish(conn, e);
//
// Publishing with no sink installed is a programming error and throws
// std::logic_error, so a program that forgot to install one fails loudly
// instead of silently telling nobody.
#pragma once

#include <cstdint>
#include <string>

#include "core/clock.h"
#include "store/db.h"

namespace peto::domain {

struct Event {
  std::string
      name;  // "status_changed", "interview_scheduled", "offer_recorded", "capture_received"
  std::int64_t owner = 0;
  Millis at = 0;                    // when it happened
  std::int64_t record_id = 0;       // the timeline entry, interview, offer or capture
  std::int64_t application_id = 0;  // 0 for a capture
  std::string role;                 // the listing's (or the captured page's) role
  std::string company;              // its company's name
  std::string from_status;          // status_changed
  std::string to_status;            // status_changed
  Millis starts_at = 0;             // interview_scheduled
};

using EventSink = void (*)(store::Conn& conn, const Event& event);

// Sets the process's sink (once at start-up; setting it again replaces it).
void set_event_sink(EventSink sink);

// Hands `event` to the sink on `conn`, inside the caller's transaction.
void publish(store::Conn& conn, const Event& event);

}  // namespace peto::domain
