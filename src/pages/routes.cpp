#include "pages/routes.h"

#include "pages/calendar_pages.h"
#include "pages/feed_pages.h"
#include "pages/insight_pages.h"
#include "pages/record_pages.h"
#include "pages/search_pages.h"

namespace peto::web {

void add_site_routes(Router& router, Site& site, const CoreDeps& core) {
  CoreDeps with_dashboard = core;
  with_dashboard.home = home_handler(site);
  add_core_routes(router, with_dashboard);
  add_account_routes(router, site);
  add_security_routes(router, site);
  add_two_factor_routes(router, site);
  add_token_routes(router, site);
  add_feed_routes(router, site);
  add_calendar_routes(router, site);
  add_insight_routes(router, site);
  add_search_routes(router, site);
  add_connection_routes(router, site);
  add_document_routes(router, site);
  add_copy_routes(router, site);
  add_export_routes(router, site);
  add_record_routes(router, site);
  add_trash_routes(router, site);
  add_capture_routes(router, site);
  router.set_error_page(site.error_page());
}

}  // namespace peto::web
