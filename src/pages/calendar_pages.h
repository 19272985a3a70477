// /calendar: a person's interviews, reminders, deadlines, closing dates and
// answer-by dates as an agenda, a week or a month, in their time zone
// (domain/agenda.h); and a reminder put off to later ("snoozed") from there
// or from any page that offers it.
#pragma once

#include "http/router.h"
#include "pages/site.h"

namespace peto::web {

// GET /calendar, POST /reminders/{id}/snooze.
void add_calendar_routes(Router& router, Site& site);

}  // namespace peto::web
