// Trash: a deleted record and everything that went with it, kept 30 days so
// that one click never loses a job search.
//
//   Trash trash(db, clock);
//   Gone gone = *trash.dependents(owner, kind("listings"), 7);  // what would go
//   // "This listing has an application with 12 timeline entries and 2 reminders"
//   std::optional<std::int64_t> entry = records.remove(owner, kind("listings"), 7);
//   trash.restore(owner, *entry);   // the listing, its application … come back whole
//
// Deleting a record takes with it what cannot stand without it: a company its
// listings, a listing its application and history, an application its
// timeline, interviews, offers, reminders and tag links, a tag its links.
// Notes go when the deleted records were all they were attached to. Records
// that only mention it (a contact's company, an application's contact) stay
// and lose the link, which a restore puts back.
//
// Every row that goes is copied, column by column, into one trash entry in the
// same transaction as the delete. Ids are never reused (store::ids_never_reused),
// so a restore puts each row back under its own id: links, bookmarks and sync
// links to it work again. A restore is refused, changing nothing, when what
// the record hangs on is gone (a listing whose company was deleted since: its
// company must be restored first) or when a record made since took its name.
//
// Entries older than kKeep are emptied by the scheduler's upkeep step.
// Thread-safe (state lives in the database).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/kinds.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

// What a delete takes with it: rows per table ("applications": 1,
// "application_events": 12 …), the record itself not counted.
struct Gone {
  std::map<std::string, std::int64_t> counts;
  bool empty() const { return counts.empty(); }
  std::int64_t total() const;
  // Whether records of their own go (an application, a reminder, a note…),
  // not only the record's own parts (its timeline, its tag links, a
  // listing's history): what makes a delete ask first.
  bool has_records() const;
};

struct TrashEntry {
  std::int64_t id = 0;
  std::string kind;  // the deleted record's kind: "listings"
  std::int64_t record_id = 0;
  std::string title;    // what it was called: "Backend engineer"
  std::string company;  // its company's name, for listings and applications; "" else
  Gone gone;
  std::int64_t deleted_at = 0;  // UTC ms
};

// Why a restore changed nothing.
struct RestoreRefused {
  enum class Why { parent_gone, name_taken } why = Why::parent_gone;
  std::string parent_kind;  // parent_gone: the kind of record it needs back first ("companies")
  std::optional<std::int64_t> parent_entry;  // that record's own trash entry, if it is there
};
struct TrashNotFound {};
// The restored record's kind and id, or why not.
struct Restored {
  std::string kind;
  std::int64_t id = 0;
};
using RestoreResult = std::variant<Restored, RestoreRefused, TrashNotFound>;

class Trash {
 public:
  static constexpr std::chrono::hours kKeep{24 * 30};

  Trash(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}

  // What deleting the owner's record would take with it; nullopt when the
  // owner has no such record.
  std::optional<Gone> dependents(std::int64_t owner, const Kind& kind, std::int64_t id);
  // Moves the record and what goes with it into a new trash entry, inside
  // the caller's transaction; the entry's id, or nullopt when the owner has
  // no such record (nothing written).
  std::optional<std::int64_t> remove_in(store::Conn& conn, std::int64_t owner, const Kind& kind,
                                        std::int64_t id);

  // The owner's entries, newest first.
  std::vector<TrashEntry> list(std::int64_t owner);
  std::optional<TrashEntry> get(std::int64_t owner, std::int64_t entry);
  // Puts every row of the entry back under its own id, in one transaction,
  // and drops the entry.
  RestoreResult restore(std::int64_t owner, std::int64_t entry);
  // Drops an entry for good (a person emptying their trash); false when missing.
  bool forget(std::int64_t owner, std::int64_t entry);
  // Drops every entry older than `keep`: the upkeep step. Returns how many.
  std::int64_t empty_older_than(std::chrono::milliseconds keep = kKeep);

  static std::vector<store::Migration> migrations();

  // Every link a delete follows, as "child_table.column -> parent_table":
  // the test that checks it against the schema's foreign keys, so a table
  // added later that points at a record is not missed by the trash.
  static std::vector<std::string> links();

 private:
  store::Db& db_;
  const Clock& clock_;
};

}  // namespace peto::domain
