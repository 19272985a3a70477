// POST /documents/{id}/copies/{copy_id}/send: "Send now" on one copy of a
// document (media/copies.h: attempts back to 0, the copy's own claim, one
// attempt at once). CSRF-checked by Site::signed_in like every form; a copy
// that is not the visitor's, or not of that document, is the 404 page. The
// attempt runs in this request (up to the store's timeout): the person asked
// for it and waits for the answer. The document's page is shown again, with
// the outcome in `copy=` (sent, failed, declined, refused, busy).
#include <string>

#include "core/log.h"
#include "media/copies.h"
#include "net/http.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

namespace {

const Config& config_of(const Site& site) {
  static const Config defaults;
  return site.config() != nullptr ? *site.config() : defaults;
}

Response post_send(Site& site, Request& r, const Visitor& v) {
  static const net::HttpClient http;
  auto document = path_id(r);
  auto copy = parse_id(r.param("copy_id"));
  if (!document || !copy) return site.not_found(r, v);
  media::Copies copies(site.db(), site.clock(), config_of(site), http);
  if (!copies.is_copy_of(v.account.id, *copy, *document)) return site.not_found(r, v);
  auto outcome = copies.send_now(v.account.id, *copy);
  if (!outcome) return site.not_found(r, v);
  log::info("web", "copy sent now",
            {{"user", v.account.id},
             {"copy", *copy},
             {"outcome", std::string(media::copy_outcome_name(*outcome))}});
  return Site::redirect("/documents/" + std::to_string(*document) +
                        "?copy=" + media::copy_outcome_name(*outcome));
}

}  // namespace

void add_copy_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("POST", "/documents/{id}/copies/{copy_id}/send",
             s->signed_in([s](Request& r, const Visitor& v) { return post_send(*s, r, v); }),
             "Send one copy of a document to its store now");
}

}  // namespace peto::web
