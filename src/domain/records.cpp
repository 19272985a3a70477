#include "domain/records.h"

#include <unicase.h>
#include <unictype.h>
#include <uninorm.h>
#include <unistr.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "core/text.h"
#include "core/timezone.h"
#include "core/token.h"
#include "core/utf8.h"
#include "domain/applications.h"
#include "domain/auto_reminders.h"
#include "domain/trash.h"
#include "formats/placeholders.h"

namespace peto::domain {

namespace {

using T = FieldType;
using store::Value;

using text::trimmed;

// Characters, not bytes (the input is UTF-8).
std::size_t char_count(std::string_view s) { return utf8_length(s); }

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool plausible_url(std::string_view s) {
  std::string_view rest;
  if (s.starts_with("https://"))
    rest = s.substr(8);
  else if (s.starts_with("http://"))
    rest = s.substr(7);
  else
    return false;
  if (rest.empty() || rest[0] == '/' || rest[0] == '?' || rest[0] == '#') return false;
  return std::none_of(s.begin(), s.end(),
                      [](unsigned char c) { return std::isspace(c) != 0 || c < 0x20; });
}

// One field's input as text ("" when absent or null), and whether it was given.
struct Raw {
  bool given = false;
  bool is_number = false;
  bool is_boolean = false;
  std::string text;
  std::int64_t number = 0;
};

Raw raw_value(const Input& input, const std::string& name) {
  Raw r;
  auto it = input.values.find(name);
  if (it == input.values.end()) return r;
  r.given = true;
  if (it->is_string()) {
    r.text = it->get<std::string>();
  } else if (it->is_number_integer()) {
    r.is_number = true;
    r.number = it->get<std::int64_t>();
    r.text = std::to_string(r.number);
  } else if (it->is_boolean()) {
    r.is_boolean = true;
    r.text = it->get<bool>() ? "1" : "0";
  } else if (!it->is_null()) {
    r.text = "\x01";  // an object, array or fraction: never valid
  }
  return r;
}

// The column value for one field, or an error key.
std::variant<Value, std::string> convert(store::Conn& conn, std::int64_t owner, const Field& f,
                                         const Raw& raw, const Input& input) {
  std::string text = f.type == T::long_text ? raw.text : trimmed(raw.text);
  if (f.type == T::long_text) {
    std::string t = trimmed(text);
    if (t.empty()) text.clear();
  }
  if (text.empty()) {
    if (f.required) return std::string("error_required");
    if (f.type == T::choice && !f.choices.empty() && !f.choices.front().empty())
      return Value(f.choices.front());
    return Value(store::null);
  }
  if (text == "\x01") return std::string("error_invalid");
  // The API takes typed JSON: a number where text belongs (or text where a
  // number belongs) is a mistake in the client, not something to guess at.
  if (input.strict_types) {
    bool wants_number = f.type == T::integer || f.type == T::ref;
    if (raw.is_number != wants_number || raw.is_boolean) return std::string("error_type");
  }
  switch (f.type) {
    case T::text:
    case T::long_text:
      if (char_count(text) > static_cast<std::size_t>(f.max_length))
        return std::string("error_too_long");
      if (f.type == T::text)
        std::replace_if(
            text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; },
            ' ');
      return Value(text);
    case T::email:
      if (char_count(text) > static_cast<std::size_t>(f.max_length) || !plausible_email(text))
        return std::string("error_email");
      return Value(text);
    case T::url:
      if (char_count(text) > static_cast<std::size_t>(f.max_length) || !plausible_url(text))
        return std::string("error_url");
      return Value(text);
    case T::integer: {
      auto v = raw.is_number ? std::optional<std::int64_t>(raw.number) : to_int(text);
      if (!v) return std::string("error_number");
      if (f.max > f.min && (*v < f.min || *v > f.max)) return std::string("error_range");
      return Value(*v);
    }
    case T::date:
      if (text.size() != 10 || !parse_date_utc_ms(text)) return std::string("error_date");
      return Value(text);
    case T::datetime: {
      std::optional<std::int64_t> ms;
      if (raw.is_number)
        ms = raw.number;
      else if (input.from_form)
        ms = parse_local(text, input.time_zone);
      else
        ms = parse_time(text);
      if (!ms) return std::string(input.from_form ? "error_datetime" : "error_rfc3339");
      return Value(*ms);
    }
    case T::choice:
      if (std::find(f.choices.begin(), f.choices.end(), text) == f.choices.end())
        return std::string("error_choice");
      return Value(text);
    case T::ref: {
      auto id = raw.is_number ? std::optional<std::int64_t>(raw.number) : to_int(text);
      if (!id) return std::string("error_ref");
      auto found = conn.query("SELECT 1 FROM " + f.ref_kind + " WHERE id = ? AND owner_id = ?",
                              {*id, owner});
      if (found.empty()) return std::string("error_ref");
      return Value(*id);
    }
  }
  return std::string("error_invalid");
}

using Columns = std::vector<std::pair<std::string, Value>>;

std::string owner_zone(store::Conn& conn, std::int64_t owner) {
  auto rows = conn.query("SELECT time_zone FROM users WHERE id = ?", {owner});
  return rows.empty() ? std::string("UTC") : rows[0].text("time_zone");
}

// The columns an all-day record's `day` decides in `zone`: its moment, the
// start of the day, and for an interview its end, the next day's start.
// Empty when `day` is not a day.
Columns day_columns(const Kind& kind, const std::string& day, const std::string& zone) {
  auto start = parse_local(day + " 00:00", zone);
  if (!start) return {};
  Columns out{{kind.due_field, Value(*start)}};
  if (kind.name == "interviews")
    out.emplace_back("ends_at",
                     Value(parse_local(add_days(day, 1) + " 00:00", zone).value_or(*start)));
  return out;
}

const Value* column(const Columns& cols, std::string_view name) {
  for (const auto& [n, v] : cols)
    if (n == name) return &v;
  return nullptr;
}

// A field's value after the write: the new one, or (a partial update that
// leaves it out) the one stored now. Null for a new record without it.
Value new_or_stored(store::Conn& conn, const Kind& kind, std::optional<std::int64_t> id,
                    const Columns& cols, const std::string& name) {
  if (const Value* v = column(cols, name)) return *v;
  if (!id) return Value();
  auto rows = conn.query("SELECT " + name + " FROM " + kind.name + " WHERE id = ?", {*id});
  return rows.empty() ? Value() : rows[0].at(name);
}

Value* column(Columns& cols, std::string_view name) {
  for (auto& [n, v] : cols)
    if (n == name) return &v;
  return nullptr;
}

void set_column(Columns& cols, const std::string& name, Value v) {
  if (Value* c = column(cols, name))
    *c = std::move(v);
  else
    cols.emplace_back(name, std::move(v));
}

// An all-day record's moment is the start of its day in the owner's zone; a
// moment given without the day makes the record timed again. A moment given
// with the day must be that start or the one stored (a form sends both).
void check_day(store::Conn& conn, std::int64_t owner, const Kind& kind,
               std::optional<std::int64_t> id, Columns& cols, FieldErrors& errors) {
  if (kind.day_field.empty()) return;
  const std::string& moment = kind.due_field;
  const Value* day = column(cols, kind.day_field);
  const Value* given = column(cols, moment);
  if (day == nullptr || day->is_null()) {
    if (day == nullptr && given != nullptr) set_column(cols, kind.day_field, Value(store::null));
    return;
  }
  const auto derived = day_columns(kind, day->as_text(), owner_zone(conn, owner));
  if (derived.empty()) {
    errors.add(kind.day_field, "error_date");
    return;
  }
  const std::int64_t start = derived.front().second.as_int();
  if (given != nullptr && !given->is_null() && given->as_int() != start) {
    Value stored = id ? new_or_stored(conn, kind, id, {}, moment) : Value();
    if (stored.is_null() || stored.as_int() != given->as_int()) {
      errors.add(kind.day_field, "error_time_or_day");
      return;
    }
  }
  for (const auto& [name, value] : derived) set_column(cols, name, value);
}

// A letter template's text: its placeholders must be the known ones, its
// braces well formed (formats/placeholders.h).
void check_template(const std::string& field, std::string_view text, FieldErrors& errors) {
  auto checked = formats::check_placeholders(text);
  const auto* problem = std::get_if<formats::PlaceholderProblem>(&checked);
  if (problem == nullptr) return;
  std::string known;
  for (std::string_view name : formats::letter_placeholders())
    known += (known.empty() ? "{" : ", {") + std::string(name) + "}";
  if (!problem->unknown.empty()) {
    std::string unknown;
    for (const auto& name : problem->unknown)
      unknown += (unknown.empty() ? "{" : ", {") + name + "}";
    errors.add(field, "error_placeholder");
    errors.vars[field] = {{"known", known}, {"unknown", unknown}};
  } else {
    errors.add(field, "error_template");
    errors.vars[field] = {{"line", std::to_string(problem->line)},
                          {"column", std::to_string(problem->column)}};
  }
}

// Checks that involve more than one field, or the rest of the person's data.
void check_kind(store::Conn& conn, std::int64_t owner, const Kind& kind,
                std::optional<std::int64_t> id, Columns& cols, FieldErrors& errors) {
  if (kind.name == "companies") {
    if (const Value* name = column(cols, "name"); name != nullptr && !name->is_null()) {
      std::string key = fold_name(name->as_text());
      auto clash =
          conn.query("SELECT id FROM companies WHERE owner_id = ? AND name_key = ? AND id <> ?",
                     {owner, key, id.value_or(0)});
      if (!clash.empty()) errors.add("name", "error_company_exists");
      cols.emplace_back("name_key", key);
    }
  } else if (kind.name == "tags") {
    if (const Value* name = column(cols, "name"); name != nullptr && !name->is_null()) {
      std::string s = slug(name->as_text());
      if (s.empty()) s = fold_name(name->as_text());
      auto clash = conn.query("SELECT id FROM tags WHERE owner_id = ? AND slug = ? AND id <> ?",
                              {owner, s, id.value_or(0)});
      if (!clash.empty()) errors.add("name", "error_tag_exists");
      cols.emplace_back("slug", s);
    }
  } else if (kind.name == "listings") {
    Value lo = new_or_stored(conn, kind, id, cols, "salary_min");
    Value hi = new_or_stored(conn, kind, id, cols, "salary_max");
    bool changed = column(cols, "salary_min") || column(cols, "salary_max");
    if (changed && !lo.is_null() && !hi.is_null() && hi.as_int() < lo.as_int())
      errors.add("salary_max", "error_salary_order");
    if (const Value* c = column(cols, "currency"); c && !c->is_null()) {
      std::string cur = c->as_text();
      bool ok = cur.size() == 3 && std::all_of(cur.begin(), cur.end(), [](unsigned char ch) {
                  return std::isalpha(ch) != 0;
                });
      if (!ok) errors.add("currency", "error_currency");
    }
  } else if (kind.name == "interviews") {
    if (new_or_stored(conn, kind, id, cols, "starts_at").is_null()) {
      errors.add("starts_at", "error_required");
      return;
    }
    const Value* start = column(cols, "starts_at");
    const Value* end = column(cols, "ends_at");
    Value from = new_or_stored(conn, kind, id, cols, "starts_at");
    Value to = new_or_stored(conn, kind, id, cols, "ends_at");
    if ((start || end) && !from.is_null() && !to.is_null() && to.as_int() < from.as_int())
      errors.add("ends_at", "error_end_before_start");
    if (start && !start->is_null() && end && end->is_null() && !id)
      for (auto& [n, v] : cols)
        if (n == "ends_at") v = Value(start->as_int() + 3600 * 1000);
    if (!id) cols.emplace_back("uid", random_token(16) + "@peto");
  } else if (kind.name == "offers") {
    if (const Value* c = column(cols, "currency"); c && !c->is_null() && c->as_text().size() != 3)
      errors.add("currency", "error_currency");
  } else if (kind.name == "letters") {
    for (const char* name : {"regarding", "body"})
      if (const Value* t = column(cols, name); t && !t->is_null() && !errors.has(name))
        check_template(name, t->as_text(), errors);
  }
}

// Validates input for a new record (id empty) or a change to one.
std::variant<Columns, FieldErrors> validate(store::Conn& conn, std::int64_t owner, const Kind& kind,
                                            const Input& input, std::optional<std::int64_t> id) {
  Columns cols;
  FieldErrors errors;
  for (const Field& f : kind.fields) {
    Raw raw = raw_value(input, f.name);
    if (!f.writable) {
      if (!id && f.type == T::choice) cols.emplace_back(f.name, Value(f.choices.front()));
      continue;
    }
    if (input.partial && !raw.given) continue;
    auto v = convert(conn, owner, f, raw, input);
    if (auto* err = std::get_if<std::string>(&v)) {
      if (*err == "error_too_long")
        errors.too_long(f.name, static_cast<std::size_t>(f.max_length));
      else
        errors.add(f.name, *err);
    } else
      cols.emplace_back(f.name, std::get<Value>(v));
  }
  if (!input.from_form && input.values.is_object())
    for (const auto& [name, _] : input.values.items()) {
      const Field* f = kind.field(name);
      if (f == nullptr && name != "id")
        errors.add(name, "error_unknown_field");
      else if (f != nullptr && !f->writable)
        errors.add(name, "error_read_only");
    }
  if (errors.empty()) check_day(conn, owner, kind, id, cols, errors);
  if (errors.empty()) check_kind(conn, owner, kind, id, cols, errors);
  if (!errors.empty()) return errors;
  return cols;
}

std::string with_today(std::string condition, const std::string& today) {
  const std::string token = ":today";
  for (auto pos = condition.find(token); pos != std::string::npos; pos = condition.find(token))
    condition.replace(pos, token.size(), "'" + today + "'");
  return condition;
}

// `today` (YYYY-MM-DD) stands in for ":today" in the extras.
std::string select_sql(const Kind& kind, const std::string& today) {
  std::string sql = "SELECT t.id";
  for (const Field& f : kind.fields) sql += ", t." + f.name;
  sql += ", t.created_at, t.updated_at";
  for (const Extra& e : kind.extras) sql += ", " + with_today(e.sql, today) + " AS " + e.name;
  return sql + " FROM " + kind.name + " t";
}

Record to_record(const Kind& kind, const store::Row& row) {
  Record r = nlohmann::json::object();
  r["id"] = row.int_at("id");
  auto read = [&](std::string_view name, bool number) -> nlohmann::json {
    const Value& v = row.at(name);
    if (v.is_null()) return nullptr;
    if (number) return v.as_int();
    return v.as_text();
  };
  for (const Field& f : kind.fields)
    r[f.name] = read(f.name, f.type == T::integer || f.type == T::datetime || f.type == T::ref);
  r["created_at"] = read("created_at", true);
  r["updated_at"] = read("updated_at", true);
  for (const Extra& e : kind.extras) r[e.name] = read(e.name, e.number);
  return r;
}

const Tab* find_tab(const Kind& kind, const std::string& name) {
  if (kind.tabs.empty()) return nullptr;
  for (const Tab& t : kind.tabs)
    if (t.name == name) return &t;
  return &kind.tabs.front();
}

// What ?q= compares for search entry `name`: the column, or the SQL of the
// extra of that name (a listing's company name).
std::string search_expression(const Kind& kind, const std::string& name) {
  for (const Extra& e : kind.extras)
    if (e.name == name) return e.sql;
  return "t." + name;
}

// The extra that names what reference `field` points at: "company_id" ->
// "company_name", "application_id" -> "application_role".
const Extra* naming_extra(const Kind& kind, const std::string& field) {
  if (field.size() < 4 || field.compare(field.size() - 3, 3, "_id") != 0) return nullptr;
  const std::string stem = field.substr(0, field.size() - 2);  // "company_"
  for (const Extra& e : kind.extras)
    if (!e.number && e.name.rfind(stem, 0) == 0) return &e;
  return nullptr;
}

// What a list sorted by `name` orders by: SQL over the row `t`, and whether
// it is a number (else a text, compared lower-cased).
struct SortKey {
  std::string sql;
  bool number = false;
};

std::optional<SortKey> sort_key(const Kind& kind, const std::string& name) {
  if (name == "created_at" || name == "updated_at") return SortKey{"t." + name, true};
  if (const Field* f = kind.field(name)) {
    switch (f->type) {
      case T::long_text:
        return std::nullopt;
      case T::integer:
      case T::datetime:
        return SortKey{"t." + name, true};
      case T::date:
        return SortKey{"t." + name, false};
      case T::choice: {
        // In the order the choices are declared (a status as it advances).
        std::string sql = "CASE t." + name;
        for (std::size_t i = 0; i < f->choices.size(); ++i)
          if (!f->choices[i].empty())
            sql += " WHEN '" + f->choices[i] + "' THEN " + std::to_string(i);
        return SortKey{sql + " END", true};
      }
      case T::ref:
        if (const Extra* e = naming_extra(kind, name))
          return SortKey{"lower(" + e->sql + ")", false};
        return std::nullopt;
      default:
        return SortKey{"lower(t." + name + ")", false};
    }
  }
  for (const Extra& e : kind.extras)
    if (e.name == name)
      return e.number ? SortKey{e.sql, true} : SortKey{"lower(" + e.sql + ")", false};
  return std::nullopt;
}

std::string like_pattern(const std::string& text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out + "%";
}

// After a record is made: the timeline entries that go with it.
void after_create(store::Conn& conn, const Kind& kind, std::int64_t now, const Record& r,
                  const std::string& actor) {
  if (kind.name == "interviews") {
    add_event(conn, r["application_id"].get<std::int64_t>(), now, "interview_scheduled",
              "Interview scheduled", "", "", "", "", r["id"].get<std::int64_t>(), actor);
    announce_what_you_did(conn, now, r["application_id"].get<std::int64_t>(), "interview_scheduled",
                          r["id"].get<std::int64_t>());
  } else if (kind.name == "offers") {
    add_event(conn, r["application_id"].get<std::int64_t>(), now, "offer", "Offer recorded", "", "",
              "", "", std::nullopt, actor);
    announce_what_you_did(conn, now, r["application_id"].get<std::int64_t>(), "offer_recorded",
                          r["id"].get<std::int64_t>());
  }
}

}  // namespace

