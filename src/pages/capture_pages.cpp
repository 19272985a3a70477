// /captures: saving a listing from a link or a pasted page, and the review
// screen where the person checks what peto read before anything is saved.
//
//   GET  /captures                the form, and the captures waiting for review
//   POST /captures                url (+ html): pasted pages are read at once;
//                                 a bare link is fetched by the capture errand
//   GET  /captures/{id}           the review: every field read, editable
//   POST /captures/{id}/accept    company, listing (and application) at once
//   POST /captures/{id}/discard   keeps the url, so the page is known next time
//   GET  /quick-add               one field: a link, a pasted page or a line
//   POST /quick-add               a link or page is captured as above; a line
//                                 fills the form it names (nothing is saved
//                                 until the person saves that form)
#include <functional>
#include <memory>

#include "capture/errand.h"
#include "capture/kept_pages.h"
#include "core/timezone.h"
#include "domain/captures.h"
#include "domain/quick_add.h"
#include "http/form.h"
#include "pages/record_pages.h"
#include "pages/record_pages_internal.h"

namespace peto::web {

namespace {

using nlohmann::json;

// The fields the review shows, in its order.
const std::vector<std::string> kReviewed = {"role",      "company_id", "url",        "location",
                                            "remote",    "salary_min", "salary_max", "currency",
                                            "closes_on", "source",     "description"};

std::string host_of(const std::string& url_key) { return url_key.substr(0, url_key.find('/')); }

// What the parsers read, as the review form's values (strings, as typed).
json review_values(const domain::Capture& c) {
  const json& d = c["data"];
  auto text = [&](const char* name) { return d.value(name, std::string()); };
  auto number = [&](const char* name) {
    return d.contains(name) && d[name].is_number_integer()
               ? std::to_string(d[name].get<std::int64_t>())
               : std::string();
  };
  std::string url = text("url").empty() ? c["url"].get<std::string>() : text("url");
  return {{"role", text("role")},
          {"company", text("company")},
          {"url", url},
          {"location", text("location")},
          {"remote", text("remote")},
          {"salary_min", number("salary_min")},
          {"salary_max", number("salary_max")},
          {"currency", text("currency")},
          {"closes_on", text("closes_on")},
          {"source", host_of(c["url_key"].get<std::string>())},
          {"description", text("description")}};
}

json capture_row(RecordPages& p, const Visitor& v, const domain::Capture& c) {
  std::string role = c["data"].value("role", std::string());
  return {{"id", c["id"]},
          {"href", "/captures/" + std::to_string(c["id"].get<std::int64_t>())},
          {"title", role.empty() ? c["url"].get<std::string>() : role},
          {"company", c["data"].value("company", std::string())},
          {"host", host_of(c["url_key"].get<std::string>())},
          {"status", p.view.text(v, "capture_status_" + c["status"].get<std::string>())},
          {"saved", p.site.format_time(v, c["created_at"].get<std::int64_t>())}};
}

Response list_page(RecordPages& p, Request& r, const Visitor& v, const json& values,
                   const domain::FieldErrors& errors, int status) {
  domain::Captures captures(p.records);
  json waiting = json::array();
  for (const char* s : {"fetching", "pending", "failed"})
    for (const auto& c : captures.list(v.account.id, s)) waiting.push_back(capture_row(p, v, c));
  json data = {{"values", values},
               {"errors", p.site.error_texts(&v, r, errors)},
               {"waiting", waiting},
               {"has_waiting", !waiting.empty()},
               {"bookmarklet", capture_bookmarklet(p.site, r)}};
  if (auto it = errors.by_field.find("form"); it != errors.by_field.end())
    data["form_error"] = p.view.text(v, it->second);
  return p.site.render(r, v, status, "captures", std::move(data));
}

Response review_page(RecordPages& p, Request& r, const Visitor& v, const domain::Capture& c,
                     const json& values, const domain::FieldErrors& errors, int status) {
  const std::string state = c["status"].get<std::string>();
  json error_texts = p.site.error_texts(&v, r, errors);
  json data = {{"capture", capture_row(p, v, c)},
               {"url", c["url"]},
               {"action", "/captures/" + std::to_string(c["id"].get<std::int64_t>())},
               {"fetching", state == "fetching"},
               {"reviewable", state == "pending" || state == "failed"},
               {"done", state == "accepted" || state == "discarded"},
               {"failed", state == "failed"},
               {"error", c["error"].is_string() ? c["error"] : json("")},
               {"seen_before", c.value("seen_before", false)},
               {"has_errors", !errors.empty()},
               {"apply", values.value("apply", std::string()) == "1"},
               {"inputs", listing_inputs(p, v, values, error_texts, kReviewed)}};
  if (c["parser"].is_string()) data["parser"] = c["parser"];
  // Pasted or fetched, and no reader found a posting in it: say so rather
  // than show an empty form as if that were what the page held.
  data["nothing_read"] = state == "pending" && !c["parser"].is_string();
  if (c["page_sha256"].is_string()) {
    data["page_href"] = "/captures/" + std::to_string(c["id"].get<std::int64_t>()) + "/page";
    data["page_sha256"] = c["page_sha256"];
  }
  if (c.value("seen_listing_id", json()).is_number())
    data["seen_listing_href"] =
        "/listings/" + std::to_string(c["seen_listing_id"].get<std::int64_t>());
  if (c["listing_id"].is_number())
    data["listing_href"] = "/listings/" + std::to_string(c["listing_id"].get<std::int64_t>());
  if (auto it = errors.by_field.find("form"); it != errors.by_field.end())
    data["form_error"] = p.view.text(v, it->second);
  Response out = p.site.render(r, v, status, "capture", data);
  // A page still being fetched looks again in a few seconds (no JavaScript).
  if (state == "fetching") out.set_header("Refresh", "3");
  return out;
}

// A link (fetched by the capture errand) or a pasted page (read at once)
// made a capture, and the person sent to review it; `refused` answers with
// the form again when it cannot be.
using Refused = std::function<Response(const domain::FieldErrors&, int status)>;
Response capture_from(RecordPages& p, const Visitor& v, const std::string& url,
                      const std::string& html, const Refused& refused) {
  if (domain::capture_rate_limited(p.records.db(), p.site.clock(), v.account.id)) {
    domain::FieldErrors e;
    e.add("form", "error_capture_rate");
    return refused(e, 429);
  }
  capture::KeptPages pages(p.site.db(), p.site.clock(), pages_dir(p.site));
  auto made = capture::capture_page(p.records, v.account.id, url, html, "web", &pages);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) return refused(*errors, 422);
  const auto id = std::get<domain::Capture>(made)["id"].get<std::int64_t>();
  return Site::redirect("/captures/" + std::to_string(id));
}

Response create(RecordPages& p, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  json values = {{"url", f.get("url")}, {"html", f.get("html")}};
  return capture_from(p, v, f.get("url"), f.get("html"),
                      [&](const domain::FieldErrors& e, int status) {
                        return list_page(p, r, v, values, e, status);
                      });
}

// The most a quick add takes: a pasted page, as /captures takes one.
constexpr std::size_t kMaxQuickAdd = domain::kMaxCapturedPageBytes;

// The quick add page; an error is the one field's (a capture's refusal of
// the link or the page included: the first, when there are several).
Response quick_add_page(RecordPages& p, Request& r, const Visitor& v, const std::string& text,
                        const domain::FieldErrors& errors, int status) {
  const std::string error =
      errors.by_field.empty() ? "" : p.view.text(v, errors.by_field.begin()->second);
  return p.site.render(r, v, status, "quick_add",
                       {{"title", p.view.text(v, "quick_add_heading")},
                        {"quick_text", text},
                        {"quick_error", error}});
}

// The form a line fills: an application sent on a day, or a new listing.
std::string line_form(const domain::QuickAdd& q) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"role", q.role}, {"company", q.company}, {"location", q.location}, {"url", q.url}};
  if (q.applied) {
    fields.emplace_back("applied_on", q.applied_on);
    fields.emplace_back("unread", q.unread);
  }
  fields.emplace_back("read", "1");
  return query_href(q.applied ? "/applications/record" : "/listings/new", fields);
}

