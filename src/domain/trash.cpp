#include "domain/trash.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "domain/records.h"

namespace peto::domain {

namespace {

using nlohmann::json;

// What happens to a row that points at a deleted one.
enum class Goes {
  with_it,     // it cannot stand alone: it goes too
  when_alone,  // a note: goes when everything it is attached to goes
  stays,       // it only mentions the deleted row: it stays and loses the link
};

struct Link {
  const char* table;
  const char* column;
  Goes goes;
  const char* also = nullptr;  // a further condition on the rows ("made_for = 'closing'")
};

// Who points at a row of `table`, in the order rows come back on a restore
// (a parent before what hangs on it: interviews before the timeline entries
// that name them).
const std::vector<Link>& links_to(const std::string& table) {
  static const std::map<std::string, std::vector<Link>> all = {
      {"companies",
       {{"listings", "company_id", Goes::with_it},
        {"contacts", "company_id", Goes::stays},
        {"notes", "company_id", Goes::when_alone}}},
      {"contacts", {{"applications", "contact_id", Goes::stays}}},
      {"listings",
       {{"applications", "listing_id", Goes::with_it},
        {"listing_events", "listing_id", Goes::with_it},
        {"notes", "listing_id", Goes::when_alone},
        {"captures", "listing_id", Goes::stays},
        {"reminders", "made_from", Goes::with_it, "made_for = 'closing'"}}},
      {"applications",
       {{"interviews", "application_id", Goes::with_it},
        {"offers", "application_id", Goes::with_it},
        {"reminders", "application_id", Goes::with_it},
        {"application_events", "application_id", Goes::with_it},
        {"application_tags", "application_id", Goes::with_it},
        {"notes", "application_id", Goes::when_alone},
        {"captures", "application_id", Goes::stays}}},
      // An automatic reminder goes with what it is about (auto_reminders.h).
      {"interviews",
       {{"application_events", "interview_id", Goes::stays},
        {"reminders", "made_from", Goes::with_it, "made_for = 'interview'"}}},
      {"offers", {{"reminders", "made_from", Goes::with_it, "made_for = 'answer_by'"}}},
      {"tags", {{"application_tags", "tag_id", Goes::with_it}}},
      // A letter template names the CV whose details head it.
      {"cvs", {{"letters", "cv_id", Goes::stays}}},
  };
  static const std::vector<Link> none;
  auto it = all.find(table);
  return it == all.end() ? none : it->second;
}

// A column naming another row, checked when a row comes back.
struct Ref {
  std::string column;
  std::string parent;
  bool required;
};

std::vector<Ref> refs_of(const std::string& table) {
  if (const Kind* k = find_kind(table)) {
    std::vector<Ref> out;
    for (const Field& f : k->fields)
      if (f.type == FieldType::ref) out.push_back({f.name, f.ref_kind, f.required});
    return out;
  }
  if (table == "application_events")
    return {{"application_id", "applications", true},
            {"interview_id", "interviews", false},
            {"upload_id", "uploads", false}};
  if (table == "application_tags")
    return {{"application_id", "applications", true}, {"tag_id", "tags", true}};
  if (table == "listing_events") return {{"listing_id", "listings", true}};
  return {};
}

// The columns that pick out one row of `table`.
std::vector<std::string> key_of(const std::string& table) {
  if (table == "application_tags") return {"application_id", "tag_id"};
  return {"id"};
}

// Table and column names come from the lists above or from the database's
// own answer; checked all the same before they are put into a statement.
std::string identifier(const std::string& name) {
  bool ok = !name.empty();
  for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (!ok) throw store::Error(store::Error::Kind::statement, "not a column name: " + name);
  return name;
}

json cell_json(const store::Value& v) {
  if (v.is_null()) return nullptr;
  if (v.is_int()) return v.as_int();
  if (v.is_real()) return v.as_real();
  return v.as_text();
}

store::Value cell_value(const json& j) {
  if (j.is_null()) return store::null;
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number()) return j.get<double>();
  return j.get<std::string>();
}

// A cell that names a row as an integer (PostgreSQL hands back text).
std::optional<std::int64_t> id_in(const json& j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_string()) try {
      return std::stoll(j.get<std::string>());
    } catch (const std::exception&) {
    }
  return std::nullopt;
}