namespace {

std::vector<Subject> subjects_from(const store::Rows& rows) {
  std::vector<Subject> out;
  out.reserve(rows.size());
  for (const auto& r : rows)
    out.push_back({r.int_at("id"), r.text("role"), r.text("company_name")});
  return out;
}

}  // namespace

std::vector<Subject> recent_applications(store::Db& db, std::int64_t owner, int limit) {
  return subjects_from(db.query(
      "SELECT a.id, l.role, COALESCE(c.name, '') AS company_name FROM applications a"
      " JOIN listings l ON l.id = a.listing_id LEFT JOIN companies c ON c.id = l.company_id"
      " WHERE a.owner_id = ? ORDER BY a.id DESC LIMIT ?",
      {owner, limit}));
}

std::vector<Subject> recent_listings(store::Db& db, std::int64_t owner, int limit) {
  return subjects_from(db.query(
      "SELECT l.id, l.role, COALESCE(c.name, '') AS company_name FROM listings l"
      " LEFT JOIN companies c ON c.id = l.company_id WHERE l.owner_id = ? ORDER BY l.id DESC"
      " LIMIT ?",
      {owner, limit}));
}

std::vector<std::string> company_names(store::Db& db, std::int64_t owner, int limit) {
  std::vector<std::string> out;
  for (const auto& r :
       db.query("SELECT name FROM companies WHERE owner_id = ? ORDER BY lower(name), id LIMIT ?",
                {owner, limit}))
    out.push_back(r.text("name"));
  return out;
}