Response quick_add(RecordPages& p, Request& r, const Visitor& v) {
  const std::string text = Form::parse(r).get("text");
  auto refused = [&](const domain::FieldErrors& e, int status) {
    return quick_add_page(p, r, v, text, e, status);
  };
  domain::FieldErrors errors;
  if (text.size() > kMaxQuickAdd) {
    errors.add("text", "error_page_too_large");
    return refused(errors, 422);
  }
  const domain::QuickAdd q =
      domain::read_quick_add(text, local_date(p.site.clock().now_ms(), v.time_zone));
  switch (q.kind) {
    case domain::QuickAdd::Kind::empty:
      errors.add("text", "error_quick_add_empty");
      return refused(errors, 422);
    case domain::QuickAdd::Kind::link:
      return capture_from(p, v, q.url, "", refused);
    case domain::QuickAdd::Kind::page:
      if (q.url.empty()) {
        errors.add("text", "error_quick_add_page_link");
        return refused(errors, 422);
      }
      return capture_from(p, v, q.url, text, refused);
    case domain::QuickAdd::Kind::line:
      break;
  }
  return Site::redirect(line_form(q));
}

Response show(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  auto c = id ? domain::Captures(p.records).get(v.account.id, *id) : std::nullopt;
  if (!c) return p.site.not_found(r, v);
  return review_page(p, r, v, *c, review_values(*c), {}, 200);
}

