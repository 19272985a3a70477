// /search: one box over every kind of record a person keeps (domain/search.h),
// the results grouped by kind with the words found marked.
#pragma once

#include "http/router.h"
#include "pages/site.h"

namespace peto::web {

// GET /search?q=
void add_search_routes(Router& router, Site& site);

// Text with its found words between \x01 and \x02, as parts a template
// shows: [{"text": "Data ", "hit": false}, {"text": "Engineer", "hit": true}].
nlohmann::json marked_parts(const std::string& marked);

}  // namespace peto::web
