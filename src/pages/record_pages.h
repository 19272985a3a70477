// The pages of a person's records: the dashboard, every kind's table, form
// and page, the listing and application boards, and the application page
// with its timeline.
//
//   add_record_routes(router, site);
//
// For each kind K (companies, contacts, listings, applications, reminders,
// interviews, offers, notes, tags):
//   GET  /K               the table (?tab= ?q= ?<filter>= ?before= for the next page)
//   GET  /K/new           the form (query values prefill it)
//   POST /K               create, then 303 to the record (or a local return_to)
//   GET  /K/{id}          the record's page
//   GET  /K/{id}/edit     the form
//   POST /K/{id}          save changes
//   POST /K/{id}/delete   delete, then 303 to /K
// and: GET / (dashboard), POST /listings/{id}/apply, POST /listings/{id}/state,
// POST /applications/{id}/status|events|reminders|notes|tags,
// POST /reminders/{id}/done, POST /interviews/{id}/outcome,
// GET /interviews/{id}/event.ics.
//
// Every handler is wrapped by Site::signed_in (session and CSRF) and every
// lookup is scoped to the visitor, so somebody else's record is the 404 page
// on every route. A form with errors is shown again with 422, each error next
// to its field and every typed value kept; nothing is saved.
#pragma once

#include "http/router.h"
#include "pages/site.h"

namespace peto::web {

void add_record_routes(Router& router, Site& site);

// /captures: save a listing from a link or a pasted page, and its review
// (capture_pages.cpp).
void add_capture_routes(Router& router, Site& site);

}  // namespace peto::web

namespace peto::web {

// GET /: the dashboard for a signed-in visitor; otherwise the sign-in page,
// or the start page that explains the first account while there is none.
Handler home_handler(Site& site);

}  // namespace peto::web