Response accept(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  domain::Captures captures(p.records);
  auto c = id ? captures.get(v.account.id, *id) : std::nullopt;
  if (!c) return p.site.not_found(r, v);
  Form f = Form::parse(r);
  domain::Input input = p.view.input(v, f, domain::kind("listings"));
  input.partial = true;  // only the reviewed fields; the rest take their defaults
  input.values.erase("company_id");
  input.values["company"] = f.get("company");
  const bool apply = f.get("apply") == "1";
  auto made = captures.accept(v.account.id, *id, input, apply);
  if (std::holds_alternative<domain::NotFound>(made)) return p.site.not_found(r, v);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
    json values = json::object();
    for (const auto& name : kReviewed) values[name] = f.get(name);
    values["company"] = f.get("company");
    values["apply"] = apply ? "1" : "";
    return review_page(p, r, v, *c, values, *errors, 422);
  }
  const auto& listing = std::get<domain::Record>(made);
  auto after = captures.get(v.account.id, *id);
  if (apply && after && (*after)["application_id"].is_number())
    return Site::redirect("/applications/" +
                          std::to_string((*after)["application_id"].get<std::int64_t>()));
  return Site::redirect("/listings/" + std::to_string(id_of(listing)));
}

// The kept source, as text to save: never rendered as HTML on this site.
Response kept_page(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  auto html =
      capture::KeptPages(p.site.db(), p.site.clock(), pages_dir(p.site)).read(v.account.id, *id);
  if (!html) return p.site.not_found(r, v);
  Response out = Response::text(200, std::move(*html));
  out.set_header("Content-Disposition",
                 "attachment; filename=\"capture-" + std::to_string(*id) + ".html.txt\"");
  return out;
}

Response discard(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id || !domain::Captures(p.records).discard(v.account.id, *id)) return p.site.not_found(r, v);
  return Site::redirect("/captures");
}

// This site's address as the browser reached it: PETO_PUBLIC_URL, else the
// Host the request named (checked to be a plain host[:port]).
std::string site_base(const Site& site, const Request& r) {
  if (site.config() != nullptr && !site.config()->public_url.empty())
    return site.config()->public_url;
  const std::string* host = r.header("Host");
  bool plain = host != nullptr && !host->empty() && host->size() <= 255 &&
               host->find_first_not_of(
                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789.-:[]") == std::string::npos;
  return plain ? "http://" + *host : "";
}

}  // namespace

// A bookmark that opens this page with the current tab's address filled in.
// It sends only the link: a page behind a sign-in is pasted instead.
std::string capture_bookmarklet(const Site& site, const Request& r) {
  std::string base = site_base(site, r);
  if (base.empty()) return {};
  while (base.ends_with('/')) base.pop_back();
  return "javascript:location.href='" + base + "/captures?url='+encodeURIComponent(location.href)";
}

std::filesystem::path pages_dir(const Site& site) {
  return site.config() != nullptr ? site.config()->pages_dir() : Config().pages_dir();
}

void add_capture_routes(Router& router, Site& site) {
  auto p = std::make_shared<RecordPages>(site, site.db());
  auto page = [&site, p](Response (*fn)(RecordPages&, Request&, const Visitor&)) {
    return site.signed_in([p, fn](Request& r, const Visitor& v) { return fn(*p, r, v); });
  };
  router.add("GET", "/captures", site.signed_in([p](Request& r, const Visitor& v) {
    // ?url= fills in the link (what the bookmarklet opens).
    json values = {{"url", r.query_param("url").value_or("").substr(0, 2000)}};
    return list_page(*p, r, v, values, {}, 200);
  }),
             "Save a listing from a link or a page");
  // A pasted page is taken up to its own limit, form-encoded (up to three
  // bytes a byte), not the server's default for forms.
  auto pasted = [&page](Response (*fn)(RecordPages&, Request&, const Visitor&)) {
    Guarded g = page(fn);
    g.max_body_bytes = 3 * domain::kMaxCapturedPageBytes + (64 << 10);
    return g;
  };
  router.add("POST", "/captures", pasted(create), "Capture a page");
  router.add("GET", "/captures/{id}", page(show), "Review a capture");
  router.add("POST", "/captures/{id}/accept", page(accept), "Save the reviewed listing");
  router.add("POST", "/captures/{id}/discard", page(discard), "Discard a capture");
  router.add("GET", "/captures/{id}/page", page(kept_page), "The kept source of a captured page");
  router.add("GET", "/quick-add", site.signed_in([p](Request& r, const Visitor& v) {
    return quick_add_page(*p, r, v, r.query_param("text").value_or("").substr(0, 2000), {}, 200);
  }),
             "Quick add: a link, a pasted page or a line");
  router.add("POST", "/quick-add", pasted(quick_add), "Read a quick add");
}

}  // namespace peto::web
