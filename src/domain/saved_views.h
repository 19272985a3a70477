// Saved views: a person's named tables ("Berlin, sent this month"), each
// the query string of a record table (its filters, order and columns), per
// kind of record.
//
//   SavedViews views(db, clock);
//   auto saved = views.save(owner, "applications", "Berlin", "company=Acme&sort=applied_at");
//   for (const SavedView& v : views.of(owner, "applications")) ...  // A to Z
//   views.remove(owner, id);
//
// Saving under a name the person already gave a view of that kind replaces
// its query. The query is kept as given (the page builds it from what it
// read, so it holds nothing the table does not understand) and is only ever
// put back into a link to the table.
// Thread-safe (state lives in the database).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/field_errors.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

struct SavedView {
  std::int64_t id = 0;
  std::string kind;   // a record kind's name: "applications"
  std::string name;   // 1..60 characters, unique per person and kind
  std::string query;  // "tab=all&status=applied&sort=company_name"
};

class SavedViews {
 public:
  static constexpr std::size_t kMaxName = 60;
  static constexpr std::size_t kMaxQuery = 2000;  // bytes
  static constexpr int kMaxPerKind = 50;

  SavedViews(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}

  // The person's views of `kind`, A to Z.
  std::vector<SavedView> of(std::int64_t owner, const std::string& kind);
  // All the person's views, for an export.
  std::vector<SavedView> all(std::int64_t owner);
  // Saves (or replaces) the view; FieldErrors on "name" for an empty or
  // overlong name or one view too many, on "query" for an overlong query
  // or a kind that is not a record kind.
  std::variant<SavedView, FieldErrors> save(std::int64_t owner, const std::string& kind,
                                            const std::string& name, const std::string& query);
  // The same, on `conn` inside the caller's transaction (an import).
  std::variant<SavedView, FieldErrors> save_in(store::Conn& conn, std::int64_t owner,
                                               const std::string& kind, const std::string& name,
                                               const std::string& query);
  // False when the person has no such view.
  bool remove(std::int64_t owner, std::int64_t id);

  static std::vector<store::Migration> migrations();  // 18

 private:
  store::Db& db_;
  const Clock& clock_;
};

}  // namespace peto::domain
