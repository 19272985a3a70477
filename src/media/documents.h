// Documents: the files a person keeps in peto (CV variants, letters, a
// portfolio), attached to them, to an application or to a listing.
//
//   media::Documents docs(db, clock, config);
//   std::string part = docs.incoming_path(owner);   // under the media folder
//   ... write the upload there (web::FileSink hashes it while writing) ...
//   auto made = docs.create(owner, {.title = "CV (en)", .kind = "cv"},
//                           {.path = part, .size = n, .sha256 = hex});
//
// create() sniffs the type from the bytes (media/sniff.h; anything not on
// the allow-list is refused), moves the file to its place
// (documents/<owner>/<random>.<ext> under the media folder), then inserts the
// row and plans its copies to the owner's stores in one transaction. A
// refused or failed create leaves no row and no file (the incoming file is
// removed too). Size and SHA-256 are written once; the scrub checks the file
// against them later (verified_at 0 = never checked from disk).
//
// Versions: add_version() makes a new upload with `replaces` pointing at the
// latest version of the chain and version + 1; the old versions are kept.
// remove() removes one version (its row, its copies and its file); the next
// version then replaces the one before, timeline entries that named it keep
// their words and lose the link.
//
// Everything is owner-scoped: somebody else's document reads as absent.
// Thread-safe as the Db is.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "domain/field_errors.h"
#include "domain/records.h"
#include "media/uploads.h"
#include "store/db.h"

namespace peto::media {

// The columns check_upload reads by name.
inline constexpr const char* kCheckColumns = "id, file, size, sha256";
// Checks one upload (a row of kCheckColumns) against its file and records
// verified_at (`now`, or the database's clock when null) and damage; fills a
// size never recorded. Never alters the file. The scrub and `peto
// verify-media` share it.
Damage check_upload(store::Db& db, const std::string& media_dir, const store::Row& row,
                    const store::Value& now);
// Rows of kCheckColumns for check_upload. The scrub's slice: uploads with a
// file last checked more than `age_ms` before `now` (the database's clock
// when null), never checked first, at most `limit`.
store::Rows uploads_due_for_check(store::Db& db, const store::Value& now, std::int64_t age_ms,
                                  std::int64_t limit);
// `peto verify-media`'s pages: uploads with a file after id `after`, by id.
store::Rows uploads_after(store::Db& db, std::int64_t after, std::int64_t limit);
std::int64_t count_uploads_with_files(store::Db& db);

// The kinds a document may have, in the order forms show them.
const std::vector<std::string>& document_kinds();

struct Document {
  std::int64_t id = 0;
  std::int64_t owner_id = 0;
  std::string title;
  std::string kind;
  std::string filename;  // as uploaded, for the download's name
  std::string content_type;
  std::string language;
  std::string notes;
  std::string file;  // relative to the media folder
  std::int64_t size = 0;
  std::string sha256;
  Millis verified_at = 0;  // 0 = never checked
  std::string damage;      // "", "missing", "changed"
  int version = 1;
  std::optional<std::int64_t> replaces;
  std::string subject_kind;  // "" (the person), "application", "listing"
  std::optional<std::int64_t> subject_id;
  // For a document peto typeset: "cvs:<id>" or "letters:<id>"; "" for an upload.
  std::string made_from;
  Millis created_at = 0;
  Millis updated_at = 0;
};

struct DocumentInput {
  std::string title = "";  // blank: the file's name
  std::string kind = "";   // blank: "other" (a new version: the previous one's)
  std::string language = "";
  std::string notes = "";
  std::string filename = "";
  std::string subject_kind = "";  // "", "application" or "listing"
  std::optional<std::int64_t> subject_id = std::nullopt;
  // A document peto typeset: the words it holds as plain text (for the
  // difference between two sent copies) and what it was made from.
  std::string source_text = "";
  std::string made_from = "";
};

// A finished file written at incoming_path(), with what was counted while
// writing it.
struct Received {
  std::string path = "";
  std::int64_t size = 0;
  std::string sha256 = "";  // hex
};

using Made = std::variant<Document, domain::FieldErrors, domain::NotFound>;

class Documents {
 public:
  Documents(store::Db& db, const Clock& clock, const Config& config);

  // A new, unused path for an upload of `owner`'s, under the media folder.
  std::string incoming_path(std::int64_t owner) const;
  // The largest file accepted (PETO_UPLOAD_MAX_MB).
  std::int64_t max_bytes() const;
  // The absolute path of a document's file.
  // Where the document's file is; "" when its stored name leads out of the
  // media folder (core/stored_path.h).
  std::string path_of(const Document& d) const;

  // FieldErrors (catalogue keys): file (empty, too large, a refused type),
  // title, kind, language, notes, subject. NotFound: none here. A document
  // peto typeset (`made_from` and a subject given) is the next version of
  // the newest one made from the same record for the same subject, found
  // and numbered in the transaction that inserts it.
  Made create(std::int64_t owner, const DocumentInput& in, const Received& file);
  // The same from a stream (imports, the demo, tests).
  Made create_from(std::int64_t owner, const DocumentInput& in, std::istream& bytes);
  // A new version of `of` (any version of the chain). Blank fields of `in`
  // take the previous version's; the subject is always the chain's.
  // NotFound for somebody else's.
  Made add_version(std::int64_t owner, std::int64_t of, DocumentInput in, const Received& file);

  std::optional<Document> get(std::int64_t owner, std::int64_t id);
  // Newest first. `subject_kind` "" with no id: everything of the person.
  std::vector<Document> list(std::int64_t owner);
  std::vector<Document> list_for(std::int64_t owner, const std::string& subject_kind,
                                 std::int64_t subject_id);
  // The chain `id` belongs to, newest version first; empty for another's.
  std::vector<Document> versions(std::int64_t owner, std::int64_t id);
  // The plain text a typeset document was made from ("" for an upload);
  // nullopt for somebody else's.
  std::optional<std::string> source_text(std::int64_t owner, std::int64_t id);
  // Every document made from `source` ("cvs:3"), newest first.
  std::vector<Document> made_from(std::int64_t owner, const std::string& source);
  // Removes one version; false for somebody else's or a missing one.
  bool remove(std::int64_t owner, std::int64_t id);

  // "Which version did I send": a document_sent entry on the application's
  // timeline naming the upload, its title and version. Returns the event id.
  std::variant<std::int64_t, domain::FieldErrors, domain::NotFound> record_sent(
      std::int64_t owner, std::int64_t application_id, std::int64_t upload_id,
      const std::string& note = "");

 private:
  Made insert(std::int64_t owner, const DocumentInput& given, const Received& file,
              std::optional<std::int64_t> replaces, int version);

  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
};

}  // namespace peto::media