json row_json(const store::Row& row) {
  json out = json::object();
  for (std::size_t i = 0; i < row.size(); ++i) out[row.name_at(i)] = cell_json(row[i]);
  return out;
}

// What one delete takes: every row in the order it comes back, the links
// that stay and lose the deleted row.
struct Gathered {
  json rows = json::array();                        // [{"table": t, "row": {column: value}}]
  std::vector<json> stays;                          // {"table", "id", "column", "value"}
  std::vector<std::pair<std::string, json>> notes;  // attached notes, decided at the end
  std::set<std::pair<std::string, std::int64_t>> going;
  Gone gone;

  void add(const std::string& table, json row, bool counted) {
    if (auto id = id_in(row.value("id", json()))) going.insert({table, *id});
    if (counted) ++gone.counts[table];
    rows.push_back({{"table", table}, {"row", std::move(row)}});
  }
  bool goes(const std::string& table, const json& id) const {
    auto n = id_in(id);
    return n && going.count({table, *n}) != 0;
  }
};

void gather(store::Conn& conn, const std::string& table, std::int64_t id, Gathered& g) {
  for (const Link& l : links_to(table)) {
    const std::string child = l.table;
    auto found = conn.query("SELECT * FROM " + child + " WHERE " + l.column + " = ?" +
                                (l.also != nullptr ? std::string(" AND ") + l.also : ""),
                            {id});
    for (const store::Row& row : found) {
      json j = row_json(row);
      // Reached twice (an application's reminder made for its interview).
      if (g.goes(child, j.value("id", json()))) continue;
      switch (l.goes) {
        case Goes::with_it: {
          auto child_id = id_in(j.value("id", json()));
          // A reminder peto made for the record is one of its parts, not a
          // record of the person's: it goes and comes back without asking.
          g.add(child, std::move(j), l.also == nullptr);
          if (child_id) gather(conn, child, *child_id, g);
          break;
        }
        case Goes::when_alone:
          g.notes.emplace_back(child, std::move(j));
          break;
        case Goes::stays:
          g.stays.push_back(
              {{"table", child}, {"id", j["id"]}, {"column", l.column}, {"value", id}});
          break;
      }
    }
  }
  // Notes and links are decided once everything that goes is known: a note
  // on a company and one of its listings goes with the company.
}

void settle(Gathered& g) {
  std::set<std::int64_t> seen;
  for (auto& [table, note] : g.notes) {
    auto id = id_in(note["id"]);
    if (!id || !seen.insert(*id).second) continue;
    bool alone = true;
    for (const Ref& ref : refs_of(table))
      if (!note[ref.column].is_null() && !g.goes(ref.parent, note[ref.column])) alone = false;
    if (alone) {
      g.add(table, note, true);
      continue;
    }
    for (const Ref& ref : refs_of(table))
      if (!note[ref.column].is_null() && g.goes(ref.parent, note[ref.column]))
        g.stays.push_back({{"table", table},
                           {"id", note["id"]},
                           {"column", ref.column},
                           {"value", note[ref.column]}});
  }
  g.notes.clear();
  std::erase_if(g.stays, [&](const json& s) { return g.goes(s["table"], s["id"]); });
}

std::optional<Gathered> gather_record(store::Conn& conn, std::int64_t owner, const Kind& kind,
                                      std::int64_t id) {
  auto top =
      conn.query("SELECT * FROM " + kind.name + " WHERE id = ? AND owner_id = ?", {id, owner});
  if (top.empty()) return std::nullopt;
  Gathered g;
  g.add(kind.name, row_json(top[0]), false);
  gather(conn, kind.name, id, g);
  settle(g);
  return g;
}

Gone gone_from(const std::string& text) {
  Gone out;
  const json counts = json::parse(text);  // items() does not keep a temporary alive
  for (const auto& [table, n] : counts.items()) out.counts[table] = n.get<std::int64_t>();
  return out;
}