std::int64_t count_owned(store::Db& db, const std::string& table, std::int64_t owner) {
  return db
      .query("SELECT COUNT(*) AS record_count FROM " + table + " WHERE owner_id = ?", {owner})[0]
      .int_at("record_count");
}

bool owns(store::Db& db, const std::string& table, std::int64_t id, std::int64_t owner) {
  return !db.query("SELECT 1 FROM " + table + " WHERE id = ? AND owner_id = ?", {id, owner})
              .empty();
}

bool plausible_email(std::string_view s) {
  auto at = s.find('@');
  if (at == 0 || at == std::string_view::npos || s.find('@', at + 1) != std::string_view::npos)
    return false;
  auto dot = s.find('.', at);
  if (dot == std::string_view::npos || dot == at + 1 || dot + 1 >= s.size()) return false;
  return std::none_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

std::string fold_name(std::string_view name) {
  std::string trimmed = text::trimmed(name);
  // Compatibility decomposition with case folding, then drop the combining
  // marks: "Ståhl" -> "stahl", "ÉCOLE" -> "ecole".
  std::size_t len = 0;
  uint8_t* folded = u8_casefold(reinterpret_cast<const uint8_t*>(trimmed.data()), trimmed.size(),
                                nullptr, UNINORM_NFKD, nullptr, &len);
  if (folded == nullptr) return trimmed;
  std::string out;
  const uint8_t* p = folded;
  const uint8_t* end = folded + len;
  bool space = false;
  while (p < end) {
    ucs4_t uc = 0;
    int n = u8_mbtouc(&uc, p, end - p);
    if (n <= 0) break;
    if (!uc_is_general_category(uc, UC_CATEGORY_M)) {
      if (uc_is_space(uc)) {
        space = true;
      } else {
        if (space && !out.empty()) out += ' ';
        space = false;
        out.append(reinterpret_cast<const char*>(p), n);
      }
    }
    p += n;
  }
  std::free(folded);
  return out;
}

std::string slug(std::string_view name) {
  std::string folded = fold_name(name);
  std::string out;
  for (unsigned char c : folded) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string today_utc(const Clock& clock) { return local_date(clock.now_ms(), "UTC"); }

void follow_time_zone(store::Conn& conn, std::int64_t owner) {
  const std::string zone = owner_zone(conn, owner);
  for (const Kind& k : kinds()) {
    if (k.day_field.empty()) continue;
    for (const auto& row : conn.query("SELECT id, " + k.day_field + " AS day FROM " + k.name +
                                          " WHERE owner_id = ? AND " + k.day_field + " IS NOT NULL",
                                      {owner})) {
      const auto derived = day_columns(k, row.text("day"), zone);
      if (derived.empty()) continue;
      std::string sql;
      store::Params params;
      for (const auto& [name, value] : derived) {
        sql += (sql.empty() ? "" : ", ") + name + " = ?";
        params.push_back(value);
      }
      params.emplace_back(row.int_at("id"));
      conn.query("UPDATE " + k.name + " SET " + sql + " WHERE id = ?", params);
    }
  }
}

namespace {

// Adds to `sql` (and `params`) what narrows a list: its filters, a company,
// a tag, a range of days and the text searched for.
void narrow(const Kind& kind, const ListQuery& q, std::string& sql, store::Params& params) {
  for (const auto& [name, value] : q.equals) {
    if (std::find(kind.filterable.begin(), kind.filterable.end(), name) == kind.filterable.end())
      continue;
    const Field* f = kind.field(name);
    if (f == nullptr) continue;
    sql += " AND t." + name + " = ?";
    if (f->type == T::ref || f->type == T::integer)
      params.emplace_back(to_int(value).value_or(-1));
    else
      params.emplace_back(value);
  }
  if (q.company_id) {
    const Extra* through = nullptr;
    for (const Extra& e : kind.extras)
      if (e.name == "company_id") through = &e;
    if (kind.field("company_id") != nullptr) {
      sql += " AND t.company_id = ?";
      params.emplace_back(*q.company_id);
    } else if (through != nullptr) {
      sql += " AND " + through->sql + " = ?";
      params.emplace_back(*q.company_id);
    }
  }
  if (q.tag_id && !kind.tag_links.empty()) {
    sql += " AND EXISTS (SELECT 1 FROM " + kind.tag_links + " x WHERE x." + kind.singular +
           "_id = t.id AND x.tag_id = ?)";
    params.emplace_back(*q.tag_id);
  }
  if (!q.range_field.empty()) {
    const auto fields = range_fields(kind);
    if (std::find(fields.begin(), fields.end(), q.range_field) != fields.end()) {
      const Field* f = kind.field(q.range_field);
      const bool day = f != nullptr && f->type == T::date;
      auto bound = [&](const std::string& d, const char* op, int shift) {
        if (!parse_date_utc_ms(d)) return;
        sql += " AND t." + q.range_field + " " + op + " ?";
        if (day)
          params.emplace_back(d);
        else
          params.emplace_back(parse_local(add_days(d, shift) + " 00:00", q.time_zone));
      };
      bound(q.from_day, ">=", 0);
      bound(q.to_day, day ? "<=" : "<", day ? 0 : 1);
    }
  }
  std::string text = trimmed(q.text);
  if (!text.empty() && !kind.search.empty()) {
    sql += " AND (";
    for (std::size_t i = 0; i < kind.search.size(); ++i) {
      if (i > 0) sql += " OR ";
      sql += "lower(" + search_expression(kind, kind.search[i]) + ") LIKE ? ESCAPE '\\'";
      params.emplace_back(like_pattern(text));
    }
    sql += ")";
  }
}

// A sorted page in two reads: the ids of the page in order, each sort key
// worked out once (a MATERIALIZED table, on both backends), then only those
// records with what they show (their extras are subqueries: reading them
// for every record only to sort would be most of the work).
Page sorted(store::Db& db, const Kind& kind, const ListQuery& q, const SortKey& order,
            const std::string& today, const std::string& where, store::Params params, int limit) {
  const std::string key = with_today(order.sql, today);
  std::string sql = "WITH s AS MATERIALIZED (SELECT t.id, " + key + " AS sort_key FROM " +
                    kind.name + " t" + where + ") SELECT id, sort_key FROM s";
  // Records without a value come last in both directions, on both backends
  // (SQLite sorts NULL first, PostgreSQL last); ties go by id.
  const char* beyond = q.descending ? " < ?" : " > ?";
  if (q.after) {
    if (q.after->key.is_null()) {
      sql += std::string(" WHERE sort_key IS NULL AND id") + beyond;
    } else {
      sql += std::string(" WHERE (sort_key") + beyond + " OR (sort_key = ? AND id" + beyond +
             ") OR sort_key IS NULL)";
      for (int i = 0; i < 2; ++i) {
        if (q.after->key.is_number())
          params.emplace_back(q.after->key.get<std::int64_t>());
        else
          params.emplace_back(q.after->key.get<std::string>());
      }
    }
    params.emplace_back(q.after->id);
  }
  const std::string dir = q.descending ? " DESC" : "";
  sql += " ORDER BY CASE WHEN sort_key IS NULL THEN 1 ELSE 0 END, sort_key" + dir + ", id" + dir +
         " LIMIT " + std::to_string(limit + 1);
  std::vector<std::pair<std::int64_t, nlohmann::json>> marks;
  for (const auto& row : db.query(sql, params)) {
    const Value& v = row.at("sort_key");
    marks.emplace_back(row.int_at("id"), v.is_null()    ? nlohmann::json(nullptr)
                                         : order.number ? nlohmann::json(v.as_int())
                                                        : nlohmann::json(v.as_text()));
  }
  Page page;
  if (static_cast<int>(marks.size()) > limit) {
    marks.pop_back();
    page.next_after = Mark{marks.back().second, marks.back().first};
  }
  if (marks.empty()) return page;
  std::string ids;
  store::Params id_params;
  for (const auto& [id, _] : marks) {
    ids += ids.empty() ? "?" : ", ?";
    id_params.emplace_back(id);
  }
  std::map<std::int64_t, Record> found;
  for (const auto& row :
       db.query(select_sql(kind, today) + " WHERE t.id IN (" + ids + ")", id_params))
    found.emplace(row.int_at("id"), to_record(kind, row));
  for (const auto& [id, _] : marks)
    if (auto it = found.find(id); it != found.end()) page.items.push_back(std::move(it->second));
  return page;
}

}  // namespace

Page Records::list(std::int64_t owner, const Kind& kind, const ListQuery& q) {
  const std::string today = today_utc(clock_);
  const std::optional<SortKey> order = q.sort.empty() ? std::nullopt : sort_key(kind, q.sort);
  std::string where = " WHERE t.owner_id = ?";
  store::Params params{owner};
  if (const Tab* tab = find_tab(kind, q.tab))
    where += " AND (" + with_today(tab->condition, today) + ")";
  narrow(kind, q, where, params);
  if (q.updated_since) {
    where += " AND t.updated_at >= ?";
    params.emplace_back(*q.updated_since);
  }
  const int limit = std::clamp(q.limit, 1, 200);
  if (order) return sorted(db_, kind, q, *order, today, where, std::move(params), limit);
  if (q.before_id) {
    where += " AND t.id < ?";
    params.emplace_back(*q.before_id);
  }
  auto rows = db_.query(
      select_sql(kind, today) + where + " ORDER BY t.id DESC LIMIT " + std::to_string(limit + 1),
      params);
  Page page;
  for (const auto& row : rows) {
    if (static_cast<int>(page.items.size()) == limit) {
      page.next_cursor = page.items.back()["id"].get<std::int64_t>();
      break;
    }
    page.items.push_back(to_record(kind, row));
  }
  return page;
}

std::optional<Record> Records::get_in(store::Conn& conn, std::int64_t owner, const Kind& kind,
                                      std::int64_t id) {
  auto rows = conn.query(select_sql(kind, today_utc(clock_)) + " WHERE t.id = ? AND t.owner_id = ?",
                         {id, owner});
  if (rows.empty()) return std::nullopt;
  return to_record(kind, rows[0]);
}

std::optional<Record> Records::get(std::int64_t owner, const Kind& kind, std::int64_t id) {
  auto conn = db_.acquire();
  return get_in(*conn, owner, kind, id);
}

std::map<std::string, std::int64_t> Records::count_by(std::int64_t owner, const Kind& kind,
                                                      const std::string& field,
                                                      const std::string& tab) {
  std::map<std::string, std::int64_t> counts;
  if (kind.field(field) == nullptr) return counts;
  std::string sql = "SELECT t." + field + ", COUNT(*) AS record_count FROM " + kind.name +
                    " t WHERE t.owner_id = ?";
  if (const Tab* t = find_tab(kind, tab))
    sql += " AND (" + with_today(t->condition, today_utc(clock_)) + ")";
  sql += " GROUP BY t." + field;
  for (const auto& row : db_.query(sql, {owner}))
    counts[row.text(field)] = row.int_at("record_count");
  return counts;
}

Written Records::create_in(store::Conn& conn, std::int64_t owner, const Kind& kind,
                           const Input& input) {
  auto checked = validate(conn, owner, kind, input, std::nullopt);
  if (auto* errors = std::get_if<FieldErrors>(&checked)) return *errors;
  Columns cols = std::get<Columns>(std::move(checked));
  std::int64_t now = clock_.now_ms();
  std::string names = "owner_id, created_at, updated_at";
  std::string marks = "?, ?, ?";
  store::Params params{owner, now, now};
  for (auto& [name, value] : cols) {
    names += ", " + name;
    marks += ", ?";
    params.push_back(std::move(value));
  }
  auto rows = conn.query(
      "INSERT INTO " + kind.name + " (" + names + ") VALUES (" + marks + ") RETURNING id", params);
  std::int64_t id = rows[0].int_at("id");
  after_create(conn, kind, now, *get_in(conn, owner, kind, id), input.actor);
  if (input.make_reminders) keep_reminder(conn, owner, kind, id, DateChange::given, now);
  return *get_in(conn, owner, kind, id);
}

Written Records::create(std::int64_t owner, const Kind& kind, const Input& input) {
  return db_.write([&](store::Conn& conn) { return create_in(conn, owner, kind, input); });
}

Written Records::update(std::int64_t owner, const Kind& kind, std::int64_t id, const Input& input) {
  return db_.write([&](store::Conn& conn) { return update_in(conn, owner, kind, id, input); });
}

Written Records::update_in(store::Conn& conn, std::int64_t owner, const Kind& kind, std::int64_t id,
                           const Input& input) {
  auto existing =
      conn.query("SELECT id FROM " + kind.name + " WHERE id = ? AND owner_id = ?", {id, owner});
  if (existing.empty()) return NotFound{};
  auto checked = validate(conn, owner, kind, input, id);
  if (auto* errors = std::get_if<FieldErrors>(&checked)) return *errors;
  Columns cols = std::get<Columns>(std::move(checked));
  const auto date_before = reminder_date(conn, kind, id);
  const std::int64_t now = clock_.now_ms();
  std::string sql = "UPDATE " + kind.name + " SET updated_at = ?";
  store::Params params{now};
  for (auto& [name, value] : cols) {
    // A reminder moved to another time is announced again at that time (SET
    // reads the row's old due_at).
    if (kind.name == "reminders" && name == "due_at") {
      sql += ", notified_at = CASE WHEN due_at = ? THEN notified_at ELSE NULL END";
      params.push_back(value);
    }
    sql += ", " + name + " = ?";
    params.push_back(std::move(value));
  }
  sql += " WHERE id = ? AND owner_id = ?";
  params.emplace_back(id);
  params.emplace_back(owner);
  conn.query(sql, params);
  // A date given where there was none may make a reminder; one moved moves it.
  if (input.make_reminders)
    keep_reminder(conn, owner, kind, id, date_change(date_before, reminder_date(conn, kind, id)),
                  now);
  return *get_in(conn, owner, kind, id);
}

std::optional<std::int64_t> Records::remove(std::int64_t owner, const Kind& kind, std::int64_t id) {
  return db_.write([&](store::Conn& conn) { return remove_in(conn, owner, kind, id); });
}

std::optional<std::int64_t> Records::remove_in(store::Conn& conn, std::int64_t owner,
                                               const Kind& kind, std::int64_t id) {
  return Trash(db_, clock_).remove_in(conn, owner, kind, id);
}

std::variant<std::int64_t, FieldErrors> Records::company_named(store::Conn& conn,
                                                               std::int64_t owner,
                                                               const std::string& name) {
  std::string key = fold_name(name);
  if (!key.empty()) {
    auto found =
        conn.query("SELECT id FROM companies WHERE owner_id = ? AND name_key = ?", {owner, key});
    if (!found.empty()) return found[0].int_at("id");
  }
  Input input;
  input.values = {{"name", name}};
  auto made = create_in(conn, owner, kind("companies"), input);
  if (auto* errors = std::get_if<FieldErrors>(&made)) return *errors;
  return std::get<Record>(made)["id"].get<std::int64_t>();
}

std::optional<std::int64_t> find_company(store::Db& db, std::int64_t owner, std::string_view name) {
  auto rows = db.query("SELECT id FROM companies WHERE owner_id = ? AND name_key = ?",
                       {owner, fold_name(name)});
  if (rows.empty()) return std::nullopt;
  return rows[0].int_at("id");
}

std::set<std::int64_t> reminders_to_do(store::Db& db, std::int64_t owner,
                                       const std::vector<std::int64_t>& ids) {
  std::set<std::int64_t> out;
  if (ids.empty()) return out;
  std::string sql = "SELECT id FROM reminders WHERE owner_id = ? AND done_at IS NULL AND id IN (";
  store::Params params{owner};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    sql += i == 0 ? "?" : ", ?";
    params.emplace_back(ids[i]);
  }
  for (const auto& row : db.query(sql + ")", params)) out.insert(row.int_at("id"));
  return out;
}

std::vector<TagName> tag_names(store::Db& db, std::int64_t owner) {
  std::vector<TagName> out;
  for (const auto& row :
       db.query("SELECT id, slug, name FROM tags WHERE owner_id = ? ORDER BY slug, id", {owner}))
    out.push_back({row.int_at("id"), row.text("slug"), row.text("name")});
  return out;
}

std::optional<std::int64_t> find_tag(store::Db& db, std::int64_t owner, std::string_view slug) {
  auto rows =
      db.query("SELECT id FROM tags WHERE owner_id = ? AND slug = ?", {owner, std::string(slug)});
  if (rows.empty()) return std::nullopt;
  return rows[0].int_at("id");
}

std::string mark_text(const Mark& m) {
  std::string out = std::to_string(m.id) + ".";
  if (m.key.is_number()) return out + "i" + std::to_string(m.key.get<std::int64_t>());
  if (m.key.is_string()) return out + "s" + m.key.get<std::string>();
  return out + "n";
}

std::optional<Mark> read_mark(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || dot + 1 >= text.size()) return std::nullopt;
  auto id = to_int(text.substr(0, dot));
  if (!id || *id < 1) return std::nullopt;
  const char tag = text[dot + 1];
  const std::string_view rest = text.substr(dot + 2);
  if (tag == 'n' && rest.empty()) return Mark{nullptr, *id};
  if (tag == 's' && rest.size() <= 2000) return Mark{std::string(rest), *id};
  if (tag == 'i')
    if (auto n = to_int(rest)) return Mark{*n, *id};
  return std::nullopt;
}

std::vector<std::string> sortable_columns(const Kind& kind) {
  std::vector<std::string> out;
  for (const Field& f : kind.fields)
    if (sort_key(kind, f.name)) out.push_back(f.name);
  for (const Extra& e : kind.extras) out.push_back(e.name);
  out.emplace_back("created_at");
  out.emplace_back("updated_at");
  return out;
}

std::vector<std::string> range_fields(const Kind& kind) {
  std::vector<std::string> out;
  for (const Field& f : kind.fields)
    if (f.type == T::date || f.type == T::datetime) out.push_back(f.name);
  out.emplace_back("created_at");
  return out;
}

}  // namespace peto::domain
