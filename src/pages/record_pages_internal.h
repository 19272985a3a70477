// Shared by record_pages.cpp and application_pages.cpp (not a public header).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/applications.h"
#include "domain/records.h"
#include "http/form.h"
#include "pages/record_view.h"
#include "pages/site.h"
#include "typeset/document.h"

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

// `path` with a query string of the pairs that are not empty.
std::string query_href(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& pairs);

// A form a quick add filled (?read=1) says so, and names the words about a
// day it could not read (?unread=), in `data` for record_form.
void say_what_was_read(RecordPages& p, const Visitor& v, const nlohmann::json& values,
                       nlohmann::json& data);

// The inputs of a listing form: the kind's, with a company name in place of
// company_id (`only` as RecordView::inputs).
nlohmann::json listing_inputs(RecordPages& p, const Visitor& v, const nlohmann::json& values,
                              const nlohmann::json& errors,
                              const std::vector<std::string>& only = {});

// What a listing form's save does next in its transaction (an application
// for it): given the listing made (nullptr when it was refused) and the
// errors so far, to which it adds its own; its answer is the save's when
// there are none.
using AfterListing = std::function<domain::Written(store::Conn&, const domain::Record* listing,
                                                   domain::FieldErrors& errors)>;

// Saves a listing from its form (the company by name, made when new) and
// then `then`, all in one transaction: nothing is written unless all is.
domain::Written save_listing(RecordPages& p, const Visitor& v, const Form& form,
                             domain::Input input, std::optional<std::int64_t> id,
                             const AfterListing& then = nullptr);

// A record table as the query `q` asks for it (table_pages.cpp); a refused
// action shows it again with what `said` adds to the page's data (the
// reason by the action: bulk_error, view_error), status 422.
Response table_page(RecordPages& p, Request& r, const Visitor& v, const domain::Kind& k,
                    const Form& q, int status = 200,
                    const nlohmann::json& said = nlohmann::json::object());
// POST /<kind>/bulk: one action on the ticked rows of a table.
Response bulk_action(RecordPages& p, Request& r, const Visitor& v, const domain::Kind& k);
// What a CV's page shows beyond its fields: its preview and its downloads
// (cv_pages.cpp).
nlohmann::json cv_section(RecordPages& p, const Visitor& v, std::int64_t id,
                          const nlohmann::json& cv);
// GET /cvs/{id}/cv.pdf and /cvs/{id}/cv.txt: the CV typeset, or as text.
Response cv_pdf(RecordPages& p, Request& r, const Visitor& v);
// A typeset document as HTML for a page's preview: headings h2, lists ul.
std::string preview_html(const typeset::Document& doc);

// sent_pages.cpp: a letter template's preview (?application= fills it for
// one of the person's applications, else with example values) and
// downloads; "Record as sent" on an application's page and its errand's
// page; the difference between two copies made from the same CV or letter.
nlohmann::json letter_section(RecordPages& p, const Request& r, const Visitor& v, std::int64_t id,
                              const nlohmann::json& letter);
Response letter_pdf(RecordPages& p, Request& r, const Visitor& v);
Response letter_text(RecordPages& p, Request& r, const Visitor& v);
nlohmann::json send_form(RecordPages& p, const Visitor& v, std::int64_t application_id);
Response post_send(RecordPages& p, Request& r, const Visitor& v);
Response send_progress(RecordPages& p, Request& r, const Visitor& v);
Response compare_page(RecordPages& p, Request& r, const Visitor& v);
Response cv_text(RecordPages& p, Request& r, const Visitor& v);
// POST /<kind>/views and /<kind>/views/{id}/delete: a person's saved views.
Response save_view(RecordPages& p, Request& r, const Visitor& v, const domain::Kind& k);
Response forget_view(RecordPages& p, Request& r, const Visitor& v, const domain::Kind& k);

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