TrashEntry entry_of(const store::Row& r) {
  return {.id = r.int_at("id"),
          .kind = r.text("kind"),
          .record_id = r.int_at("record_id"),
          .title = r.text("title"),
          .company = r.text("company"),
          .gone = gone_from(r.text("gone")),
          .deleted_at = r.int_at("deleted_at")};
}

constexpr const char* kEntryColumns = "id, kind, record_id, title, company, gone, deleted_at";

// Thrown inside the restore's transaction to roll it back with a reason.
struct Refusal {
  RestoreRefused why;
};

}  // namespace

std::int64_t Gone::total() const {
  std::int64_t n = 0;
  for (const auto& [table, count] : counts) n += count;
  return n;
}

bool Gone::has_records() const {
  return std::any_of(counts.begin(), counts.end(),
                     [](const auto& c) { return find_kind(c.first) != nullptr; });
}

std::optional<Gone> Trash::dependents(std::int64_t owner, const Kind& kind, std::int64_t id) {
  auto conn = db_.acquire();
  return store::with_read(*conn, [&](store::Conn& c) -> std::optional<Gone> {
    auto g = gather_record(c, owner, kind, id);
    if (!g) return std::nullopt;
    return g->gone;
  });
}

std::optional<std::int64_t> Trash::remove_in(store::Conn& conn, std::int64_t owner,
                                             const Kind& kind, std::int64_t id) {
  auto g = gather_record(conn, owner, kind, id);
  if (!g) return std::nullopt;
  Record rec = *Records(db_, clock_).get_in(conn, owner, kind, id);
  const json& title = rec.value(kind.title_field, json());
  std::string title_text = title.is_string() ? title.get<std::string>()
                           : title.is_null() ? std::string()
                                             : title.dump();
  std::string company = rec.value("company_name", json()).is_string()
                            ? rec["company_name"].get<std::string>()
                            : std::string();
  json gone = json::object();
  for (const auto& [table, n] : g->gone.counts) gone[table] = n;
  auto made = conn.query(
      "INSERT INTO trash (owner_id, kind, record_id, title, company, gone, content, stays,"
      " deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {owner, kind.name, id, title_text, company, gone.dump(), g->rows.dump(),
       json(g->stays).dump(), clock_.now_ms()});
  // Children first, so that no row is ever left pointing at a deleted one.
  for (auto it = g->rows.rbegin(); it != g->rows.rend(); ++it) {
    const std::string table = identifier((*it)["table"].get<std::string>());
    std::string where;
    store::Params params;
    for (const std::string& column : key_of(table)) {
      where += (where.empty() ? "" : " AND ") + identifier(column) + " = ?";
      params.push_back(cell_value((*it)["row"][column]));
    }
    conn.query("DELETE FROM " + table + " WHERE " + where, params);
  }
  return made[0].int_at("id");
}

std::vector<TrashEntry> Trash::list(std::int64_t owner) {
  std::vector<TrashEntry> out;
  for (const store::Row& r :
       db_.query(std::string("SELECT ") + kEntryColumns +
                     " FROM trash WHERE owner_id = ? ORDER BY deleted_at DESC, id DESC",
                 {owner}))
    out.push_back(entry_of(r));
  return out;
}

std::optional<TrashEntry> Trash::get(std::int64_t owner, std::int64_t entry) {
  auto rows = db_.query(
      std::string("SELECT ") + kEntryColumns + " FROM trash WHERE id = ? AND owner_id = ?",
      {entry, owner});
  if (rows.empty()) return std::nullopt;
  return entry_of(rows[0]);
}

