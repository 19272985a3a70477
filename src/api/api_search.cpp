// GET /api/v1/search?q=&limit=: what the /search page finds, for a token.
// A token sees the kinds its scopes let it read; timeline entries count as
// applications, documents need the full "read" scope.
#include <algorithm>
#include <string>

#include "api/api.h"
#include "api/openapi.h"
#include "domain/api_tokens.h"
#include "domain/search.h"

namespace peto::web {

namespace {

using nlohmann::json;

std::string area_of(const std::string& kind) {
  if (kind == "events") return "applications";
  return kind;
}

// The text without its marks, and the words the marks held, each once.
std::string unmarked(const std::string& marked, json& words) {
  std::string plain;
  std::string word;
  bool in = false;
  for (char c : marked) {
    if (c == '\x01') {
      in = true;
    } else if (c == '\x02') {
      in = false;
      if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
      word.clear();
    } else {
      plain += c;
      if (in) word += c;
    }
  }
  return plain;
}

json hit_answer(const domain::SearchHit& h) {
  json words = json::array();
  json out = {{"kind", h.kind}, {"id", h.id}};
  out["title"] = unmarked(h.title, words);
  out["snippet"] = unmarked(h.snippet, words);
  out["context"] = h.context;
  out["application_id"] = h.kind == "events" ? json(h.application_id) : json(nullptr);
  out["matched"] = std::move(words);
  return out;
}

json hit_schema() {
  json kinds = domain::search_kinds();
  return {{"type", "object"},
          {"required", {"kind", "id", "title", "snippet", "context", "application_id", "matched"}},
          {"properties",
           {{"kind", {{"type", "string"}, {"enum", kinds}}},
            {"id", {{"type", "integer"}}},
            {"title", {{"type", "string"}}},
            {"snippet", {{"type", "string"}, {"description", "Words around what was found"}}},
            {"context", {{"type", "string"}, {"description", "What it belongs to"}}},
            {"application_id",
             {{"type", {"integer", "null"}}, {"description", "events: the application"}}},
            {"matched",
             {{"type", "array"},
              {"items", {{"type", "string"}}},
              {"description", "The words found, as they are written in the record"}}}}}};
}

}  // namespace

void add_search_api(Api& api, Site& site) {
  json op = api_operation("search", "Search every record", "search");
  api_query_parameter(op, "q", {{"type", "string"}, {"maxLength", domain::kMaxSearchQuery}},
                      "Words that must all appear, each as a whole word but the last, which may be "
                      "the start of one");
  api_query_parameter(op, "limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxLimit}},
                      "Results at most (50)");
  api_answer(op, 200,
             "The records found: every word in the title first, then the rest, newest first",
             {{"type", "object"},
              {"required", {"items"}},
              {"properties", {{"items", {{"type", "array"}, {"items", hit_schema()}}}}}});
  Site* s = &site;
  Api* a = &api;
  api.add({.method = "GET",
           .pattern = "/api/v1/search",
           .area = "",
           .write = false,
           .operation = op,
           .handler =
               [s, a](ApiCall& c) {
                 const std::string q = c.request.query_param("q").value_or("");
                 if (q.size() > domain::kMaxSearchQuery)
                   return a->problem(
                       c.request, 400, "Bad query parameter",
                       "'q' is longer than " + std::to_string(domain::kMaxSearchQuery) + " bytes.");
                 domain::SearchQuery query;
                 auto limit = a->limit(c.request);
                 if (auto* refused = std::get_if<Response>(&limit)) return std::move(*refused);
                 query.limit = std::get<int>(limit);
                 for (const auto& kind : domain::search_kinds())
                   if (domain::scope_allows(c.bearer.token.scopes, area_of(kind), false))
                     query.kinds.push_back(kind);
                 json items = json::array();
                 if (!query.kinds.empty())
                   for (const auto& h : domain::search(s->db(), c.owner(), q, query))
                     items.push_back(hit_answer(h));
                 return Response::json(200, {{"items", std::move(items)}});
               },
           .query = {"q", "limit"}});
}

}  // namespace peto::web
