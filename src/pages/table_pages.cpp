// The record tables (/companies, /reminders…, and ?view=table of listings
// and applications): sorted by any column, narrowed by filters, the columns
// a person chooses, and one action on the rows they tick. Everything is in
// the URL, so a table can be bookmarked, shared between tabs and saved as a
// view; every action is a form post that works without the script.
#include <algorithm>

#include "core/timezone.h"
#include "core/utf8.h"
#include "domain/records.h"
#include "domain/saved_views.h"
#include "domain/search.h"
#include "pages/record_pages.h"
#include "pages/record_pages_internal.h"

namespace peto::web {

namespace {

using domain::Kind;
using domain::Record;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// The most rows one action takes: a few pages of the table.
constexpr std::size_t kMaxBulk = 200;

// A column a table may show: a cell of RecordView::table_cells, or when the
// record was added or last changed (shown only when chosen).
struct Column {
  std::string name;
  std::string label;
  std::string sort;  // the column the list sorts by for it; "" when it cannot
  bool by_default = true;
};

// `name` when a list of `k` can be sorted by it (a note's body cannot), else "".
std::string sort_by(const Kind& k, const std::string& name) {
  const auto sortable = domain::sortable_columns(k);
  return std::find(sortable.begin(), sortable.end(), name) != sortable.end() ? name : "";
}

std::vector<Column> columns_of(RecordPages& p, const Visitor& v, const Kind& k) {
  std::vector<Column> out;
  for (const auto& h : p.view.headings(v, k))
    out.push_back({h["name"], h["label"], sort_by(k, h["sort"].get<std::string>()), true});
  out.push_back({"created_at", p.view.text(v, "column_created_at"), "created_at", false});
  out.push_back({"updated_at", p.view.text(v, "column_updated_at"), "updated_at", false});
  return out;
}

// What the title column sorts by: its field, when that can be sorted.
std::string title_sort(const Kind& k) { return sort_by(k, k.title_field); }

bool names_a_company(const Kind& k) {
  if (k.field("company_id") != nullptr) return true;
  return std::any_of(k.extras.begin(), k.extras.end(),
                     [](const domain::Extra& e) { return e.name == "company_id"; });
}

// What the date range of a table is over when the URL does not say: when
// an application went out, else when the record was added.
std::string default_range(const Kind& k) {
  return k.name == "applications" ? "applied_at" : "created_at";
}

// A table as its URL asks for it: the query, and what the page shows of it.
struct Table {
  domain::ListQuery lq;
  std::string current_tab;
  std::vector<std::string> shown;                    // the columns shown, by name
  bool columns_chosen = false;                       // ?col= was given
  std::string company;                               // the company filter as typed
  std::string tag;                                   // the tag filter, a tag's slug
  std::string range;                                 // the field the date range is over
  nlohmann::json errors = nlohmann::json::object();  // filter -> why it was not applied
  int filters = 0;                                   // how many filters narrow it
  // The query that says this table without its place in it (after/before),
  // and the same without the parts a link changes.
  Pairs keep(bool with_sort = true, bool with_columns = true, bool with_tab = true) const;
  Pairs base;  // view, q, the filters
  std::string sort;
  bool descending = false;
};

Pairs Table::keep(bool with_sort, bool with_columns, bool with_tab) const {
  Pairs out = base;
  if (with_tab) out.emplace_back("tab", lq.tab);
  if (with_sort && !sort.empty()) {
    out.emplace_back("sort", sort);
    if (descending) out.emplace_back("dir", "desc");
  }
  if (with_columns && columns_chosen)
    for (const std::string& c : shown) out.emplace_back("col", c);
  return out;
}

// The range of days a table is narrowed to (?range=&from=&to=).
void read_range(RecordPages& p, const Visitor& v, const Kind& k, const Form& q, Table& t) {
  const auto ranges = domain::range_fields(k);
  t.range = q.get("range");
  if (std::find(ranges.begin(), ranges.end(), t.range) == ranges.end()) t.range = default_range(k);
  if (std::find(ranges.begin(), ranges.end(), t.range) == ranges.end()) t.range = "created_at";
  const std::string from = q.get("from");
  const std::string to = q.get("to");
  if (!from.empty() && !parse_date_utc_ms(from)) t.errors["from"] = p.view.text(v, "error_date");
  if (!to.empty() && !parse_date_utc_ms(to)) t.errors["to"] = p.view.text(v, "error_date");
  if (!from.empty() && !to.empty() && !t.errors.contains("from") && !t.errors.contains("to") &&
      to < from)
    t.errors["to"] = p.view.text(v, "filter_to_before_from");
  if ((!from.empty() || !to.empty()) && !t.errors.contains("from") && !t.errors.contains("to")) {
    t.lq.range_field = t.range;
    t.lq.from_day = from;
    t.lq.to_day = to;
    t.base.insert(t.base.end(), {{"range", t.range}, {"from", from}, {"to", to}});
    ++t.filters;
  }
}

// The order (?sort=&dir=, the cursor of that order) and the columns shown
// (?col=, many).
void read_order(const Kind& k, const Form& q, const std::vector<Column>& columns, Table& t) {
  // The order: a sortable column, else newest first (reminders still to do
  // soonest first).
  t.sort = q.get("sort");
  const bool known =
      std::any_of(columns.begin(), columns.end(),
                  [&](const Column& c) { return !c.sort.empty() && c.sort == t.sort; }) ||
      (!t.sort.empty() && t.sort == title_sort(k));
  if (!known) t.sort.clear();
  t.descending = !t.sort.empty() && q.get("dir") == "desc";
  t.lq.sort = t.sort;
  t.lq.descending = t.descending;
  if (t.lq.sort.empty() && k.name == "reminders" && t.current_tab == "outstanding")
    t.lq.sort = "due_at";
  if (!t.lq.sort.empty())
    t.lq.after = domain::read_mark(q.get("after"));
  else
    t.lq.before_id = parse_id(q.get("before"));

  for (const std::string& c : q.all("col"))
    if (std::any_of(columns.begin(), columns.end(),
                    [&](const Column& col) { return col.name == c; }) &&
        std::find(t.shown.begin(), t.shown.end(), c) == t.shown.end())
      t.shown.push_back(c);
  t.columns_chosen = !t.shown.empty();
  if (!t.columns_chosen)
    for (const Column& c : columns)
      if (c.by_default) t.shown.push_back(c.name);
}

Table read_table(RecordPages& p, const Visitor& v, const Kind& k, const Form& q,
                 const std::vector<Column>& columns) {
  Table t;
  domain::ListQuery& lq = t.lq;
  lq.limit = 50;
  lq.tab = q.get("tab");
  lq.text = utf8_cut(q.get("q"), domain::kMaxSearchQuery);
  lq.time_zone = v.time_zone;
  t.current_tab = lq.tab;
  if (!k.tabs.empty() && std::none_of(k.tabs.begin(), k.tabs.end(),
                                      [&](const domain::Tab& tab) { return tab.name == lq.tab; }))
    t.current_tab = k.tabs.front().name;
  t.base = {{"view", q.get("view")}, {"q", lq.text}};
  auto error = [&](const std::string& field, const std::string& key) {
    t.errors[field] = p.view.text(v, key);
  };

  for (const std::string& f : k.filterable) {
    const std::string value = q.get(f);
    if (value.empty()) continue;
    const domain::Field* field = k.field(f);
    if (field != nullptr && field->type == domain::FieldType::choice &&
        std::find(field->choices.begin(), field->choices.end(), value) == field->choices.end()) {
      error(f, "error_choice");
      continue;
    }
    lq.equals[f] = value;
    t.base.emplace_back(f, value);
    if (field != nullptr && field->type == domain::FieldType::choice) ++t.filters;
  }
  t.company = utf8_cut(q.get("company"), 200);
  if (!t.company.empty() && names_a_company(k)) {
    lq.company_id = domain::find_company(p.records.db(), v.account.id, t.company);
    if (!lq.company_id) {
      t.errors["company"] = p.site.say(v, "filter_company_unknown", {{"name", t.company}});
    } else {
      t.base.emplace_back("company", t.company);
      ++t.filters;
    }
  }
  t.tag = utf8_cut(q.get("tag"), 100);
  if (!t.tag.empty() && !k.tag_links.empty()) {
    lq.tag_id = domain::find_tag(p.records.db(), v.account.id, t.tag);
    if (!lq.tag_id) {
      error("tag", "error_choice");
    } else {
      t.base.emplace_back("tag", t.tag);
      ++t.filters;
    }
  }
  read_range(p, v, k, q, t);
  read_order(k, q, columns, t);
  return t;
}

// The inputs of the filter form, as record_input renders them.
nlohmann::json filter_inputs(RecordPages& p, const Visitor& v, const Kind& k, const Table& t,
                             const Form& q, const std::vector<domain::TagName>& tags) {
  nlohmann::json out = nlohmann::json::array();
  auto input = [&](const std::string& name, const std::string& label) {
    const std::string error = t.errors.value(name, std::string());
    nlohmann::json in = {
        {"id", "filter-" + name}, {"name", name},         {"label", label},
        {"value", q.get(name)},   {"error", error},       {"has_error", !error.empty()},
        {"is_select", false},     {"is_textarea", false}, {"input_type", "text"}};
    if (!error.empty()) in["describedby"] = "filter-" + name + "-error";
    return in;
  };
  auto any_option = [&](bool selected) {
    return nlohmann::json{
        {"value", ""}, {"label", p.view.text(v, "filter_any")}, {"selected", selected}};
  };
  for (const std::string& f : k.filterable) {
    const domain::Field* field = k.field(f);
    if (field == nullptr || field->type != domain::FieldType::choice) continue;
    nlohmann::json in = input(f, p.view.label(v, k, *field));
    std::vector<std::string> choices;
    for (const std::string& c : field->choices)
      if (!c.empty()) choices.push_back(c);
    in["is_select"] = true;
    in["options"] = p.view.choice_options(v, f, choices, q.get(f));
    in["options"].insert(in["options"].begin(), any_option(q.get(f).empty()));
    out.push_back(std::move(in));
  }
  if (names_a_company(k)) {
    nlohmann::json in = input("company", p.view.text(v, "kind_company"));
    in["maxlength"] = 200;
    in["suggestions"] = domain::company_names(p.records.db(), v.account.id, 500);
    in["has_suggestions"] = !in["suggestions"].empty();
    out.push_back(std::move(in));
  }
  if (!k.tag_links.empty()) {
    nlohmann::json in = input("tag", p.view.text(v, "kind_tag"));
    in["is_select"] = true;
    nlohmann::json options = nlohmann::json::array({any_option(t.tag.empty())});
    for (const domain::TagName& tag : tags)
      options.push_back(
          {{"value", tag.slug}, {"label", tag.name}, {"selected", tag.slug == t.tag}});
    in["options"] = std::move(options);
    out.push_back(std::move(in));
  }
  nlohmann::json range = input("range", p.view.text(v, "filter_range"));
  range["is_select"] = true;
  range["options"] = nlohmann::json::array();
  for (const std::string& f : domain::range_fields(k)) {
    const domain::Field* field = k.field(f);
    range["options"].push_back(
        {{"value", f},
         {"label", field != nullptr ? p.view.label(v, k, *field) : p.view.text(v, "column_" + f)},
         {"selected", f == t.range}});
  }
  out.push_back(std::move(range));
  for (const char* end : {"from", "to"}) {
    nlohmann::json in = input(end, p.view.text(v, std::string("filter_") + end));
    in["input_type"] = "date";
    out.push_back(std::move(in));
  }
  return out;
}

// The actions a table's ticked rows can take, as <optgroup>s of <option>s
// whose values bulk() reads: "status:…", "state:…", "tag:<id>", "trash".
nlohmann::json bulk_actions(RecordPages& p, const Visitor& v, const Kind& k,
                            const std::vector<domain::TagName>& tags) {
  nlohmann::json groups = nlohmann::json::array();
  auto group = [&](const std::string& label_key, const std::string& prefix,
                   const std::vector<std::pair<std::string, std::string>>& choices) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto& [value, label] : choices)
      options.push_back({{"value", prefix + value}, {"label", label}});
    if (!options.empty())
      groups.push_back({{"label", p.view.text(v, label_key)}, {"options", std::move(options)}});
  };
  if (k.name == "applications") {
    std::vector<std::pair<std::string, std::string>> statuses;
    for (const std::string& s : domain::statuses())
      statuses.emplace_back(s, p.view.choice_label(v, "status", s));
    group("bulk_move_to", "status:", statuses);
    std::vector<std::pair<std::string, std::string>> tag_choices;
    tag_choices.reserve(tags.size());
    for (const domain::TagName& tag : tags)
      tag_choices.emplace_back(std::to_string(tag.id), tag.name);
    group("bulk_add_tag", "tag:", tag_choices);
  } else if (k.name == "listings") {
    std::vector<std::pair<std::string, std::string>> states;
    for (const std::string& s : k.field("state")->choices)
      states.emplace_back(s, p.view.choice_label(v, "state", s));
    group("bulk_move_to", "state:", states);
  }
  group("bulk_other", "", {{"trash", p.view.text(v, "bulk_trash")}});
  return groups;
}

