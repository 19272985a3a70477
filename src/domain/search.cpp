#include "domain/search.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace peto::domain {

namespace {

using store::Dialect;

// One searched table. Its rows are documents of the index whose id is the
// record's id times 16 plus `code`, so one number names both and a write
// finds its document without a lookup. SQL below is written against `{r}`,
// the row (NEW, OLD or the table in a backfill); `{json:key}` reads a key of
// the row's `data` JSON.
struct Source {
  const char* kind;
  const char* table;
  int code;
  const char* owner;    // the owner's id
  const char* title;    // what names the record
  const char* body;     // the rest of its words
  const char* when;     // which rows are documents ("" = all)
  const char* columns;  // the columns whose change changes the document
};

constexpr int kCodes = 16;

// NOLINTBEGIN(cert-err58-cpp)
const std::vector<Source>& sources() {
  static const std::vector<Source> all = {
      {"companies", "companies", 1, "{r}.owner_id", "{r}.name",
       "COALESCE({r}.location, '') || ' ' || COALESCE({r}.website, '') || ' ' ||"
       " COALESCE({r}.notes, '')",
       "", "name, location, website, notes"},
      {"contacts", "contacts", 2, "{r}.owner_id", "{r}.name",
       "COALESCE({r}.role, '') || ' ' || COALESCE({r}.email, '') || ' ' ||"
       " COALESCE({r}.phone, '') || ' ' || COALESCE({r}.notes, '')",
       "", "name, role, email, phone, notes"},
      // A listing's company is among its words: "engineer acme" finds it.
      {"listings", "listings", 3, "{r}.owner_id", "{r}.role",
       "COALESCE({r}.description, '') || ' ' || COALESCE({r}.location, '') || ' ' ||"
       " COALESCE((SELECT c.name FROM companies c WHERE c.id = {r}.company_id), '') || ' ' ||"
       " COALESCE({r}.source, '') || ' ' || COALESCE({r}.url, '')",
       "", "role, company_id, location, source, url, description"},
      {"notes", "notes", 4, "{r}.owner_id", "''", "{r}.body", "", "body"},
      {"events", "application_events", 5,
       "(SELECT a.owner_id FROM applications a WHERE a.id = {r}.application_id)", "{r}.summary",
       "COALESCE({r}.body, '')", "", "summary, body"},
      {"reminders", "reminders", 6, "{r}.owner_id", "{r}.title", "''", "", "title"},
      // Uploads become documents once they have an owner.
      {"documents", "uploads", 7, "{r}.owner_id", "{r}.title",
       "COALESCE({r}.filename, '') || ' ' || COALESCE({r}.notes, '')", "{r}.owner_id IS NOT NULL",
       "owner_id, title, filename, notes"},
      {"captures", "captures", 8, "{r}.owner_id", "COALESCE({json:role}, {r}.url)",
       "COALESCE({json:company}, '') || ' ' || COALESCE({json:location}, '') || ' ' || {r}.url ||"
       " ' ' || COALESCE({json:description}, '')",
       "", "url, data"},
  };
  return all;
}
// NOLINTEND(cert-err58-cpp)

const Source* source_of_code(int code) {
  for (const auto& s : sources())
    if (s.code == code) return &s;
  return nullptr;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

std::string expand(std::string sql, Dialect d, const std::string& row) {
  for (auto at = sql.find("{json:"); at != std::string::npos; at = sql.find("{json:")) {
    const auto end = sql.find('}', at);
    const std::string key = sql.substr(at + 6, end - at - 6);
    const std::string read = d == Dialect::sqlite
                                 ? "json_extract({r}.data, '$." + key + "')"
                                 : "(NULLIF({r}.data, '')::jsonb ->> '" + key + "')";
    sql.replace(at, end - at + 1, read);
  }
  replace_all(sql, "{r}", row);
  return sql;
}

std::string doc_id(const Source& s, const std::string& row) {
  return row + ".id * " + std::to_string(kCodes) + " + " + std::to_string(s.code);
}

// The SELECT of the documents of `row`: from the table itself (a backfill,
// `from` = "FROM <table> src") or of NEW in a trigger (`from` = "").
std::string documents_select(const Source& s, Dialect d, const std::string& row,
                             const std::string& from, const std::string& extra_where) {
  std::string where = s.when;
  if (!extra_where.empty()) where += (where.empty() ? "" : " AND ") + extra_where;
  return expand("SELECT " + doc_id(s, "{r}") + " AS id, " + s.owner + " AS owner_id, COALESCE(" +
                    s.title + ", '') AS title, " + s.body + " AS body " + from +
                    (where.empty() ? "" : " WHERE " + where),
                d, row);
}

std::string insert_documents(const Source& s, Dialect d, const std::string& row,
                             const std::string& from, const std::string& extra_where = "") {
  const std::string select = documents_select(s, d, row, from, extra_where);
  if (d == Dialect::sqlite)
    return "INSERT INTO search_fts (rowid, owner, title, body) SELECT x.id, 'u' || x.owner_id,"
           " x.title, x.body FROM (" +
           select + ") x WHERE x.owner_id IS NOT NULL;";
  return "INSERT INTO search_docs (id, owner_id, title, body, doc) SELECT x.id, x.owner_id,"
         " x.title, x.body, setweight(to_tsvector('simple', peto_fold(x.title)), 'A') ||"
         " setweight(to_tsvector('simple', peto_fold(x.body)), 'B') FROM (" +
         select + ") x WHERE x.owner_id IS NOT NULL;";
}

std::string delete_document(const Source& s, Dialect d, const std::string& row) {
  return std::string(d == Dialect::sqlite ? "DELETE FROM search_fts WHERE rowid = "
                                          : "DELETE FROM search_docs WHERE id = ") +
         doc_id(s, row) + ";";
}

// A listing's document holds its company's name: renaming the company
// rewrites the documents of its listings.
std::string follow_company_sql(Dialect d) {
  const Source& listings = sources()[2];
  const std::string ids =
      "(SELECT " + doc_id(listings, "l") + " FROM listings l WHERE l.company_id = NEW.id)";
  const std::string body =
      std::string(d == Dialect::sqlite ? "DELETE FROM search_fts WHERE rowid IN "
                                       : "DELETE FROM search_docs WHERE id IN ") +
      ids + "; " +
      insert_documents(listings, d, "src", "FROM listings src", "src.company_id = NEW.id");
  if (d == Dialect::sqlite)
    return "CREATE TRIGGER search_listings_company AFTER UPDATE OF name ON companies BEGIN " +
           body + " END;";
  return "CREATE FUNCTION search_listings_company() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " +
         body +
         " RETURN NULL; END $$;"
         " CREATE TRIGGER search_listings_company AFTER UPDATE OF name ON companies"
         " FOR EACH ROW EXECUTE FUNCTION search_listings_company();";
}

std::string triggers_sql(const Source& s, Dialect d) {
  const std::string t = s.table;
  if (d == Dialect::sqlite) {
    return "CREATE TRIGGER search_" + t + "_insert AFTER INSERT ON " + t + " BEGIN " +
           insert_documents(s, d, "NEW", "") + " END;" + "CREATE TRIGGER search_" + t +
           "_update AFTER UPDATE OF " + s.columns + " ON " + t + " BEGIN " +
           delete_document(s, d, "OLD") + " " + insert_documents(s, d, "NEW", "") + " END;" +
           "CREATE TRIGGER search_" + t + "_delete AFTER DELETE ON " + t + " BEGIN " +
           delete_document(s, d, "OLD") + " END;";
  }
  return "CREATE FUNCTION search_" + t +
         "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
         " IF TG_OP <> 'INSERT' THEN " +
         delete_document(s, d, "OLD") + " END IF; IF TG_OP <> 'DELETE' THEN " +
         insert_documents(s, d, "NEW", "") +
         " END IF; RETURN NULL; END $$;"
         " CREATE TRIGGER search_" +
         t + " AFTER INSERT OR DELETE OR UPDATE OF " + s.columns + " ON " + t +
         " FOR EACH ROW EXECUTE FUNCTION search_" + t + "();";
}

// peto_fold(text): the text without its accents where the server has the
// unaccent extension (made here when the account may), else as it is.
constexpr const char* kFoldSql =
    "DO $$ DECLARE where_it_is TEXT; BEGIN"
    " BEGIN CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;"
    " EXCEPTION WHEN OTHERS THEN NULL; END;"
    " SELECT n.nspname INTO where_it_is FROM pg_extension e"
    " JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent';"
    " IF where_it_is IS NULL THEN"
    " EXECUTE 'CREATE FUNCTION peto_fold(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE"
    " AS $f$ SELECT t $f$';"
    " ELSE"
    " EXECUTE format('CREATE FUNCTION peto_fold(t TEXT) RETURNS TEXT LANGUAGE sql STABLE"
    " AS $f$ SELECT %1$I.unaccent(%2$L::regdictionary, t) $f$', where_it_is,"
    " where_it_is || '.unaccent');"
    " END IF; END $$;";

std::string migration_sql(Dialect d) {
  std::string sql;
  if (d == Dialect::sqlite) {
    // The owner is a word of its own column ("u42"): the index answers
    // only the owner's documents rather than filtering everyone's.
    sql =
        "CREATE VIRTUAL TABLE search_fts USING fts5(owner, title, body,"
        " tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');";
  } else {
    sql = std::string(kFoldSql) +
          "CREATE TABLE search_docs (id BIGINT PRIMARY KEY, owner_id BIGINT NOT NULL,"
          " title TEXT NOT NULL, body TEXT NOT NULL, doc TSVECTOR NOT NULL);"
          "COMMENT ON TABLE search_docs IS 'peto:derived: triggers keep it; backups leave it"
          " out';"
          "CREATE INDEX search_docs_doc ON search_docs USING GIN (doc);"
          "CREATE INDEX search_docs_owner ON search_docs (owner_id);";
  }
  for (const auto& s : sources()) {
    sql += insert_documents(s, d, "src", std::string("FROM ") + s.table + " src");
    sql += triggers_sql(s, d);
  }
  sql += follow_company_sql(d);
  return sql;
}

// The words of a query, as the index's own syntax asks for them.
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    // Letters and digits, of any script (bytes past ASCII are parts of them).
    if (u >= 0x80 || std::isalnum(u) != 0) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  if (words.size() > 16) words.resize(16);
  return words;
}

// Every word in the owner's documents; in their titles when `in_title`,
// else anywhere but not all in the title (the second tier of search()).
std::string fts5_match(std::int64_t owner, const std::vector<std::string>& words, bool in_title) {
  std::string terms;
  for (const auto& w : words)
    terms += (terms.empty() ? "\"" : " \"") + w + (&w == &words.back() ? "\"*" : "\"");
  const std::string mine = "owner : \"u" + std::to_string(owner) + "\" AND ";
  if (in_title) return mine + "{title} : (" + terms + ")";
  return mine + "{title body} : (" + terms + ") NOT {title} : (" + terms + ")";
}

std::string in_list(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (auto id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

std::string codes_where(const std::vector<std::string>& kinds, const std::string& id_column) {
  if (kinds.empty()) return "";
  std::string codes;
  for (const auto& s : sources())
    if (std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end())
      codes += (codes.empty() ? "" : ",") + std::to_string(s.code);
  if (codes.empty()) codes = "-1";
  return " AND " + id_column + " % " + std::to_string(kCodes) + " IN (" + codes + ")";
}

bool wanted(const SearchQuery& q, const std::string& kind) {
  return q.kinds.empty() || std::find(q.kinds.begin(), q.kinds.end(), kind) != q.kinds.end();
}

// Fills each hit's context (what it belongs to), and for listings found,
// the applications made from them, which share their words.
void add_context(store::Db& db, std::int64_t owner, const SearchQuery& q,
                 std::vector<SearchHit>& hits) {
  std::map<std::string, std::vector<std::int64_t>> ids;
  for (const auto& h : hits) ids[h.kind].push_back(h.id);
  std::map<std::pair<std::string, std::int64_t>, store::Row> found;
  auto look_up = [&](const std::string& kind, const std::string& select) {
    if (ids[kind].empty()) return;
    for (const auto& row : db.query(select + " AND t.id IN (" + in_list(ids[kind]) + ")", {owner}))
      found.emplace(std::make_pair(kind, row.int_at("id")), row);
  };
  const std::string role_at =
      "COALESCE(l.role, '') AS role, COALESCE(c.name, '') AS company FROM applications a"
      " JOIN listings l ON l.id = a.listing_id LEFT JOIN companies c ON c.id = l.company_id";
  look_up("listings",
          "SELECT t.id, '' AS role, COALESCE(c.name, '') AS company, 0 AS application_id"
          " FROM listings t LEFT JOIN companies c ON c.id = t.company_id WHERE t.owner_id = ?");
  look_up("contacts",
          "SELECT t.id, COALESCE(t.role, '') AS role, COALESCE(c.name, '') AS company,"
          " 0 AS application_id FROM contacts t LEFT JOIN companies c ON c.id = t.company_id"
          " WHERE t.owner_id = ?");
  look_up("events",
          "SELECT t.id, t.application_id, " + role_at +
              " JOIN application_events t ON t.application_id = a.id WHERE a.owner_id = ?");
  look_up("reminders",
          "SELECT t.id, COALESCE(t.application_id, 0) AS application_id,"
          " COALESCE(l.role, '') AS role, COALESCE(c.name, '') AS company FROM reminders t"
          " LEFT JOIN applications a ON a.id = t.application_id"
          " LEFT JOIN listings l ON l.id = a.listing_id"
          " LEFT JOIN companies c ON c.id = l.company_id WHERE t.owner_id = ?");
  for (auto& h : hits) {
    auto it = found.find({h.kind, h.id});
    if (it == found.end()) continue;
    const auto& row = it->second;
    const std::string role = row.text("role");
    const std::string company = row.text("company");
    h.application_id = row.int_at("application_id");
    h.context = role.empty() ? company : company.empty() ? role : role + " · " + company;
  }
  if (!wanted(q, "applications") || ids["listings"].empty()) return;
  // An application is its listing: it takes the listing's place, which it
  // links to (a listing asked for alone stays itself).
  std::map<std::int64_t, std::vector<std::int64_t>> made_from;
  for (const auto& row :
       db.query("SELECT a.id, a.listing_id FROM applications a WHERE a.owner_id = ?"
                " AND a.listing_id IN (" +
                    in_list(ids["listings"]) + ") ORDER BY a.id",
                {owner}))
    made_from[row.int_at("listing_id")].push_back(row.int_at("id"));
  std::vector<SearchHit> out;
  for (auto& h : hits) {
    const bool listing = h.kind == "listings";
    const std::int64_t listing_id = h.id;
    SearchHit as_listing = h;
    if (!listing || made_from[listing_id].empty()) {
      if (wanted(q, h.kind)) out.push_back(std::move(h));
      continue;
    }
    for (auto id : made_from[listing_id]) {
      SearchHit a = as_listing;
      a.kind = "applications";
      a.id = id;
      out.push_back(std::move(a));
    }
  }
  hits = std::move(out);
}

}  // namespace

const std::vector<std::string>& search_kinds() {
  static const std::vector<std::string> kinds = {"applications", "listings",  "companies",
                                                 "contacts",     "notes",     "events",
                                                 "reminders",    "documents", "captures"};
  return kinds;
}

std::vector<SearchHit> search(store::Db& db, std::int64_t owner, const std::string& text,
                              const SearchQuery& query) {
  const auto words = words_of(text);
  if (words.empty()) return {};
  const int limit = std::clamp(query.limit, 1, 200);
  // Listings are looked for when applications are: an application is found
  // by its listing's words.
  std::vector<std::string> kinds = query.kinds;
  if (!kinds.empty() && wanted(query, "applications") && !wanted(query, "listings"))
    kinds.emplace_back("listings");
  // Two tiers, each newest first (the highest ids): the records whose title
  // (a name, a role, a subject) has every word, then those that have them
  // elsewhere. Both are read from the index in id order and stop at the
  // limit, so the thousands of records a common word is in are not ranked
  // one by one; highlights and snippets, which read the text again, are made
  // for the rows shown only. Every word must be whole but the last, which
  // may be the start of one: what is being typed.
  store::Rows rows;
  for (const bool in_title : {true, false}) {
    const int left = limit - static_cast<int>(rows.size());
    if (left <= 0) break;
    store::Rows tier;
    if (db.dialect() == Dialect::sqlite) {
      tier = db.query(
          "SELECT rowid AS id, highlight(search_fts, 1, char(1), char(2)) AS title,"
          " snippet(search_fts, 2, char(1), char(2), '…', 16) AS snippet"
          " FROM search_fts WHERE search_fts MATCH ?" +
              codes_where(kinds, "rowid") + " ORDER BY rowid DESC LIMIT ?",
          {fts5_match(owner, words, in_title), left});
    } else {
      std::string whole;
      for (std::size_t i = 0; i + 1 < words.size(); ++i) whole += words[i] + " ";
      // q: every word anywhere; t: every word in the title (weight A).
      tier = db.query(
          "WITH w AS (SELECT (SELECT array_agg(quote_literal(w)) FROM unnest(tsvector_to_array("
          "to_tsvector('simple', peto_fold(?)))) AS w) AS whole, (SELECT array_agg("
          "quote_literal(w)) FROM unnest(tsvector_to_array(to_tsvector('simple',"
          " peto_fold(?)))) AS w) AS start),"
          " q AS (SELECT to_tsquery('simple', concat_ws(' & ', array_to_string(whole, ' & '),"
          " array_to_string(start, ':* & ') || ':*')) AS q, to_tsquery('simple',"
          " concat_ws(' & ', array_to_string(whole, ':A & ') || ':A',"
          " array_to_string(start, ':*A & ') || ':*A')) AS t FROM w),"
          " top AS MATERIALIZED (SELECT d.id FROM search_docs d, q WHERE d.owner_id = ?"
          " AND d.doc @@ q.q AND " +
              std::string(in_title ? "" : "NOT ") + "d.doc @@ q.t" + codes_where(kinds, "d.id") +
              " ORDER BY d.id DESC LIMIT ?)"
              " SELECT d.id, ts_headline('simple', d.title, q.q, 'HighlightAll=true,"
              " StartSel=' || chr(1) || ', StopSel=' || chr(2)) AS title,"
              " ts_headline('simple', d.body, q.q, 'MaxFragments=1, MaxWords=16, MinWords=6,"
              " FragmentDelimiter=…, StartSel=' || chr(1) || ', StopSel=' || chr(2)) AS snippet"
              " FROM top JOIN search_docs d ON d.id = top.id, q ORDER BY d.id DESC",
          {whole, words.back(), owner, left});
    }
    for (const auto& row : tier) rows.rows.push_back(row);
  }
  std::vector<SearchHit> hits;
  for (const auto& row : rows) {
    const std::int64_t doc = row.int_at("id");
    const Source* s = source_of_code(static_cast<int>(doc % kCodes));
    if (s == nullptr) continue;
    SearchHit h;
    h.kind = s->kind;
    h.id = doc / kCodes;
    h.title = row.text("title");
    h.snippet = row.text("snippet");
    // A snippet without a found word repeats nothing the title lacks.
    if (h.snippet.find('\x01') == std::string::npos) h.snippet.clear();
    hits.push_back(std::move(h));
  }
  add_context(db, owner, query, hits);
  if (hits.size() > static_cast<std::size_t>(limit)) hits.resize(static_cast<std::size_t>(limit));
  return hits;
}

std::vector<store::Migration> search_migrations() {
  return {{17, "search", migration_sql(Dialect::sqlite), migration_sql(Dialect::postgres)}};
}

std::string search_triggers_sql(Dialect dialect, const std::string& table) {
  std::string sql;
  for (const auto& s : sources())
    if (table == s.table) sql += triggers_sql(s, dialect);
  if (table == "companies") sql += follow_company_sql(dialect);
  return sql;
}

}  // namespace peto::domain
