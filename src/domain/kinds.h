// Kinds: what each of a person's records is made of, as data.
//
// Companies, contacts, listings, applications, reminders, interviews, offers,
// notes and tags are all "owned records": a row with an owner, an id,
// created_at/updated_at, and the fields listed here. One description drives
// the table, the validation of form and API input (records.h), the pages'
// forms and tables, and the API's schema, so a field is declared once.
//
//   const Kind& k = kind("listings");
//   for (const Field& f : k.fields) ...
//
// Behaviour that is more than "store what was typed" (applying to a listing,
// changing an application's status, the timeline) lives in applications.h and
// goes through the same tables.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "store/migrate.h"

namespace peto::domain {

enum class FieldType {
  text,       // one line, trimmed, at most max_length characters
  long_text,  // several lines, at most max_length characters
  email,      // an address with one '@' and a dot after it
  url,        // http:// or https://
  integer,    // whole number within [min, max]
  date,       // YYYY-MM-DD, stored as that text
  datetime,   // a moment: UTC ms in the table; forms give local time, the API RFC 3339
  choice,     // one of `choices`
  ref,        // the id of one of the same person's records of kind `ref_kind`
};

struct Field {
  std::string name;  // column and JSON name, snake_case
  FieldType type = FieldType::text;
  bool required = false;
  int max_length = 200;
  std::int64_t min = 0;  // integer range, checked when max > min
  std::int64_t max = 0;
  std::vector<std::string> choices;  // for choice; the first is the default
  std::string ref_kind;              // for ref: "companies", "applications"…
  bool writable = true;              // false: set by peto (status, done_at), shown only
  bool listed = true;                // a column of the record table

  Field(std::string n, FieldType t) : name(std::move(n)), type(t) {}
  Field& req() {
    required = true;
    return *this;
  }
  Field& limit(int n) {
    max_length = n;
    return *this;
  }
  Field& range(std::int64_t lo, std::int64_t hi) {
    min = lo;
    max = hi;
    return *this;
  }
  Field& of(std::vector<std::string> values) {
    choices = std::move(values);
    return *this;
  }
  Field& to(std::string kind) {
    ref_kind = std::move(kind);
    return *this;
  }
  Field& read_only() {
    writable = false;
    return *this;
  }
  Field& unlisted() {
    listed = false;
    return *this;
  }
};

// A computed value added to every record read: `sql` is an expression over
// the record's row, aliased `t` ("(SELECT name FROM companies WHERE id = t.company_id)").
struct Extra {
  std::string name;
  std::string sql;
  bool number = false;  // read as an integer (else text)
  Extra(std::string n, std::string s, bool is_number = false)
      : name(std::move(n)), sql(std::move(s)), number(is_number) {}
};

// A named filter of the record list (a listing tab): an SQL condition on `t`.
// ":today" in it stands for today's date as a quoted 'YYYY-MM-DD' literal.
struct Tab {
  std::string name;
  std::string condition;
};

struct Kind {
  std::string name;         // table, URL segment and API resource: "listings"
  std::string singular;     // "listing"
  std::string title_field;  // the field that names a record in links ("name", "role"…)
  std::vector<Field> fields;
  std::vector<Extra> extras;
  std::vector<Tab> tabs;                 // the first is the default
  std::vector<std::string> search;       // fields or extras ?q= looks in
  std::vector<std::string> filterable;   // fields that ?field=value filters on exactly
  std::vector<std::string> columns;      // peto's own columns, as DDL ("name_key TEXT NOT NULL")
  std::vector<std::string> constraints;  // table constraints ("UNIQUE (owner_id, name_key)")
  // The table that tags records of this kind ("application_tags", with
  // "<singular>_id" and tag_id), or "" when they take no tags.
  std::string tag_links;
  std::string due_field;  // the moment a record falls at ("due_at"), or ""
  // A date ("due_on") that makes the record all-day: when set, due_field is
  // derived from it, the start of that day in the owner's time zone, and
  // calendars get the date alone; "" for kinds that are never all-day.
  std::string day_field;
  // Fields added after the kind's table was first made, with the migration
  // that adds them (the first table stays as it was made).
  std::vector<std::pair<std::string, int>> added;
  // The migration that made the kind's table; 0 for the first kinds (6).
  int since = 0;

  const Field* field(std::string_view name) const;
};

// Every kind, in the order the navigation shows them.
const std::vector<Kind>& kinds();
// The kind called `name`; nullptr when there is none.
const Kind* find_kind(std::string_view name);
// The kind called `name`; throws std::out_of_range (a programming error).
const Kind& kind(std::string_view name);

// SQL, true when the application row aliased `a` is past draft: what makes
// its listing one applied to.
std::string application_past_draft(const std::string& a);

// SQL, true when the listing row aliased `l` was applied to: it has an
// application past draft. A draft alone leaves the listing to act on (the
// Shortlisted tab, the dashboard's "Closing soon", the closing notice).
std::string listing_applied(const std::string& l);
// SQL, true when the listing row `l` has any application, a draft included.
std::string listing_taken_up(const std::string& l);
// SQL, true when the application row `a` is open: a status is_open_status
// names (draft … offer).
std::string application_open(const std::string& a);

// Application statuses, in their order (the board's columns are the open ones).
const std::vector<std::string>& statuses();
bool is_open_status(std::string_view s);  // draft … offer
bool is_sent_status(std::string_view s);  // everything but draft and withdrawn
int status_rank(std::string_view s);      // index in statuses(), -1 if unknown
// Timeline kinds; the system alone writes status_change and the interview_* ones.
const std::vector<std::string>& event_kinds();
bool is_system_event(std::string_view kind);
// End reasons an end status may carry.
const std::vector<std::string>& end_reasons();

// The tables of every kind, the timeline and tag links: migration 6.
std::vector<store::Migration> record_migrations();
// The fields each kind's `added` names, column by column (16: due_on, starts_on).
std::vector<store::Migration> added_field_migrations();
// Migration 23: the career record and the CVs made from it ("career", "cvs").
std::vector<store::Migration> career_migrations();
// Migration 24: letter templates ("letters").
std::vector<store::Migration> letter_migrations();

}  // namespace peto::domain
