// GET /api/v1/<kind> for every kind of record: the query parameters a list
// takes (cursor, limit, updated_since, q, tab, its filters), checked into a
// ListQuery, and the page it answers.
#include <algorithm>
#include <variant>

#include "api/api_resources_internal.h"
#include "api/openapi.h"

namespace peto::web::api_detail {

namespace {

using domain::Field;
using domain::FieldType;
using domain::Kind;
using nlohmann::json;

constexpr std::size_t kMaxQueryText = 200;

std::string capitalised(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

std::vector<std::string> list_parameters(const Kind& kind) {
  std::vector<std::string> names = {"cursor", "limit", "updated_since", "sort", "order"};
  if (!kind.search.empty()) names.emplace_back("q");
  if (!kind.tabs.empty()) names.emplace_back("tab");
  for (const auto& f : kind.filterable) names.push_back(f);
  return names;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The ListQuery of ?cursor=&limit=&updated_since=&sort=&order=&q=&tab=&<filter>=,
// or the 400 that says which parameter is wrong. Sorted, the cursor is the
// mark of the last record of the page (domain::mark_text), else its id.
std::variant<domain::ListQuery, Response> list_query(const Api& api, const Request& r,
                                                     const Kind& kind) {
  domain::ListQuery q;
  q.tab = kind.tabs.empty() ? "" : "all";
  auto bad = [&](const std::string& name, const std::string& why) {
    return api.problem(r, 400, "Bad query parameter", "'" + name + "' " + why);
  };
  std::string cursor;
  std::string order;
  for (const auto& [name, value] : r.query) {
    if (name == "sort") {
      const auto columns = domain::sortable_columns(kind);
      if (std::find(columns.begin(), columns.end(), value) == columns.end())
        return bad(name, "is not a column this list sorts by.");
      q.sort = value;
    } else if (name == "order") {
      if (value != "asc" && value != "desc") return bad(name, "must be asc or desc.");
      order = value;
    } else if (name == "limit") {
      auto n = api_limit(value);
      if (!n)
        return bad(name, "must be a whole number from 1 to " + std::to_string(kMaxLimit) + ".");
      q.limit = *n;
    } else if (name == "cursor") {
      cursor = value;
    } else if (name == "updated_since") {
      auto ms = parse_time(value);
      if (!ms) return bad(name, "must be an RFC 3339 time such as 2027-01-15T08:00:00Z.");
      q.updated_since = *ms;
    } else if (name == "q") {
      if (value.size() > kMaxQueryText) return bad(name, "is longer than 200 bytes.");
      q.text = value;
    } else if (name == "tab") {
      bool known = std::any_of(kind.tabs.begin(), kind.tabs.end(),
                               [&](const domain::Tab& t) { return t.name == value; });
      if (!known) return bad(name, "is not one of this list's tabs.");
      q.tab = value;
    } else if (const Field* f = kind.field(name)) {
      bool ok = value.size() <= kMaxQueryText;
      if (f->type == FieldType::ref || f->type == FieldType::integer) ok = ok && all_digits(value);
      if (f->type == FieldType::choice)
        ok = ok && std::find(f->choices.begin(), f->choices.end(), value) != f->choices.end();
      if (!ok) return bad(name, "is not a value this field can have.");
      q.equals[name] = value;
    }
  }
  if (!order.empty() && q.sort.empty()) return bad("order", "needs sort.");
  q.descending = order == "desc";
  if (!cursor.empty()) {
    if (!q.sort.empty()) {
      q.after = domain::read_mark(cursor);
      if (!q.after) return bad("cursor", "is not a cursor this API gave out for this order.");
    } else if (!all_digits(cursor) || std::stoll(cursor) < 1) {
      return bad("cursor", "is not a cursor this API gave out.");
    } else {
      q.before_id = std::stoll(cursor);
    }
  }
  return q;
}

json list_answer(const Kind& kind, domain::Page page) {
  json items = json::array();
  for (auto& rec : page.items) items.push_back(api_record(kind, std::move(rec)));
  json cursor = page.next_cursor  ? json(std::to_string(*page.next_cursor))
                : page.next_after ? json(domain::mark_text(*page.next_after))
                                  : json(nullptr);
  return {{"items", std::move(items)}, {"next_cursor", std::move(cursor)}};
}

}  // namespace

void add_list(Api& api, const Shared& res, const Kind& kind) {
  json op = api_operation("list" + capitalised(kind.name), "List your " + kind.name, kind.name);
  api_query_parameter(op, "cursor", {{"type", "string"}}, "next_cursor of the previous page");
  api_query_parameter(op, "limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxLimit}},
                      "Records per page (50)");
  api_query_parameter(op, "updated_since", {{"type", "string"}, {"format", "date-time"}},
                      "Only records changed at or after this moment");
  api_query_parameter(op, "sort", {{"type", "string"}, {"enum", domain::sortable_columns(kind)}},
                      "The column to sort by (then by id); records without a value come last."
                      " Without it, newest first");
  api_query_parameter(op, "order", {{"type", "string"}, {"enum", {"asc", "desc"}}},
                      "asc (the default) or desc, with sort");
  if (!kind.search.empty())
    api_query_parameter(op, "q", {{"type", "string"}, {"maxLength", 200}},
                        "Text somewhere in a record's main fields");
  if (!kind.tabs.empty()) {
    json names = json::array();
    for (const auto& t : kind.tabs) names.push_back(t.name);
    api_query_parameter(op, "tab", {{"type", "string"}, {"enum", names}},
                        "A tab of the page (all)");
  }
  for (const auto& name : kind.filterable) {
    const Field* f = kind.field(name);
    json schema = {{"type", "string"}};
    if (f->type == FieldType::ref || f->type == FieldType::integer) schema = {{"type", "integer"}};
    if (f->type == FieldType::choice) schema["enum"] = f->choices;
    api_query_parameter(op, name, schema, "Only records whose " + name + " is this");
  }
  api_answer(op, 200, "A page of " + kind.name + ", newest first unless sorted",
             page_schema(schema_ref(schema_name(kind))));
  api.add({.method = "GET",
           .pattern = "/api/v1/" + kind.name,
           .area = kind.name,
           .write = false,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 auto q = list_query(*res->api, c.request, kind);
                 if (auto* refused = std::get_if<Response>(&q)) return std::move(*refused);
                 auto page = res->records.list(c.owner(), kind, std::get<domain::ListQuery>(q));
                 return Response::json(200, list_answer(kind, std::move(page)));
               },
           .query = list_parameters(kind)});
}

}  // namespace peto::web::api_detail
