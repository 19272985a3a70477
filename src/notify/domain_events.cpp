#include "notify/domain_events.h"

#include "notify/announcements.h"
#include "notify/outbox.h"

namespace peto::notify {

void announce_domain_event(store::Conn& conn, const domain::Event& e) {
  Named named{e.application_id, e.role, e.company};
  announce_event(conn, e.at, e.owner, e.name, [&](const Recipient& r) -> Notification {
    if (e.name == "status_changed")
      return status_changed(r, named, e.record_id, e.from_status, e.to_status, e.at, "");
    if (e.name == "interview_scheduled")
      return interview_scheduled(r, named, e.record_id, e.starts_at, "");
    if (e.name == "capture_received")
      return capture_received(r, e.record_id, e.role, e.company, e.at, "");
    return offer_recorded(r, named, e.record_id, e.at, "");
  });
}

void install_event_sink() { domain::set_event_sink(&announce_domain_event); }

}  // namespace peto::notify