RestoreResult Trash::restore(std::int64_t owner, std::int64_t entry) {
  try {
    return db_.write([&](store::Conn& conn) -> RestoreResult {
      auto found = conn.query(
          "SELECT kind, record_id, content, stays FROM trash WHERE id = ? AND owner_id = ?",
          {entry, owner});
      if (found.empty()) return TrashNotFound{};
      const std::string kind = found[0].text("kind");
      const std::int64_t record_id = found[0].int_at("record_id");
      json rows = json::parse(found[0].text("content"));
      auto exists = [&](const std::string& table, std::int64_t id) {
        return !conn.query("SELECT 1 FROM " + identifier(table) + " WHERE id = ?", {id}).empty();
      };
      bool first = true;
      for (json& item : rows) {
        const std::string table = identifier(item["table"].get<std::string>());
        json& row = item["row"];
        bool keep = true;
        for (const Ref& ref : refs_of(table)) {
          json& cell = row[ref.column];
          auto parent = id_in(cell);
          if (!parent || exists(ref.parent, *parent)) continue;
          if (!ref.required) {
            cell = nullptr;  // what it mentioned is gone for good: it stays, unlinked
            continue;
          }
          if (first) {
            RestoreRefused why{RestoreRefused::Why::parent_gone, ref.parent, std::nullopt};
            auto held =
                conn.query("SELECT id FROM trash WHERE owner_id = ? AND kind = ? AND record_id = ?",
                           {owner, ref.parent, *parent});
            if (!held.empty()) why.parent_entry = held[0].int_at("id");
            throw Refusal{why};
          }
          keep = false;  // a tag link whose tag was deleted since
          break;
        }
        first = false;
        if (!keep) continue;
        std::string names;
        std::string marks;
        store::Params params;
        for (const auto& [column, value] : row.items()) {
          names += (names.empty() ? "" : ", ") + identifier(column);
          marks += marks.empty() ? "?" : ", ?";
          params.push_back(cell_value(value));
        }
        try {
          conn.query("INSERT INTO " + table + " (" + names + ") VALUES (" + marks + ")", params);
        } catch (const store::Error& e) {
          if (e.kind() != store::Error::Kind::constraint) throw;
          throw Refusal{{RestoreRefused::Why::name_taken, "", std::nullopt}};
        }
      }
      for (const json& s : json::parse(found[0].text("stays"))) {
        const std::string table = identifier(s["table"].get<std::string>());
        const std::string column = identifier(s["column"].get<std::string>());
        conn.query(
            "UPDATE " + table + " SET " + column + " = ? WHERE id = ? AND " + column + " IS NULL",
            {cell_value(s["value"]), cell_value(s["id"])});
      }
      conn.query("DELETE FROM trash WHERE id = ?", {entry});
      return Restored{kind, record_id};
    });
  } catch (const Refusal& r) {
    return r.why;
  }
}

bool Trash::forget(std::int64_t owner, std::int64_t entry) {
  return db_.query("DELETE FROM trash WHERE id = ? AND owner_id = ?", {entry, owner}).affected == 1;
}

std::int64_t Trash::empty_older_than(std::chrono::milliseconds keep) {
  return db_.query("DELETE FROM trash WHERE deleted_at < ?", {clock_.now_ms() - keep.count()})
      .affected;
}

std::vector<std::string> Trash::links() {
  std::vector<std::string> out;
  for (const Kind& k : kinds())
    for (const Link& l : links_to(k.name))
      out.push_back(std::string(l.table) + "." + l.column + " -> " + k.name);
  return out;
}

std::vector<store::Migration> Trash::migrations() {
  auto table = [](const std::string& id_column) {
    return "CREATE TABLE trash (id " + id_column +
           ", owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " kind TEXT NOT NULL, record_id BIGINT NOT NULL, title TEXT NOT NULL,"
           " company TEXT NOT NULL DEFAULT '',"
           // Rows per table that went with it, as JSON: {"applications": 1, …}.
           " gone TEXT NOT NULL,"
           // Every row, column by column, in the order it comes back.
           " content TEXT NOT NULL,"
           // The links to put back in rows that stayed.
           " stays TEXT NOT NULL,"
           " deleted_at BIGINT NOT NULL);"
           "CREATE INDEX trash_owner ON trash (owner_id, deleted_at);"
           "CREATE INDEX trash_deleted ON trash (deleted_at);";
  };
  return {{15, "trash", table("INTEGER PRIMARY KEY AUTOINCREMENT"),
           table("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

}  // namespace peto::domain