// The query string of the table `t` ("tab=all&sort=company_name"), as a
// saved view keeps it.
std::string query_of(const Table& t) {
  const std::string href = query_href("", t.keep());
  return href.empty() ? href : href.substr(1);
}

std::string cell_of_time(RecordPages& p, const Visitor& v, const Record& rec,
                         const std::string& name) {
  return rec[name].is_number() ? p.site.format_time(v, rec[name].get<std::int64_t>()) : "";
}

// The kind's tabs, each keeping the rest of the table as it is.
nlohmann::json tab_links(RecordPages& p, const Visitor& v, const Kind& k, const Table& t) {
  nlohmann::json tabs = nlohmann::json::array();
  for (const domain::Tab& tab : k.tabs) {
    Pairs pairs = t.keep(true, true, false);
    pairs.emplace_back("tab", tab.name);
    tabs.push_back({{"label", p.view.text(v, "tab_" + tab.name)},
                    {"href", query_href("/" + k.name, pairs)},
                    {"current", tab.name == t.current_tab}});
  }
  return tabs;
}

// A heading: sorts by its column; when it is the order, the other way.
nlohmann::json heading_of(const Table& t, const std::string& path, const std::string& label,
                          const std::string& sort) {
  nlohmann::json h = {{"label", label}};
  if (sort.empty()) return h;
  const bool current = t.sort == sort;
  Pairs pairs = t.keep(false);
  pairs.emplace_back("sort", sort);
  if (current && !t.descending) pairs.emplace_back("dir", "desc");
  h["href"] = query_href(path, pairs);
  if (current) {
    h["aria_sort"] = t.descending ? "descending" : "ascending";
    h["arrow"] = t.descending ? "▼" : "▲";
  }
  return h;
}

