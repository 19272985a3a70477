// /feeds/{token}/calendar.ics and /profile/feed: a person's interviews and
// open reminders as an .ics address that calendar apps subscribe to.
#include "pages/feed_pages.h"

#include "core/log.h"
#include "notify/notification.h"
#include "sync/feed.h"

namespace peto::web {

namespace {

using nlohmann::json;

std::string feed_path(const std::string& token) { return "/feeds/" + token + "/calendar.ics"; }

// The page with the section; `address` is non-empty only on the answer
// that made it, `flash_key` names a message to show.
Response feed_page(Site& site, const Request& r, const Visitor& v, const std::string& address,
                   const std::string& flash_key) {
  const json& t = site.catalogue().messages(v.language);
  json data = {{"feed", feed_section(site, v)}};
  if (!address.empty()) data["feed"]["address"] = address;
  if (!flash_key.empty())
    data["flash"] = {{"kind", "success"}, {"message", t.value(flash_key, flash_key)}};
  Response out = site.render(r, v, 200, "feed", data);
  // The address is a secret: nothing on this page may carry it elsewhere.
  out.set_header("Referrer-Policy", "no-referrer");
  return out;
}

Response get_calendar(Site& site, Request& r) {
  sync::CalendarFeeds feeds(site.db(), site.clock());
  auto owner = feeds.owner_of(r.param("token"));
  if (!owner) {
    Response out =
        Response::text(404, site.catalogue().text(site.public_language(r), "feed_not_found"));
    out.set_header("Referrer-Policy", "no-referrer");
    return out;
  }
  Response out;
  out.status = 200;
  out.body = feeds.render(*owner);
  out.set_header("Content-Type", "text/calendar; charset=utf-8");
  out.set_header("Cache-Control", "private, max-age=300");
  out.set_header("Referrer-Policy", "no-referrer");
  return out;
}

Response post_feed(Site& site, Request& r, const Visitor& v) {
  sync::CalendarFeeds feeds(site.db(), site.clock());
  bool replaced = feeds.exists(v.account.id);
  std::string token = feeds.create(v.account.id);
  log::info("web", replaced ? "calendar feed replaced" : "calendar feed created",
            {{"user", v.account.id}});
  std::string public_url = site.config() != nullptr ? site.config()->public_url : std::string();
  // Answered here rather than by a redirect: the address must not outlive
  // this response (signed_in marks it no-store).
  return feed_page(site, r, v, notify::absolute_url(public_url, feed_path(token)), "");
}

Response post_revoke(Site& site, Request&, const Visitor& v) {
  if (sync::CalendarFeeds(site.db(), site.clock()).revoke(v.account.id))
    log::info("web", "calendar feed revoked", {{"user", v.account.id}});
  return Site::redirect("/profile/feed?revoked=1");
}

}  // namespace

json feed_section(const Site& site, const Visitor& v) {
  auto since = sync::CalendarFeeds(site.db(), site.clock()).created_at(v.account.id);
  json out = {{"active", since.has_value()},
              {"has_public_url", site.config() != nullptr && !site.config()->public_url.empty()}};
  if (since)
    out["since"] = site.catalogue().fill(v.language, "feed_active_since",
                                         {{"when", site.format_time(v, *since)}});
  return out;
}

void add_feed_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add(
      "GET", "/feeds/{token}/calendar.ics", [s](Request& r) { return get_calendar(*s, r); },
      "A person's calendar feed (.ics), by its secret token");
  router.add("GET", "/profile/feed", site.signed_in([s](Request& r, const Visitor& v) {
    bool revoked = r.query_param("revoked").value_or("") == "1";
    return feed_page(*s, r, v, "", revoked ? "feed_revoked" : "");
  }),
             "Calendar feed");
  router.add("POST", "/profile/feed",
             site.signed_in([s](Request& r, const Visitor& v) { return post_feed(*s, r, v); }),
             "Create or replace the calendar feed address");
  router.add("POST", "/profile/feed/revoke",
             site.signed_in([s](Request& r, const Visitor& v) { return post_revoke(*s, r, v); }),
             "Turn off the calendar feed");
}

}  // namespace peto::web
