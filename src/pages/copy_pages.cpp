// POST /documents/{id}/copies/{copy_id}/send: "Send now" on one copy of a
// document (media/copies.h: attempts back to 0, the copy's own claim, one
// attempt). CSRF-checked by Site::signed_in like every form; a copy that is
// not the visitor's, or not of that document, is the 404 page. It is a try
// (connections/tries.h): with a worker the document's page is shown at
// ?try=<errand> and says "Sending…" until the outcome is there; without one
// the attempt runs in this request and the page is shown with the outcome in
// `copy=` (sent, failed, declined, refused, busy). A person with enough
// tries running gets `copy=too_many`.
#include <string>

#include "connections/tries.h"
#include "core/log.h"
#include "media/copies.h"
#include "net/http.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

namespace {

Response post_send(Site& site, Request& r, const Visitor& v) {
  static const net::HttpClient http;
  auto document = path_id(r);
  auto copy = parse_id(r.param("copy_id"));
  if (!document || !copy) return site.not_found(r, v);
  media::Copies copies(site.db(), site.clock(), site.settings(), http);
  if (!copies.is_copy_of(v.account.id, *copy, *document)) return site.not_found(r, v);
  auto started = connections::Tries(site.db(), site.clock(), site.settings(), http)
                     .start(v.account.id, connections::Try::copy, *copy, v.language);
  const std::string page = "/documents/" + std::to_string(*document);
  if (auto* refused = std::get_if<connections::TryRefusal>(&started)) {
    if (*refused == connections::TryRefusal::not_found) return site.not_found(r, v);
    return Site::redirect(page + "?copy=too_many");
  }
  const auto& done = std::get<connections::Started>(started);
  if (done.task_id != 0) {
    log::info("web", "copy try queued",
              {{"user", v.account.id}, {"copy", *copy}, {"task", done.task_id}});
    return Site::redirect(page + "?try=" + std::to_string(done.task_id));
  }
  log::info("web", "copy sent now",
            {{"user", v.account.id}, {"copy", *copy}, {"outcome", done.outcome->outcome}});
  return Site::redirect(page + "?copy=" + done.outcome->outcome);
}

}  // namespace

void add_copy_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("POST", "/documents/{id}/copies/{copy_id}/send",
             s->signed_in([s](Request& r, const Visitor& v) { return post_send(*s, r, v); }),
             "Send one copy of a document to its store now");
}

}  // namespace peto::web