// The headings of the columns shown, the choice of columns, and the choice
// of order (on a phone the headings are hidden: the order is chosen there).
void heading_data(RecordPages& p, const Visitor& v, const Kind& k, const Table& t,
                  const std::vector<Column>& columns, nlohmann::json& headings,
                  nlohmann::json& column_choices, nlohmann::json& sort_options) {
  sort_options = nlohmann::json::array(
      {{{"value", ""}, {"label", p.view.text(v, "sort_newest")}, {"selected", t.sort.empty()}}});
  if (const std::string title = title_sort(k); !title.empty())
    sort_options.push_back(
        {{"value", title}, {"label", p.view.title_heading(v, k)}, {"selected", t.sort == title}});
  for (const Column& c : columns) {
    const bool shown = std::find(t.shown.begin(), t.shown.end(), c.name) != t.shown.end();
    column_choices.push_back({{"name", c.name}, {"label", c.label}, {"checked", shown}});
    if (shown) headings.push_back(heading_of(t, "/" + k.name, c.label, c.sort));
    if (!c.sort.empty())
      sort_options.push_back(
          {{"value", c.sort}, {"label", c.label}, {"selected", t.sort == c.sort}});
  }
}

// A row per record: its title, the cells of the columns shown, and for a
// reminder its Done button.
nlohmann::json table_rows(RecordPages& p, const Visitor& v, const Kind& k, const Table& t,
                          const domain::Page& page) {
  const Millis now = p.site.clock().now_ms();
  const std::string path = "/" + k.name;
  nlohmann::json rows = nlohmann::json::array();
  const bool outstanding = k.name == "reminders" && t.current_tab == "outstanding";
  for (const Record& rec : page.items) {
    nlohmann::json all_cells = p.view.table_cells(v, k, rec);
    nlohmann::json cells = nlohmann::json::array();
    for (const std::string& name : t.shown) {
      if (name == "created_at" || name == "updated_at") {
        cells.push_back({{"label", p.view.text(v, "column_" + name)},
                         {"text", cell_of_time(p, v, rec, name)},
                         {"href", ""}});
        continue;
      }
      for (auto& cell : all_cells)
        if (cell["name"] == name) cells.push_back(std::move(cell));
    }
    const std::string title = p.view.title_of(v, k, rec);
    nlohmann::json row = {{"href", path + "/" + std::to_string(id_of(rec))},
                          {"id", id_of(rec)},
                          {"title", title},
                          {"select_label", p.site.say(v, "bulk_select", {{"title", title}})},
                          {"cells", std::move(cells)}};
    if (outstanding && rec["due_at"].is_number() && rec["due_at"].get<Millis>() < now)
      row["overdue"] = p.view.text(v, "reminder_overdue");
    if (k.name == "reminders") {
      bool done = rec["done_at"].is_number();
      row["reminder"] = {{"action", path + "/" + std::to_string(id_of(rec)) + "/done"},
                         {"done", done ? "0" : "1"},
                         {"label", p.view.text(v, done ? "reminder_undo" : "reminder_done")}};
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The person's saved views of this list, the one this table is marked.
void add_saved_views(RecordPages& p, const Visitor& v, const Kind& k, const Table& t,
                     nlohmann::json& data) {
  const std::string path = "/" + k.name;
  const std::string current = query_of(t);
  nlohmann::json views = nlohmann::json::array();
  for (const domain::SavedView& saved :
       domain::SavedViews(p.records.db(), p.site.clock()).of(v.account.id, k.name))
    views.push_back({{"name", saved.name},
                     {"href", path + (saved.query.empty() ? "" : "?" + saved.query)},
                     {"current", saved.query == current},
                     {"forget_action", path + "/views/" + std::to_string(saved.id) + "/delete"},
                     {"forget_label", p.site.say(v, "views_forget", {{"name", saved.name}})}});
  data["has_views"] = !views.empty();
  data["views"] = std::move(views);
  data["view_query"] = current;
  data["views_action"] = path + "/views";
}

}  // namespace

Response table_page(RecordPages& p, Request& r, const Visitor& v, const Kind& k, const Form& q,
                    int status, const nlohmann::json& said) {
  const std::vector<Column> columns = columns_of(p, v, k);
  Table t = read_table(p, v, k, q, columns);
  domain::Page page = p.records.list(v.account.id, k, t.lq);
  const std::string path = "/" + k.name;
  // The person's tags, for the tag filter and the action that adds one.
  const std::vector<domain::TagName> tags = k.tag_links.empty()
                                                ? std::vector<domain::TagName>{}
                                                : domain::tag_names(p.records.db(), v.account.id);

  nlohmann::json tabs = tab_links(p, v, k, t);
  nlohmann::json headings = nlohmann::json::array();
  nlohmann::json column_choices = nlohmann::json::array();
  nlohmann::json sort_options = nlohmann::json::array();
  heading_data(p, v, k, t, columns, headings, column_choices, sort_options);
  nlohmann::json rows = table_rows(p, v, k, t, page);

  // The filter and column forms carry the rest of the URL along.
  auto without = [](Pairs pairs, const std::vector<std::string>& names) {
    std::erase_if(pairs, [&](const auto& pair) {
      return std::find(names.begin(), names.end(), pair.first) != names.end();
    });
    return pairs;
  };
  auto hidden = [](const Pairs& pairs) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [name, value] : pairs)
      if (!value.empty()) out.push_back({{"name", name}, {"value", value}});
    return out;
  };
  std::vector<std::string> filter_names = {"company", "tag", "range", "from", "to"};
  for (const std::string& f : k.filterable)
    if (const domain::Field* field = k.field(f); field && field->type == domain::FieldType::choice)
      filter_names.push_back(f);

  nlohmann::json data = {
      {"title", p.view.text(v, "title_" + k.name)},
      {"kind", k.name},
      {"tabs", tabs},
      {"has_tabs", !k.tabs.empty()},
      {"q", t.lq.text},
      {"has_search", !k.search.empty()},
      {"title_heading", heading_of(t, "/" + k.name, p.view.title_heading(v, k), title_sort(k))},
      {"headings", headings},
      {"rows", rows},
      {"empty", rows.empty()},
      {"has_actions", k.name == "reminders"},
      {"new_href", k.name == "applications" ? "/applications/record" : path + "/new"},
      {"new_label",
       p.view.text(v, k.name == "applications" ? "record_application" : "add_" + k.singular)},
      {"has_board", k.name == "listings" || k.name == "applications"},
      {"board_href", path},
      {"search_hidden", hidden(without(t.keep(), {"q"}))},
      {"filter_hidden", hidden(without(t.keep(), filter_names))},
      {"filter_inputs", filter_inputs(p, v, k, t, q, tags)},
      {"filter_open", t.filters > 0 || !t.errors.empty()},
      {"filter_count", t.filters > 0 ? std::to_string(t.filters) : ""},
      {"clear_href", t.filters > 0 ? query_href(path, without(t.keep(), filter_names)) : ""},
      {"columns_hidden", hidden(t.keep(false, false))},
      {"columns", column_choices},
      {"sort_options", sort_options},
      {"descending", t.descending},
      {"bulk_actions", bulk_actions(p, v, k, tags)},
      {"return_to", query_href(path, t.keep())},
      {"view", q.get("view")}};
  if (page.next_cursor || page.next_after) {
    Pairs pairs = t.keep();
    if (page.next_cursor) pairs.emplace_back("before", std::to_string(*page.next_cursor));
    if (page.next_after) pairs.emplace_back("after", domain::mark_text(*page.next_after));
    data["next_href"] = query_href(path, pairs);
  }
  if (t.lq.before_id || t.lq.after) data["first_href"] = query_href(path, t.keep());

  add_saved_views(p, v, k, t, data);
  data.update(said);
  return p.site.render(r, v, t.errors.empty() ? status : 400, "records", std::move(data));
}

