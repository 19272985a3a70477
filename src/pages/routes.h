// Every route of the web app, in one place: the core pages, the account
// pages, and (later) the records. serve.cpp and the HTTP tests call this.
#pragma once

#include "http/router.h"
#include "pages/pages.h"
#include "pages/site.h"

namespace peto::web {

// Adds the core routes, the account routes, and installs the Site's error
// page (translated, with the navigation for a signed-in person). `site` must
// be loaded and outlive the router.
void add_site_routes(Router& router, Site& site, const CoreDeps& core);

}  // namespace peto::web
