#include "pages/search_pages.h"

#include <map>
#include <string>

#include "domain/search.h"

namespace peto::web {

namespace {

using nlohmann::json;

std::string href_of(const domain::SearchHit& h) {
  if (h.kind == "events")
    return "/applications/" + std::to_string(h.application_id) + "#event-" + std::to_string(h.id);
  return "/" + h.kind + "/" + std::to_string(h.id);
}

Response search_page(Site& site, Request& r, const Visitor& v) {
  std::string q = r.query_param("q").value_or("");
  json data = {{"q", q}, {"search_q", q}, {"searched", !q.empty()}};
  if (q.size() > domain::kMaxSearchQuery) {
    data["error"] = site.say(v, "search_too_long");
    return site.render(r, v, 400, "search", std::move(data));
  }
  std::vector<domain::SearchHit> hits;
  if (!q.empty()) hits = domain::search(site.db(), v.account.id, q, {});
  std::map<std::string, json> groups;
  for (const auto& h : hits) {
    json item = {{"href", href_of(h)},
                 {"title", marked_parts(h.title)},
                 {"snippet", marked_parts(h.snippet)},
                 {"has_snippet", !h.snippet.empty()},
                 {"context", h.context}};
    // A note has no title of its own: its words found are what names it.
    if (h.title.empty()) {
      item["title"] = marked_parts(h.snippet);
      item["has_snippet"] = false;
    }
    groups[h.kind].push_back(std::move(item));
  }
  json out = json::array();
  for (const auto& kind : domain::search_kinds()) {
    auto it = groups.find(kind);
    if (it == groups.end()) continue;
    const auto n = it->second.size();
    out.push_back({{"kind", kind},
                   {"heading", site.say(v, "search_kind_" + kind)},
                   {"count", n},
                   {"items", std::move(it->second)}});
  }
  data["groups"] = std::move(out);
  data["found"] = !hits.empty();
  data["count"] = hits.size();
  data["summary"] = site.say(v, hits.size() == 1 ? "search_found_one" : "search_found",
                             {{"count", std::to_string(hits.size())}, {"query", q}});
  return site.render(r, v, 200, "search", std::move(data));
}

}  // namespace

json marked_parts(const std::string& marked) {
  json parts = json::array();
  std::string text;
  bool hit = false;
  auto flush = [&] {
    if (!text.empty()) parts.push_back({{"text", text}, {"hit", hit}});
    text.clear();
  };
  for (char c : marked) {
    if (c == '\x01' || c == '\x02') {
      flush();
      hit = c == '\x01';
    } else {
      text += c;
    }
  }
  flush();
  return parts;
}

void add_search_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("GET", "/search",
             site.signed_in([s](Request& r, const Visitor& v) { return search_page(*s, r, v); }),
             "Search every record");
}

}  // namespace peto::web
