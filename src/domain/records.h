// Records: list, read, create, change and delete a person's owned records.
//
//   Records records(db, clock);
//   auto made = records.create(owner, kind("companies"), Input{{{"name", "Acme"}}});
//   if (auto* errors = std::get_if<FieldErrors>(&made)) ...   // nothing was written
//   std::optional<Record> r = records.get(owner, kind("companies"), id);
//
// Every statement carries `owner_id = ?`, so another person's record is
// indistinguishable from a missing one: get() returns nullopt, update() and
// remove() report NotFound. A reference field (company_id…) is accepted only
// when it names one of the same owner's records.
//
// Input comes from a form (every value a string; datetimes are local times in
// Input::time_zone, "YYYY-MM-DDTHH:MM") or from the API (typed JSON; datetimes
// RFC 3339 UTC). Validation checks every field before anything is written and
// returns all the errors at once; a write is one statement or one transaction,
// so a failed request leaves the database as it was.
//
// A Record is a JSON object: id, the kind's fields (null when empty),
// created_at/updated_at (UTC ms), and the kind's extras (company_name…).
// Thread-safe (state lives in the database).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/field_errors.h"
#include "domain/kinds.h"
#include "store/db.h"

namespace peto::domain {

using Record = nlohmann::json;

struct Input {
  nlohmann::json values = nlohmann::json::object();
  std::string time_zone = "UTC";  // for local datetimes typed into forms
  bool from_form = true;          // strings as typed; false: typed JSON (API)
  bool partial = false;           // update only the fields present (PATCH)
  // The API's rule: each value's JSON type must be the field's (a string for
  // text, dates and moments; an integer for numbers and references). Without
  // it, typed input may also give a moment as UTC ms (peto's own callers).
  bool strict_types = false;
  std::string actor;  // who the timeline entries a write adds are by ("" = the person)
  // Whether the write may make an automatic reminder (domain/auto_reminders.h);
  // false for an import, which brings its own.
  bool make_reminders = true;
};

// A place in a sorted list: the sort key of the last record seen (null, a
// number or a text) and its id. As text (for a URL): "<id>.n", "<id>.i<n>",
// "<id>.s<text>".
struct Mark {
  nlohmann::json key;
  std::int64_t id = 0;
};
std::string mark_text(const Mark& m);
std::optional<Mark> read_mark(std::string_view text);

struct ListQuery {
  std::string tab;                            // a Kind::tabs name; "" = the first (or none)
  std::map<std::string, std::string> equals;  // filterable field -> value
  std::string text;                           // ?q=, a case-insensitive substring
  std::optional<std::int64_t> before_id;      // cursor: records with smaller ids
  std::optional<std::int64_t> updated_since;  // UTC ms
  int limit = 50;                             // 1..200
  // Sorted by a column of sortable_columns(kind), then by id, instead of
  // newest first; records without a value come last either way. `after`
  // is the cursor of that order: the mark of the last record seen.
  std::string sort;
  bool descending = false;
  std::optional<Mark> after;
  // The records of one company (kinds that name one, directly or through
  // their listing), and the applications with one tag.
  std::optional<std::int64_t> company_id;
  std::optional<std::int64_t> tag_id;
  // Days from and to, both included ("YYYY-MM-DD", either may be ""), of a
  // field of range_fields(kind); the days of a moment are in `time_zone`.
  std::string range_field;
  std::string from_day;
  std::string to_day;
  std::string time_zone = "UTC";
};

struct Page {
  std::vector<Record> items;
  std::optional<std::int64_t> next_cursor;  // pass as before_id for the next page
  std::optional<Mark> next_after;           // sorted: pass as `after`
};

// The columns a list of `kind` may be sorted by: its title, its listed
// fields (a reference by the name of what it points at), the extras that
// name a company, created_at and updated_at.
std::vector<std::string> sortable_columns(const Kind& kind);
// The fields a list may be narrowed to a range of days of: its dates and
// moments, and created_at.
std::vector<std::string> range_fields(const Kind& kind);

struct NotFound {};
using Written = std::variant<Record, FieldErrors, NotFound>;

class Records {
 public:
  Records(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}