namespace {

// Why a ticked row cannot take the action (gone since the page was shown,
// or the change is not allowed): the whole action is refused and nothing
// is changed.
struct Stop {
  std::string why;
};

// What a bulk action does: "status:interviewing" is verb "status", value
// "interviewing"; the message it leaves when done.
struct BulkAction {
  std::string verb;
  std::string value;
  std::optional<std::int64_t> tag_id;
  std::string done_key;
  std::map<std::string, std::string> vars;
};

// The action a table's form chose, when it is one the kind takes.
std::optional<BulkAction> read_action(RecordPages& p, const Visitor& v, const Kind& k,
                                      const std::string& action) {
  BulkAction a;
  const auto colon = action.find(':');
  a.verb = action.substr(0, colon);
  a.value = colon == std::string::npos ? "" : action.substr(colon + 1);
  const std::string& verb = a.verb;
  const std::string& value = a.value;
  if (verb == "trash" && value.empty()) {
    a.done_key = "bulk_done_trash";
  } else if (verb == "status" && k.name == "applications" &&
             std::find(domain::statuses().begin(), domain::statuses().end(), value) !=
                 domain::statuses().end()) {
    a.done_key = "bulk_done_moved";
    a.vars["to"] = p.view.choice_label(v, "status", value);
  } else if (verb == "state" && k.name == "listings") {
    const auto& states = k.field("state")->choices;
    if (std::find(states.begin(), states.end(), value) == states.end()) return std::nullopt;
    a.done_key = "bulk_done_moved";
    a.vars["to"] = p.view.choice_label(v, "state", value);
  } else if (verb == "tag" && !k.tag_links.empty()) {
    a.tag_id = parse_id(value);
    auto tag =
        a.tag_id ? p.records.get(v.account.id, domain::kind("tags"), *a.tag_id) : std::nullopt;
    if (!tag) return std::nullopt;
    a.done_key = "bulk_done_tagged";
    a.vars["tag"] = (*tag)["name"].get<std::string>();
  } else {
    return std::nullopt;
  }
  return a;
}

// Applies `a` to every row of `ids` on one transaction, or throws Stop
// (and nothing is written).
void apply_action(RecordPages& p, const Request& r, const Visitor& v, const Kind& k,
                  const BulkAction& a, const std::vector<std::int64_t>& ids) {
  p.records.db().write([&](store::Conn& conn) {
    for (std::int64_t id : ids) {
      auto rec = p.records.get_in(conn, v.account.id, k, id);
      if (!rec) throw Stop{p.view.text(v, "bulk_gone")};
      auto check = [&](const auto& written) {
        if (const auto* errors = std::get_if<domain::FieldErrors>(&written)) {
          const nlohmann::json texts = p.site.error_texts(&v, r, *errors);
          throw Stop{p.view.title_of(v, k, *rec) + ": " + texts.begin()->get<std::string>()};
        }
      };
      if (a.verb == "trash") {
        p.records.remove_in(conn, v.account.id, k, id);
      } else if (a.verb == "status") {
        domain::StatusChange change;
        change.to = a.value;
        check(p.apps.change_status_in(conn, v.account.id, id, change));
      } else if (a.verb == "state") {
        domain::Input input;
        input.partial = true;
        input.values = {{"state", a.value}};
        check(p.records.update_in(conn, v.account.id, k, id, input));
      } else {
        std::vector<std::int64_t> tags;
        for (const Record& tag : p.apps.tags_of_in(conn, v.account.id, id))
          tags.push_back(id_of(tag));
        if (std::find(tags.begin(), tags.end(), *a.tag_id) == tags.end()) tags.push_back(*a.tag_id);
        check(p.apps.set_tags_in(conn, v.account.id, id, tags));
      }
    }
  });
}

}  // namespace

