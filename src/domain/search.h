// Search across a person's records: one box finds listings, companies,
// contacts, applications, notes, timeline entries, reminders, documents and
// captured pages by the words in them.
//
//   std::vector<SearchHit> hits = search(db, owner, "data engineer berlin", {});
//   for (const auto& h : hits) ...  // h.title and h.snippet mark the words found
//
// The index is the database's own full-text search: SQLite's FTS5 table
// `search_fts`, PostgreSQL's `search_docs` with a tsvector under a GIN index
// (accents folded by `unaccent` where the server has it). Triggers on each
// searched table keep it in step in the very statement that writes a record,
// so every way a record changes (a form, the API, an import, a sync, the
// trash and its restore) changes what search finds in the same transaction.
// A table rebuilt by a later SQLite migration loses its triggers: such a
// migration must make them again (search_triggers_sql()).
//
// Every word of the query must appear, each as a word or the start of one
// ("eng" finds "Engineer"), in any case and with or without accents.
// Owner-scoped like everything else: another person's records never match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

struct SearchHit {
  std::string kind;  // "listings", "companies", "contacts", "applications", "notes",
                     // "events" (timeline entries), "reminders", "documents", "captures"
  std::int64_t id = 0;
  std::string title;                // what names it; found words between \x01 and \x02
  std::string snippet;              // words around what was found in the rest, marked the same way
  std::string context;              // what it belongs to ("Data Engineer at Acme"), unmarked
  std::int64_t application_id = 0;  // events: the application whose timeline holds it
};

// The longest query a person or a token may send, in bytes (the header's
// box says so with maxlength).
inline constexpr std::size_t kMaxSearchQuery = 200;

struct SearchQuery {
  std::vector<std::string> kinds;  // only these kinds ("" = all); the API's scopes
  int limit = 50;                  // hits in all, 1..200
};

// The owner's records matching every word of `text`: those with every word
// in their title first, then the rest, each newest first. The last word may
// be the start of one ("data eng" finds "data engineer"). An empty query, or
// one without a word in it, finds nothing.
std::vector<SearchHit> search(store::Db& db, std::int64_t owner, const std::string& text,
                              const SearchQuery& query);

// The kinds search() can answer, in the order a results page lists them.
const std::vector<std::string>& search_kinds();

// Migration 17: the index, its triggers and the records already kept.
std::vector<store::Migration> search_migrations();

// The triggers that keep the index in step with `table`, for a migration that
// rebuilt it on SQLite.
std::string search_triggers_sql(store::Dialect dialect, const std::string& table);

}  // namespace peto::domain