  Page list(std::int64_t owner, const Kind& kind, const ListQuery& query);
  std::optional<Record> get(std::int64_t owner, const Kind& kind, std::int64_t id);
  // Counts per value of a choice field ({"new": 3, ...}) under a tab.
  std::map<std::string, std::int64_t> count_by(std::int64_t owner, const Kind& kind,
                                               const std::string& field, const std::string& tab);

  Written create(std::int64_t owner, const Kind& kind, const Input& input);
  Written update(std::int64_t owner, const Kind& kind, std::int64_t id, const Input& input);
  // Moves the record, and what cannot stand without it, to the trash
  // (trash.h); the trash entry, or nullopt when there is no such record.
  std::optional<std::int64_t> remove(std::int64_t owner, const Kind& kind, std::int64_t id);

  // The same, on a connection inside the caller's transaction.
  Written create_in(store::Conn& conn, std::int64_t owner, const Kind& kind, const Input& input);
  Written update_in(store::Conn& conn, std::int64_t owner, const Kind& kind, std::int64_t id,
                    const Input& input);
  std::optional<Record> get_in(store::Conn& conn, std::int64_t owner, const Kind& kind,
                               std::int64_t id);
  std::optional<std::int64_t> remove_in(store::Conn& conn, std::int64_t owner, const Kind& kind,
                                        std::int64_t id);

  // The company called `name` (compared case- and accent-insensitively), made
  // if the person has none yet. FieldErrors for an empty or overlong name.
  std::variant<std::int64_t, FieldErrors> company_named(store::Conn& conn, std::int64_t owner,
                                                        const std::string& name);

  store::Db& db() { return db_; }
  const Clock& clock() const { return clock_; }

 private:
  store::Db& db_;
  const Clock& clock_;
};

// An application or listing as a picker names it: its role and company.
struct Subject {
  std::int64_t id = 0;
  std::string role;
  std::string company;  // "" when the listing has none
};
// The owner's newest `limit` applications, or listings, newest first.
std::vector<Subject> recent_applications(store::Db& db, std::int64_t owner, int limit);
std::vector<Subject> recent_listings(store::Db& db, std::int64_t owner, int limit);
// The names of the owner's companies, A to Z, `limit` at most: the suggestions
// of a listing's company field.
std::vector<std::string> company_names(store::Db& db, std::int64_t owner, int limit);

// The owner's company called `name` (compared as company_named compares),
// or nullopt when there is none; nothing is made.
std::optional<std::int64_t> find_company(store::Db& db, std::int64_t owner, std::string_view name);
// Which of the reminders `ids` are the owner's and still to do, in one read.
std::set<std::int64_t> reminders_to_do(store::Db& db, std::int64_t owner,
                                       const std::vector<std::int64_t>& ids);
// The owner's tags, A to Z, and the one whose slug is `slug` ("remote-first":
// what a table's URL names a tag by, the same on another server after an
// import).
struct TagName {
  std::int64_t id = 0;
  std::string slug;
  std::string name;
};
std::vector<TagName> tag_names(store::Db& db, std::int64_t owner);
std::optional<std::int64_t> find_tag(store::Db& db, std::int64_t owner, std::string_view slug);
// Case- and accent-insensitive key of a name: "  Ståhl & Co " -> "stahl & co".
std::string fold_name(std::string_view name);
// The rule an email field is checked with: one '@', a dot after it with
// something on both sides, no white space.
bool plausible_email(std::string_view s);
// How many rows of `table` (a kind's table, named by code) the owner has.
std::int64_t count_owned(store::Db& db, const std::string& table, std::int64_t owner);
// Whether the record `id` of `table` (a kind's table, named by code, never
// by input) belongs to `owner`.
bool owns(store::Db& db, const std::string& table, std::int64_t id, std::int64_t owner);
// A URL-safe slug: "Remote first!" -> "remote-first".
std::string slug(std::string_view name);
// "YYYY-MM-DD" of the clock's now, UTC.
std::string today_utc(const Clock& clock);
// Moves the owner's all-day reminders and interviews to the start of their
// days in the owner's time zone, after it changed.
void follow_time_zone(store::Conn& conn, std::int64_t owner);

}  // namespace peto::domain