// POST /<kind>/bulk: one action on the ticked rows (`id`, many), all in one
// transaction; refused as a whole, the table again with the reason by the
// action, when any of it cannot be done.
Response bulk_action(RecordPages& p, Request& r, const Visitor& v, const Kind& k) {
  Form form = Form::parse(r);
  const std::string back = safe_return(form.get("return_to"), "/" + k.name + "?view=table");
  auto refuse = [&](const std::string& reason) {
    const auto mark = back.find('?');
    Form q = Form::decode(mark == std::string::npos ? "" : std::string_view(back).substr(mark + 1));
    return table_page(p, r, v, k, q, 422, {{"bulk_error", reason}});
  };
  std::vector<std::int64_t> ids;
  for (const std::string& text : form.all("id")) {
    auto id = parse_id(text);
    if (!id) return refuse(p.view.text(v, "bulk_gone"));
    if (std::find(ids.begin(), ids.end(), *id) == ids.end()) ids.push_back(*id);
  }
  if (ids.empty()) return refuse(p.view.text(v, "bulk_none"));
  if (ids.size() > kMaxBulk)
    return refuse(p.site.say(v, "bulk_too_many", {{"n", std::to_string(kMaxBulk)}}));

  auto action = read_action(p, v, k, form.get("action"));
  if (!action) return refuse(p.view.text(v, "bulk_choose"));
  action->vars["n"] = std::to_string(ids.size());
  try {
    apply_action(p, r, v, k, *action, ids);
  } catch (const Stop& stop) {
    return refuse(stop.why);
  }
  Flash flash = Flash::of("success", p.site.say(v, action->done_key, action->vars));
  if (action->verb == "trash") {
    flash.link_href = "/trash";
    flash.link_label = p.view.text(v, "flash_open_trash");
  }
  return p.site.redirect(r, back, flash);
}

}  // namespace peto::web

