// The announcer of the domain's events (domain/events.h): each event becomes
// the inbox notice and the deliveries its owner's connections want, written
// in the transaction that made the change.
//
// Every program that changes records calls install_event_sink() once at
// start-up (main, the test and benchmark programs).
#pragma once

#include "domain/events.h"
#include "store/db.h"

namespace peto::notify {

void announce_domain_event(store::Conn& conn, const domain::Event& event);
void install_event_sink();

}  // namespace peto::notify
