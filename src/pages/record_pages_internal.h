// Shared by record_pages.cpp and application_pages.cpp (not a public header).
#pragma once

#include <memory>

#include "domain/applications.h"
#include "domain/records.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

struct RecordPages {
  RecordPages(Site& s, store::Db& db)
      : site(s), records(db, s.clock()), apps(records), view(s, records) {}
  Site& site;
  domain::Records records;
  domain::Applications apps;
  RecordView view;

  // The answer to a Written: 303 to `to(record)` on success, with "Saved."
  // (or the message `saved_key` names) on the next page; the 404 page for
  // NotFound, `on_errors(texts)` for FieldErrors.
  template <typename To, typename OnErrors>
  Response answer(const Request& r, const Visitor& v, const domain::Written& w, To to,
                  OnErrors on_errors, const std::string& saved_key = "flash_saved") {
    if (auto* rec = std::get_if<domain::Record>(&w))
      return site.redirect(r, to(*rec), Flash::of("success", site.say(v, saved_key)));
    if (auto* errors = std::get_if<domain::FieldErrors>(&w))
      return on_errors(site.error_texts(&v, r, *errors));
    return site.not_found(r, v);
  }
};

// The inputs of a listing form: the kind's, with a company name in place of
// company_id (`only` as RecordView::inputs).
nlohmann::json listing_inputs(RecordPages& p, const Visitor& v, const nlohmann::json& values,
                              const nlohmann::json& errors,
                              const std::vector<std::string>& only = {});

// GET / for a signed-in visitor.
Response dashboard_page(RecordPages& p, Request& r, const Visitor& v);
// The boards of /listings and /applications (the default view).
Response listings_board(RecordPages& p, Request& r, const Visitor& v);
Response applications_board(RecordPages& p, Request& r, const Visitor& v);
// GET /applications/{id}; `form` re-shows one of its forms with errors
// ({"name": "reminder", "values": {...}, "errors": {...}}), status 422 then.
Response application_page(RecordPages& p, Request& r, const Visitor& v, std::int64_t id,
                          const nlohmann::json& form = nullptr);
// The POST /applications/{id}/… actions.
void add_application_routes(Router& router, Site& site, const std::shared_ptr<RecordPages>& p);

}  // namespace peto::web