namespace peto::web {

// POST /<kind>/views: saves the table a query string says under a name
// (the same name again replaces it), then shows it.
Response save_view(RecordPages& p, Request& r, const Visitor& v, const Kind& k) {
  Form form = Form::parse(r);
  // What the table reads of the query is what is kept: nothing else in it.
  const Form asked = Form::decode(utf8_cut(form.get("query"), domain::SavedViews::kMaxQuery));
  const std::vector<Column> columns = columns_of(p, v, k);
  const std::string query = query_of(read_table(p, v, k, asked, columns));
  auto saved = domain::SavedViews(p.records.db(), p.site.clock())
                   .save(v.account.id, k.name, form.get("name"), query);
  if (auto* errors = std::get_if<domain::FieldErrors>(&saved)) {
    const nlohmann::json texts = p.site.error_texts(&v, r, *errors);
    return table_page(p, r, v, k, asked, 422,
                      {{"view_error", texts.begin()->get<std::string>()},
                       {"view_name", form.get("name")},
                       {"views_open", true}});
  }
  const auto& view = std::get<domain::SavedView>(saved);
  return p.site.redirect(r, "/" + k.name + (query.empty() ? "" : "?" + query),
                         Flash::of("success", p.site.say(v, "views_saved", {{"name", view.name}})));
}

// POST /<kind>/views/{id}/delete: forgets a saved view (the records in it
// stay as they are).
Response forget_view(RecordPages& p, Request& r, const Visitor& v, const Kind& k) {
  auto id = path_id(r);
  if (!id || !domain::SavedViews(p.records.db(), p.site.clock()).remove(v.account.id, *id))
    return p.site.not_found(r, v);
  Form form = Form::parse(r);
  return p.site.redirect(r, safe_return(form.get("return_to"), "/" + k.name),
                         Flash::of("success", p.view.text(v, "views_forgotten")));
}

}  // namespace peto::web
