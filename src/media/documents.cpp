#include "media/documents.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <istream>

#include "core/log.h"
#include "core/stored_path.h"
#include "core/token.h"
#include "domain/applications.h"
#include "media/copies.h"
#include "media/sniff.h"
#include "media/uploads.h"

namespace peto::media {

namespace fs = std::filesystem;

namespace {

constexpr const char* kColumns =
    "id, owner_id, title, kind, filename, content_type, language, notes, file, size, sha256,"
    " verified_at, damage, version, replaces, subject_kind, subject_id, made_from, created_at,"
    " updated_at";

Document from_row(const store::Row& r) {
  Document d;
  d.id = r.int_at("id");
  d.owner_id = r.opt_int("owner_id").value_or(0);
  d.title = r.text("title");
  d.kind = r.text("kind");
  d.filename = r.text("filename");
  d.content_type = r.text("content_type");
  d.language = r.text("language");
  d.notes = r.text("notes");
  d.file = r.text("file");
  d.size = r.opt_int("size").value_or(0);
  d.sha256 = r.opt_text("sha256").value_or("");
  d.verified_at = r.int_at("verified_at");
  d.damage = r.text("damage");
  d.version = static_cast<int>(r.int_at("version"));
  d.replaces = r.opt_int("replaces");
  d.subject_kind = r.text("subject_kind");
  d.subject_id = r.opt_int("subject_id");
  d.made_from = r.text("made_from");
  d.created_at = r.int_at("created_at");
  d.updated_at = r.int_at("updated_at");
  return d;
}

bool language_ok(const std::string& l) {
  if (l.size() > 35) return false;
  return std::all_of(l.begin(), l.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

std::string stem_of(const std::string& filename) {
  auto dot = filename.rfind('.');
  return dot == std::string::npos || dot == 0 ? filename : filename.substr(0, dot);
}

void remove_quietly(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace

store::Rows uploads_due_for_check(store::Db& db, const store::Value& now, std::int64_t age_ms,
                                  std::int64_t limit) {
  return db.query("SELECT " + std::string(kCheckColumns) +
                      " FROM uploads WHERE verified_at <= COALESCE(?, now_ms()) - ? AND file <> ''"
                      " ORDER BY verified_at, id LIMIT ?",
                  {now, age_ms, limit});
}

store::Rows uploads_after(store::Db& db, std::int64_t after, std::int64_t limit) {
  return db.query("SELECT " + std::string(kCheckColumns) +
                      " FROM uploads WHERE file <> '' AND id > ? ORDER BY id LIMIT ?",
                  {after, limit});
}

std::int64_t count_uploads_with_files(store::Db& db) {
  return db.query("SELECT COUNT(*) AS n FROM uploads WHERE file <> ''")[0].int_at("n");
}

Damage check_upload(store::Db& db, const std::string& media_dir, const store::Row& row,
                    const store::Value& now) {
  FileFacts facts;
  auto damage = check_file(stored_path(media_dir, row.text("file")), row.opt_int("size"),
                           row.opt_text("sha256"), &facts);
  std::optional<std::int64_t> fill_size;
  if (damage == Damage::none && row.is_null("size")) fill_size = facts.size;
  db.query(
      "UPDATE uploads SET damage = ?, verified_at = COALESCE(?, now_ms()),"
      " size = COALESCE(size, ?) WHERE id = ?",
      {damage_name(damage), now, fill_size, row.int_at("id")});
  return damage;
}

const std::vector<std::string>& document_kinds() {
  static const std::vector<std::string> kinds = {
      "cv",     "portfolio",        "cover_letter", "motivation_letter",
      "report", "reference_letter", "letter",       "other"};
  return kinds;
}

Documents::Documents(store::Db& db, const Clock& clock, const Config& config)
    : db_(db), clock_(clock), config_(config) {}

std::string Documents::incoming_path(std::int64_t owner) const {
  return config_.media_dir() + "/documents/" + std::to_string(owner) + "/" + random_token(12) +
         ".part";
}

std::int64_t Documents::max_bytes() const {
  return static_cast<std::int64_t>(config_.upload_max_mb) << 20;
}

std::string Documents::path_of(const Document& d) const {
  return stored_path(config_.media_dir(), d.file);
}

Made Documents::create(std::int64_t owner, const DocumentInput& in, const Received& file) {
  return insert(owner, in, file, std::nullopt, 1);
}

Made Documents::create_from(std::int64_t owner, const DocumentInput& in, std::istream& bytes) {
  Received file;
  file.path = incoming_path(owner);
  fs::create_directories(fs::path(file.path).parent_path());
  {
    std::ofstream out(file.path, std::ios::binary);
    char buf[64 * 1024];
    while (bytes) {
      bytes.read(buf, sizeof buf);
      if (bytes.gcount() > 0) out.write(buf, bytes.gcount());
    }
    if (!out) {
      remove_quietly(file.path);
      throw std::runtime_error("cannot write " + file.path);
    }
  }
  auto facts = read_facts(file.path);
  if (!facts) {
    remove_quietly(file.path);
    throw std::runtime_error("cannot read " + file.path);
  }
  file.size = facts->size;
  file.sha256 = facts->sha256;
  return insert(owner, in, file, std::nullopt, 1);
}

Made Documents::add_version(std::int64_t owner, std::int64_t of, DocumentInput in,
                            const Received& file) {
  auto chain = versions(owner, of);
  if (chain.empty()) {
    remove_quietly(file.path);
    return domain::NotFound{};
  }
  const Document& latest = chain.front();
  if (in.title.empty()) in.title = latest.title;
  if (in.kind.empty()) in.kind = latest.kind;
  if (in.language.empty()) in.language = latest.language;
  in.subject_kind = latest.subject_kind;
  in.subject_id = latest.subject_id;
  return insert(owner, in, file, latest.id, latest.version + 1);
}

namespace {

// A received file, removed when this goes out of scope unless `path` was
// cleared first.
struct IncomingFile {
  std::string path;
  ~IncomingFile() {
    if (!path.empty()) remove_quietly(path);
  }
};

// Once `committing` is set, an exception clears `path` so that IncomingFile keeps
// the file (see Documents::insert).
struct KeepIfCommitting {
  const bool& committing;
  std::string& path;
  int unwinding = std::uncaught_exceptions();
  ~KeepIfCommitting() {
    if (committing && std::uncaught_exceptions() > unwinding) {
      log::warn("documents", "the outcome of a commit is unknown; the file is kept",
                {{"file", path}});
      path.clear();
    }
  }
};

// The type of the received file, sniffed only when its size is allowed;
// what is wrong with it goes into `errors`.
Sniffed check_received(const Received& file, std::int64_t max_bytes, domain::FieldErrors& errors) {
  Sniffed type;
  if (file.size <= 0) {
    errors.add("file", "documents_error_empty");
  } else if (file.size > max_bytes) {
    errors.add("file", "documents_error_too_large");
  } else {
    type = sniff_file(file.path);
    if (!type.allowed) errors.add("file", "documents_error_type");
  }
  return type;
}

// Checks the document's details into `errors`, shortening a long file name
// and dropping a subject id without a subject kind.
void check_details(DocumentInput& in, domain::FieldErrors& errors) {
  if (in.title.empty()) errors.add("title", "error_required");
  if (in.title.size() > 200) errors.too_long("title", 200);
  if (std::find(document_kinds().begin(), document_kinds().end(), in.kind) ==
      document_kinds().end())
    errors.add("kind", "error_choice");
  if (!language_ok(in.language)) errors.add("language", "documents_error_language");
  if (in.notes.size() > 20000) errors.too_long("notes", 20000);
  if (in.filename.size() > 255) in.filename = in.filename.substr(in.filename.size() - 255);
  if (!in.subject_kind.empty() && in.subject_kind != "application" && in.subject_kind != "listing")
    errors.add("subject", "error_choice");
  if (in.subject_kind.empty()) in.subject_id.reset();
  if (!in.subject_kind.empty() && !in.subject_id) errors.add("subject", "error_required");
}

std::string subject_table(const DocumentInput& in) {
  return in.subject_kind == "application" ? "applications" : "listings";
}

// Whether the application or listing the document is about belongs to `owner`.
bool owns_subject(store::Conn& conn, std::int64_t owner, const DocumentInput& in) {
  const std::string table = subject_table(in);
  return !conn.query("SELECT 1 FROM " + table + " WHERE id = ? AND owner_id = ?",
                     {*in.subject_id, owner})
              .empty();
}

// Writes the uploads row of a document whose file is at `rel` in the media folder.
Document insert_row(store::Conn& conn, std::int64_t owner, const DocumentInput& in,
                    const std::string& rel, const Received& file, const Sniffed& type, Millis now,
                    int version, std::optional<std::int64_t> replaces) {
  auto rows = conn.query(
      "INSERT INTO uploads (file, size, sha256, verified_at, damage, created_at, owner_id, title,"
      " kind, filename, content_type, language, notes, version, replaces, subject_kind,"
      " subject_id, updated_at, source_text, made_from)"
      " VALUES (?, ?, ?, 0, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING " +
          std::string(kColumns),
      {rel, file.size, file.sha256, now, owner, in.title, in.kind, in.filename, type.content_type,
       in.language, in.notes, version, replaces, in.subject_kind, in.subject_id, now,
       in.source_text, in.made_from});
  return from_row(rows[0]);
}

}  // namespace

Made Documents::insert(std::int64_t owner, const DocumentInput& given, const Received& file,
                       std::optional<std::int64_t> replaces, int version) {
  // The incoming file is removed on every way out but success.
  IncomingFile incoming{file.path};

  DocumentInput in = given;
  if (in.title.empty()) in.title = stem_of(in.filename);
  if (in.kind.empty()) in.kind = "other";
  domain::FieldErrors errors;
  Sniffed type = check_received(file, max_bytes(), errors);
  check_details(in, errors);
  if (!errors.empty()) {
    if (errors.has("file"))
      log::info("documents", "upload refused",
                {{"user", owner}, {"size", file.size}, {"detected", type.detected}});
    return errors;
  }

  // Its place: the same folder, a name of its own with the sniffed extension.
  const std::string rel =
      "documents/" + std::to_string(owner) + "/" + random_token(12) + "." + type.extension;
  const std::string final_path = config_.media_dir() + "/" + rel;
  fs::create_directories(fs::path(final_path).parent_path());
  fs::rename(file.path, final_path);  // same folder: atomic
  incoming.path = final_path;

  const Millis now = clock_.now_ms();
  // Set once the row is written and only COMMIT is left: an exception after
  // it may come from a commit that went through (a connection lost while
  // PostgreSQL answered), so the file then stays for the orphan sweep, which
  // removes it after its grace when no row names it.
  bool committing = false;
  KeepIfCommitting keep{committing, incoming.path};
  auto made = db_.write([&](store::Conn& conn) -> Made {
    if (in.subject_id && !owns_subject(conn, owner, in)) {
      domain::FieldErrors e;
      e.add("subject", "documents_error_subject");
      return e;
    }
    if (!in.made_from.empty() && in.subject_id) {
      // Copies made from one CV or letter for one subject are one chain,
      // numbered here with the subject's row locked (SQLite's write
      // transaction holds the whole database): two made at once never
      // share a version.
      if (conn.dialect() == store::Dialect::postgres)
        conn.query("SELECT id FROM " + subject_table(in) + " WHERE id = ? FOR UPDATE",
                   {*in.subject_id});
      auto latest = conn.query(
          "SELECT id, version FROM uploads WHERE owner_id = ? AND made_from = ?"
          " AND subject_kind = ? AND subject_id = ? ORDER BY version DESC, id DESC LIMIT 1",
          {owner, in.made_from, in.subject_kind, *in.subject_id});
      if (!latest.empty()) {
        version = static_cast<int>(latest[0].int_at("version")) + 1;
        replaces = latest[0].int_at("id");
      }
    }
    Document d = insert_row(conn, owner, in, rel, file, type, now, version, replaces);
    plan_copies_in(conn, owner, d.id, now);
    committing = true;
    return d;
  });
  if (std::holds_alternative<Document>(made)) {
    incoming.path.clear();  // the row names it now
    log::info("documents", "document stored",
              {{"user", owner},
               {"upload", std::get<Document>(made).id},
               {"version", version},
               {"size", file.size}});
  }
  return made;
}

std::optional<Document> Documents::get(std::int64_t owner, std::int64_t id) {
  auto rows =
      db_.query("SELECT " + std::string(kColumns) + " FROM uploads WHERE id = ? AND owner_id = ?",
                {id, owner});
  if (rows.empty()) return std::nullopt;
  return from_row(rows[0]);
}

std::optional<std::string> Documents::source_text(std::int64_t owner, std::int64_t id) {
  auto rows =
      db_.query("SELECT source_text FROM uploads WHERE id = ? AND owner_id = ?", {id, owner});
  if (rows.empty()) return std::nullopt;
  return rows[0].text("source_text");
}

std::vector<Document> Documents::made_from(std::int64_t owner, const std::string& source) {
  std::vector<Document> out;
  for (const auto& r : db_.query("SELECT " + std::string(kColumns) +
                                     " FROM uploads WHERE owner_id = ? AND made_from = ?"
                                     " ORDER BY created_at DESC, id DESC",
                                 {owner, source}))
    out.push_back(from_row(r));
  return out;
}

std::vector<Document> Documents::list(std::int64_t owner) {
  std::vector<Document> out;
  for (const auto& r :
       db_.query("SELECT " + std::string(kColumns) +
                     " FROM uploads WHERE owner_id = ? ORDER BY created_at DESC, id DESC",
                 {owner}))
    out.push_back(from_row(r));
  return out;
}

std::vector<Document> Documents::list_for(std::int64_t owner, const std::string& subject_kind,
                                          std::int64_t subject_id) {
  std::vector<Document> out;
  for (const auto& r : db_.query("SELECT " + std::string(kColumns) +
                                     " FROM uploads WHERE owner_id = ? AND subject_kind = ?"
                                     " AND subject_id = ? ORDER BY created_at DESC, id DESC",
                                 {owner, subject_kind, subject_id}))
    out.push_back(from_row(r));
  return out;
}

std::vector<Document> Documents::versions(std::int64_t owner, std::int64_t id) {
  auto start = get(owner, id);
  if (!start) return {};
  // Back to the first version, then forward to the last; chains are short.
  std::vector<Document> older;
  Document at = *start;
  while (at.replaces) {
    auto prev = get(owner, *at.replaces);
    if (!prev || older.size() > 1000) break;
    older.push_back(*prev);
    at = *prev;
  }
  std::vector<Document> newer;
  at = *start;
  while (newer.size() <= 1000) {
    auto rows = db_.query("SELECT " + std::string(kColumns) +
                              " FROM uploads WHERE replaces = ? AND owner_id = ? ORDER BY id",
                          {at.id, owner});
    if (rows.empty()) break;
    at = from_row(rows[0]);
    newer.push_back(at);
  }
  std::vector<Document> out(newer.rbegin(), newer.rend());
  out.push_back(*start);
  out.insert(out.end(), older.begin(), older.end());
  return out;
}

bool Documents::remove(std::int64_t owner, std::int64_t id) {
  auto gone = db_.write([&](store::Conn& conn) -> std::optional<std::string> {
    auto rows =
        conn.query("SELECT file, replaces FROM uploads WHERE id = ? AND owner_id = ?", {id, owner});
    if (rows.empty()) return std::nullopt;
    // The next version now replaces the one before this one.
    conn.query("UPDATE uploads SET replaces = ? WHERE replaces = ? AND owner_id = ?",
               {rows[0].opt_int("replaces"), id, owner});
    conn.query("DELETE FROM uploads WHERE id = ? AND owner_id = ?", {id, owner});
    return rows[0].text("file");
  });
  if (!gone) return false;
  // After the commit: a file that cannot be removed now is left to the sweep.
  if (std::string path = stored_path(config_.media_dir(), *gone); !path.empty())
    remove_quietly(path);
  log::info("documents", "document removed", {{"user", owner}, {"upload", id}});
  return true;
}

std::variant<std::int64_t, domain::FieldErrors, domain::NotFound> Documents::record_sent(
    std::int64_t owner, std::int64_t application_id, std::int64_t upload_id,
    const std::string& note) {
  if (note.size() > 20000) {
    domain::FieldErrors e;
    e.add("note", "error_too_long");
    return e;
  }
  const Millis now = clock_.now_ms();
  return db_.write([&](store::Conn& conn)
                       -> std::variant<std::int64_t, domain::FieldErrors, domain::NotFound> {
    if (conn.query("SELECT 1 FROM applications WHERE id = ? AND owner_id = ?",
                   {application_id, owner})
            .empty())
      return domain::NotFound{};
    auto doc = conn.query("SELECT title, version FROM uploads WHERE id = ? AND owner_id = ?",
                          {upload_id, owner});
    if (doc.empty()) {
      domain::FieldErrors e;
      e.add("upload", "documents_error_choose");
      return e;
    }
    std::string summary = "Sent: " + doc[0].text("title") + " (version " +
                          std::to_string(doc[0].int_at("version")) + ")";
    if (summary.size() > 250) summary = summary.substr(0, 247) + "...";
    domain::add_event(conn, application_id, now, "document_sent", summary, note);
    auto ev = conn.query(
        "SELECT MAX(id) AS event_id FROM application_events WHERE application_id = ? AND kind = "
        "'document_sent'",
        {application_id});
    std::int64_t event_id = ev[0].int_at("event_id");
    conn.query("UPDATE application_events SET upload_id = ? WHERE id = ?", {upload_id, event_id});
    return event_id;
  });
}

}  // namespace peto::media
