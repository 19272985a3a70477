// The calendar feed's pages: the .ics address itself (no session: its secret
// token is the credential) and the "Calendar feed" part of the profile, where
// a person makes, replaces or turns off their address. See sync/feed.h.
#pragma once

#include <nlohmann/json.hpp>

#include "http/router.h"
#include "pages/site.h"

namespace peto::web {

// GET /feeds/{token}/calendar.ics, GET and POST /profile/feed,
// POST /profile/feed/revoke.
void add_feed_routes(Router& router, Site& site);

// The profile's "Calendar feed" section (templates/feed_section.mustache):
// {active, since}. The address itself is never in it: it is shown once, on
// the answer that made it.
nlohmann::json feed_section(const Site& site, const Visitor& v);

}  // namespace peto::web
