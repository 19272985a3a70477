// import_archive (media/exports.h): reads a peto export back, refusing
// anything it does not understand before it writes a thing.
#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/i18n.h"
#include "core/json_depth.h"
#include "core/timezone.h"
#include "core/token.h"
#include "core/utf8.h"
#include "domain/captures.h"
#include "domain/kinds.h"
#include "domain/records.h"
#include "media/copies.h"
#include "media/documents.h"
#include "media/export_format.h"
#include "media/exports.h"
#include "media/sniff.h"

namespace peto::media {

namespace fs = std::filesystem;
using nlohmann::json;

ImportLimits ImportLimits::from(const Config& config) {
  ImportLimits l;
  l.max_file_bytes = static_cast<std::int64_t>(config.upload_max_mb) << 20;
  return l;
}

namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr int kMaxJsonDepth = 32;

// Thrown while checking or importing: the archive is refused with this line
// (the transaction, if one is open, rolls back).
struct Refusal {
  std::string message;
};
[[noreturn]] void refuse(std::string message) { throw Refusal{std::move(message)}; }

// Thrown inside the transaction when the account turned out not to be empty.
struct NotEmpty {};

class Zip {
 public:
  explicit Zip(const std::string& path) {
    int err = 0;
    za_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
  }
  ~Zip() {
    if (za_ != nullptr) zip_discard(za_);
  }
  Zip(const Zip&) = delete;
  Zip& operator=(const Zip&) = delete;
  zip_t* get() const { return za_; }

 private:
  zip_t* za_ = nullptr;
};

// "25 MB", or "20 bytes" below a megabyte.
std::string amount(std::int64_t bytes) {
  return bytes >= kMiB ? std::to_string(bytes / kMiB) + " MB" : std::to_string(bytes) + " bytes";
}

struct Entry {
  zip_uint64_t index = 0;
  std::string name;
  std::int64_t size = 0;         // as the header says
  std::int64_t packed_size = 0;  // as the header says
};

// Why `name` may not be unpacked anywhere, or "".
std::string unsafe_name(const std::string& name) {
  if (name.empty()) return "an entry has no name";
  if (name.front() == '/') return "the entry \"" + name + "\" has an absolute path";
  if (name.find('\\') != std::string::npos)
    return "the entry \"" + name + "\" has a backslash in its name";
  if (name.find(':') != std::string::npos)
    return "the entry \"" + name + "\" has a colon in its name";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "an entry's name has control characters";
  std::size_t start = 0;
  while (start <= name.size()) {
    auto end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    std::string part = name.substr(start, end - start);
    if (part == ".." || part == ".") return "the entry \"" + name + "\" leaves its folder";
    if (part.empty() && end != name.size()) return "the entry \"" + name + "\" has an empty part";
    start = end + 1;
  }
  return {};
}

// Every entry, checked by name, type and declared size.
std::map<std::string, Entry> list_entries(zip_t* za, const ImportLimits& limits) {
  zip_int64_t n = zip_get_num_entries(za, 0);
  if (n < 0 || n > limits.max_entries) refuse("the archive has too many entries");
  std::map<std::string, Entry> entries;
  std::int64_t declared_total = 0;
  for (zip_int64_t i = 0; i < n; ++i) {
    auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, index, ZIP_FL_ENC_RAW, &st) != 0 || st.name == nullptr)
      refuse("the archive's entry " + std::to_string(i) + " cannot be read");
    Entry e;
    e.index = index;
    e.name = st.name;
    if (auto why = unsafe_name(e.name); !why.empty()) refuse(why);
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(za, index, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      auto mode = static_cast<mode_t>(attributes >> 16);
      if (S_ISLNK(mode)) refuse("the entry \"" + e.name + "\" is a symbolic link");
      if ((mode & S_IFMT) != 0 && !S_ISREG(mode) && !S_ISDIR(mode))
        refuse("the entry \"" + e.name + "\" is not a plain file");
    }
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
      refuse("the entry \"" + e.name + "\" is encrypted");
    e.size = (st.valid & ZIP_STAT_SIZE) ? static_cast<std::int64_t>(st.size) : 0;
    e.packed_size = (st.valid & ZIP_STAT_COMP_SIZE) ? static_cast<std::int64_t>(st.comp_size) : 0;
    if (e.size > kMiB && e.size > limits.max_ratio * std::max<std::int64_t>(e.packed_size, 1))
      refuse("the entry \"" + e.name + "\" unpacks to more than " +
             std::to_string(limits.max_ratio) + " times its size (a zip bomb?)");
    declared_total += e.size;
    if (declared_total > limits.max_total_bytes)
      refuse("the archive unpacks to more than " + amount(limits.max_total_bytes));
    if (e.name.back() == '/') {
      if (e.name != "media/") refuse("the archive has an unexpected folder \"" + e.name + "\"");
      continue;
    }
    if (!entries.emplace(e.name, e).second) refuse("the entry \"" + e.name + "\" appears twice");
  }
  return entries;
}

// Reads one entry in chunks, never past `limit` bytes, the header's size,
// the ratio or the archive's total; hands each chunk to `sink`.
void read_entry(zip_t* za, const Entry& e, std::int64_t limit, const ImportLimits& limits,
                std::int64_t& total, const std::function<void(const char*, std::size_t)>& sink) {
  if (e.size > limit) refuse("the entry \"" + e.name + "\" is larger than " + amount(limit));
  zip_file_t* f = zip_fopen_index(za, e.index, 0);
  if (f == nullptr) refuse("the entry \"" + e.name + "\" cannot be opened: " + zip_strerror(za));
  std::int64_t read = 0;
  char buf[64 * 1024];
  std::string problem;
  for (;;) {
    zip_int64_t n = zip_fread(f, buf, sizeof buf);
    if (n < 0) {
      problem =
          "the entry \"" + e.name + "\" is damaged: " + zip_error_strerror(zip_file_get_error(f));
      break;
    }
    if (n == 0) break;
    read += n;
    total += n;
    if (read > limit) {
      problem = "the entry \"" + e.name + "\" is larger than " + amount(limit);
    } else if (read > e.size) {
      problem = "the entry \"" + e.name + "\" is larger than its header says";
    } else if (read > kMiB && read > limits.max_ratio * std::max<std::int64_t>(e.packed_size, 1)) {
      problem = "the entry \"" + e.name + "\" unpacks to more than " +
                std::to_string(limits.max_ratio) + " times its size (a zip bomb?)";
    } else if (total > limits.max_total_bytes) {
      problem = "the archive unpacks to more than " + amount(limits.max_total_bytes);
    }
    if (!problem.empty()) break;
    sink(buf, static_cast<std::size_t>(n));
  }
  zip_fclose(f);
  if (!problem.empty()) refuse(problem);
  if (read != e.size) refuse("the entry \"" + e.name + "\" is shorter than its header says");
}

// Counts peto.json's values (every scalar, object, array and key) without
// building anything, stopping past `max`: a small text of `[{},{},…]` would
// otherwise become a tree many times its size.
class ValueCounter final : public nlohmann::json_sax<json> {
 public:
  explicit ValueCounter(std::int64_t max) : max_(max) {}
  bool over() const { return over_; }
  bool null() override { return one(); }
  bool boolean(bool) override { return one(); }
  bool number_integer(number_integer_t) override { return one(); }
  bool number_unsigned(number_unsigned_t) override { return one(); }
  bool number_float(number_float_t, const string_t&) override { return one(); }
  bool string(string_t&) override { return one(); }
  bool binary(binary_t&) override { return one(); }
  bool start_object(std::size_t) override { return one(); }
  bool key(string_t&) override { return one(); }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return one(); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool one() {
    if (++count_ <= max_) return true;
    over_ = true;
    return false;
  }
  std::int64_t max_;
  std::int64_t count_ = 0;
  bool over_ = false;
};

// --- checking values -------------------------------------------------------

std::string where(const std::string& section, const json& o) {
  auto it = o.is_object() ? o.find("id") : o.end();
  std::string id = it != o.end() ? it->dump() : "?";
  return section + " " + id;
}

const json& field(const json& o, const std::string& name) {
  static const json null_value;
  auto it = o.find(name);
  return it == o.end() ? null_value : *it;
}

std::optional<std::int64_t> opt_int(const std::string& at, const json& o, const std::string& name) {
  const json& v = field(o, name);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number_integer()) refuse(at + ": " + name + " is not a whole number");
  return v.get<std::int64_t>();
}

std::int64_t req_int(const std::string& at, const json& o, const std::string& name) {
  auto v = opt_int(at, o, name);
  if (!v) refuse(at + ": " + name + " is missing");
  return *v;
}

std::optional<std::string> opt_text(const std::string& at, const json& o, const std::string& name,
                                    std::size_t max_chars) {
  const json& v = field(o, name);
  if (v.is_null()) return std::nullopt;
  if (!v.is_string()) refuse(at + ": " + name + " is not text");
  auto s = v.get<std::string>();
  if (utf8_length(s) > max_chars) refuse(at + ": " + name + " is too long");
  return s;
}

std::string text_or(const std::string& at, const json& o, const std::string& name,
                    std::size_t max_chars) {
  return opt_text(at, o, name, max_chars).value_or("");
}

bool one_of(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

store::Value text_value(const std::optional<std::string>& s) {
  return s ? store::Value(*s) : store::Value();
}

// --- the transaction --------------------------------------------------------

using IdMap = std::map<std::int64_t, std::int64_t>;

// A document's file: unpacked under a temporary name, then given its own
// name before the transaction (removed again if the import is refused).
struct Staged {
  std::string temp;   // absolute path
  std::string final;  // absolute path
  bool renamed = false;
};

// What the importer stores for a document's file: where it lives and the
// type its bytes say (never the JSON's word).
struct StoredFile {
  std::string relative;
  std::string content_type;
};

class Importer {
 public:
  Importer(store::Db& db, store::Conn& conn, const Clock& clock, std::int64_t owner,
           const std::map<std::int64_t, StoredFile>& files)
      : conn_(conn), clock_(clock), records_(db, clock), owner_(owner), files_(files) {}

  ImportFacts run(const json& doc);

 private:
  std::int64_t mapped(const std::string& at, const std::string& kind, const json& o,
                      const std::string& name, bool required);
  void import_profile(const json& p);
  void import_kind(const domain::Kind& k, const json& list);
  void import_documents(const json& list);
  void import_events(const json& list);
  void import_tag_links(const json& list);
  void import_captures(const json& list);
  void import_listing_events(const json& list);

  store::Conn& conn_;
  const Clock& clock_;
  domain::Records records_;
  std::int64_t owner_;
  const std::map<std::int64_t, StoredFile>& files_;  // document id -> its stored file
  std::map<std::string, IdMap> ids_;                 // section -> archive id -> new id
  ImportFacts facts_;
  // Times written last, so that nothing the import does afterwards moves them.
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>> times_;
};

std::int64_t Importer::mapped(const std::string& at, const std::string& kind, const json& o,
                              const std::string& name, bool required) {
  auto v = opt_int(at, o, name);
  if (!v) {
    if (required) refuse(at + ": " + name + " is missing");
    return 0;
  }
  auto& m = ids_[kind];
  auto it = m.find(*v);
  if (it == m.end()) refuse(at + ": " + name + " names no record of the archive");
  return it->second;
}

void Importer::import_profile(const json& p) {
  if (p.is_null()) return;
  if (!p.is_object()) refuse("profile is not an object");
  std::string at = "profile";
  std::string language = text_or(at, p, "language", 12);
  std::string zone = text_or(at, p, "time_zone", 64);
  auto quiet = opt_int(at, p, "quiet_after_days").value_or(21);
  auto closing = opt_int(at, p, "closing_notice_days").value_or(3);
  bool lang_ok = language.empty() ||
                 (language.size() >= 2 && std::all_of(language.begin(), language.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-';
                  }));
  if (!lang_ok) refuse("profile: language is not a language code");
  if (zone.empty()) zone = "UTC";
  if (!is_valid_time_zone(zone)) refuse("profile: time_zone is not a known time zone");
  if (quiet < 1 || quiet > 365) refuse("profile: quiet_after_days is not between 1 and 365");
  if (closing < 1 || closing > 90) refuse("profile: closing_notice_days is not between 1 and 90");
  conn_.query(
      "UPDATE users SET language = ?, time_zone = ?, quiet_after_days = ?,"
      " closing_notice_days = ?, updated_at = ? WHERE id = ?",
      {language, zone, quiet, closing, clock_.now_ms(), owner_});
}

void Importer::import_kind(const domain::Kind& k, const json& list) {
  auto& m = ids_[k.name];
  for (const json& o : list) {
    std::string at = where(k.name, o);
    std::int64_t archive_id = req_int(at, o, "id");
    if (m.count(archive_id) != 0) refuse(at + ": the id appears twice");
    // Companies are matched by name, and tags (whose names are unique in an
    // account) too; everything else is created.
    if (k.name == "companies" || k.name == "tags") {
      auto name = opt_text(at, o, "name", 200).value_or("");
      bool company = k.name == "companies";
      std::string key = company ? domain::fold_name(name) : domain::slug(name);
      if (!company && key.empty()) key = domain::fold_name(name);
      auto found = key.empty()
                       ? store::Rows()
                       : conn_.query("SELECT id FROM " + k.name + " WHERE owner_id = ? AND " +
                                         (company ? "name_key" : "slug") + " = ?",
                                     {owner_, key});
      if (!found.empty()) {
        m[archive_id] = found[0].int_at(0);
        ++(company ? facts_.companies_matched : facts_.tags_matched);
        continue;
      }
    }
    domain::Input in;
    in.from_form = false;
    for (const auto& f : k.fields) {
      if (!f.writable) continue;
      const json& v = field(o, f.name);
      if (f.type == domain::FieldType::ref && !v.is_null())
        in.values[f.name] = mapped(at, f.ref_kind, o, f.name, false);
      else
        in.values[f.name] = v;
    }
    auto made = records_.create_in(conn_, owner_, k, in);
    if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
      const auto& [name, why] = *errors->by_field.begin();
      // The words a form would show ("Enter a web address…"), in English.
      std::string words = Catalogue::shared().text("en", why);
      while (!words.empty() && words.back() == '.') words.pop_back();
      refuse(at + ": " + name + ": " + words);
    }
    std::int64_t id = std::get<domain::Record>(made)["id"].get<std::int64_t>();
    m[archive_id] = id;
    ++facts_.records;
    // What peto sets itself: the read-only fields and the scheduler's marks.
    std::string sql;
    store::Params params;
    for (const auto& f : k.fields) {
      bool exact = !f.writable || (k.name == "interviews" && f.name == "ends_at");
      if (!exact) continue;
      if (f.type == domain::FieldType::choice) {
        auto v = opt_text(at, o, f.name, 50).value_or(f.choices.front());
        if (!one_of(f.choices, v)) refuse(at + ": " + f.name + " is not one of its choices");
        params.emplace_back(v);
      } else {
        params.emplace_back(opt_int(at, o, f.name));
      }
      sql += (sql.empty() ? "" : ", ") + f.name + " = ?";
    }
    for (const auto& c : format::kind_marks(k.name)) {
      if (c.number)
        params.emplace_back(opt_int(at, o, c.name));
      else
        params.emplace_back(text_value(opt_text(at, o, c.name, 40)));
      sql += (sql.empty() ? "" : ", ") + c.name + " = ?";
    }
    if (!sql.empty()) {
      params.emplace_back(id);
      conn_.query("UPDATE " + k.name + " SET " + sql + " WHERE id = ?", params);
    }
    times_.emplace_back(k.name, id, req_int(at, o, "created_at"), req_int(at, o, "updated_at"));
  }
}

void Importer::import_documents(const json& list) {
  auto& m = ids_["documents"];
  const Millis now = clock_.now_ms();
  for (const json& o : list) {
    std::string at = where("documents", o);
    std::int64_t archive_id = req_int(at, o, "id");
    if (m.count(archive_id) != 0) refuse(at + ": the id appears twice");
    std::string kind = text_or(at, o, "kind", 40);
    if (kind.empty()) kind = "other";
    if (!one_of(document_kinds(), kind)) refuse(at + ": kind is not a document kind");
    std::string filename = text_or(at, o, "filename", 255);
    if (filename.find('/') != std::string::npos || filename.find('\\') != std::string::npos)
      refuse(at + ": filename has a path in it");
    auto version = opt_int(at, o, "version").value_or(1);
    if (version < 1 || version > 100000) refuse(at + ": version is out of range");
    std::optional<std::int64_t> replaces;
    if (!field(o, "replaces").is_null()) {
      replaces = mapped(at, "documents", o, "replaces", true);
    }
    std::string subject_kind = text_or(at, o, "subject_kind", 40);
    std::optional<std::int64_t> subject_id;
    if (!subject_kind.empty()) {
      // Named in the singular ("application"), as media/documents.h has it.
      const domain::Kind* subject = nullptr;
      for (const auto& k : domain::kinds())
        if (k.singular == subject_kind) subject = &k;
      if (subject == nullptr) refuse(at + ": subject_kind is unknown");
      subject_id = mapped(at, subject->name, o, "subject_id", true);
    }
    std::string damage = text_or(at, o, "damage", 20);
    if (damage != "" && damage != "missing" && damage != "changed")
      refuse(at + ": damage is not a known state");
    auto file = files_.find(archive_id);
    std::string stored = file == files_.end() ? "" : file->second.relative;
    if (stored.empty()) damage = "missing";
    std::string content_type = text_or(at, o, "content_type", 100);
    if (!stored.empty()) content_type = file->second.content_type;
    std::string sha = text_or(at, o, "sha256", 64);
    auto size = opt_int(at, o, "size");
    if (size && *size < 0) refuse(at + ": size is negative");
    auto row = conn_.query(
        "INSERT INTO uploads (owner_id, file, size, sha256, verified_at, damage, title, kind,"
        " filename, content_type, language, notes, version, replaces, subject_kind, subject_id,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        {owner_, stored, store::Value(size), sha.empty() ? store::Value() : store::Value(sha),
         stored.empty() ? 0 : now, damage, text_or(at, o, "title", 200), kind, filename,
         content_type, text_or(at, o, "language", 12), text_or(at, o, "notes", 20000), version,
         store::Value(replaces), subject_kind, store::Value(subject_id),
         req_int(at, o, "created_at"), req_int(at, o, "updated_at")});
    std::int64_t id = row[0].int_at(0);
    m[archive_id] = id;
    ++facts_.records;
    if (!stored.empty()) {
      ++facts_.files;
      plan_copies_in(conn_, owner_, id, now);
    }
  }
}

void Importer::import_events(const json& list) {
  static const std::vector<std::string> extra = {"document_sent"};
  std::vector<std::string> statuses = domain::statuses();
  for (const json& o : list) {
    std::string at = where("application_events", o);
    std::int64_t application = mapped(at, "applications", o, "application_id", true);
    std::string kind = text_or(at, o, "kind", 40);
    if (!one_of(domain::event_kinds(), kind) && !one_of(extra, kind))
      refuse(at + ": kind is not a timeline kind");
    std::string summary = text_or(at, o, "summary", 250);
    if (summary.find_first_not_of(" \t\r\n") == std::string::npos)
      refuse(at + ": summary is empty");
    auto from = opt_text(at, o, "from_status", 40);
    auto to = opt_text(at, o, "to_status", 40);
    if ((from && !one_of(statuses, *from)) || (to && !one_of(statuses, *to)))
      refuse(at + ": a status is not one of peto's");
    auto reason = opt_text(at, o, "end_reason", 40);
    if (reason && !one_of(domain::end_reasons(), *reason)) refuse(at + ": end_reason is unknown");
    std::optional<std::int64_t> interview, upload;
    if (!field(o, "interview_id").is_null())
      interview = mapped(at, "interviews", o, "interview_id", true);
    if (!field(o, "upload_id").is_null()) upload = mapped(at, "documents", o, "upload_id", true);
    conn_.query(
        "INSERT INTO application_events (application_id, kind, occurred_at, summary, body,"
        " from_status, to_status, end_reason, interview_id, upload_id, actor, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        {application, kind, req_int(at, o, "occurred_at"), summary,
         text_value(opt_text(at, o, "body", 20000)), text_value(from), text_value(to),
         text_value(reason), store::Value(interview), store::Value(upload),
         text_or(at, o, "actor", 200), req_int(at, o, "created_at")});
    ++facts_.records;
  }
}

void Importer::import_tag_links(const json& list) {
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (const json& o : list) {
    std::string at = "application_tags";
    if (!o.is_object()) refuse(at + ": an entry is not an object");
    auto a = mapped(at, "applications", o, "application_id", true);
    auto t = mapped(at, "tags", o, "tag_id", true);
    if (!seen.emplace(a, t).second) refuse(at + ": a tag is on an application twice");
    conn_.query("INSERT INTO application_tags (application_id, tag_id) VALUES (?, ?)", {a, t});
    ++facts_.records;
  }
}

void Importer::import_captures(const json& list) {
  static const std::vector<std::string> states = {"fetching", "pending", "accepted", "discarded",
                                                  "failed"};
  auto& m = ids_["captures"];
  for (const json& o : list) {
    std::string at = where("captures", o);
    std::int64_t archive_id = req_int(at, o, "id");
    if (m.count(archive_id) != 0) refuse(at + ": the id appears twice");
    std::string url = text_or(at, o, "url", 2000);
    std::string key = domain::url_key(url);
    if (key.empty()) refuse(at + ": url is not a web address");
    std::string origin = text_or(at, o, "origin", 10);
    if (origin != "web" && origin != "api") refuse(at + ": origin is not web or api");
    std::string status = text_or(at, o, "status", 20);
    if (!one_of(states, status)) refuse(at + ": status is unknown");
    auto error = opt_text(at, o, "error", 2000);
    // Nothing will read a page that was being fetched when it was exported.
    if (status == "fetching") {
      status = "failed";
      error = "The page was still being read when this was exported. Capture it again.";
    }
    const json& data = field(o, "data");
    if (!data.is_null() && !data.is_object()) refuse(at + ": data is not an object");
    std::optional<std::int64_t> listing, application;
    if (!field(o, "listing_id").is_null()) listing = mapped(at, "listings", o, "listing_id", true);
    if (!field(o, "application_id").is_null())
      application = mapped(at, "applications", o, "application_id", true);
    auto row = conn_.query(
        "INSERT INTO captures (owner_id, url, url_key, origin, status, parser, parser_version,"
        " data, error, listing_id, application_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        {owner_, url, key, origin, status, text_value(opt_text(at, o, "parser", 100)),
         store::Value(opt_int(at, o, "parser_version")),
         data.is_object() ? data.dump() : std::string("{}"), text_value(error),
         store::Value(listing), store::Value(application), req_int(at, o, "created_at"),
         req_int(at, o, "updated_at")});
    m[archive_id] = row[0].int_at(0);
    ++facts_.records;
  }
}

void Importer::import_listing_events(const json& list) {
  std::set<std::pair<std::int64_t, std::string>> external;
  for (const json& o : list) {
    std::string at = where("listing_events", o);
    std::int64_t listing = mapped(at, "listings", o, "listing_id", true);
    std::string kind = text_or(at, o, "kind", 40);
    if (kind.empty()) refuse(at + ": kind is missing");
    std::string summary = text_or(at, o, "summary", 250);
    if (summary.find_first_not_of(" \t\r\n") == std::string::npos)
      refuse(at + ": summary is empty");
    // A plain link: a capture the archive does not have is forgotten.
    std::optional<std::int64_t> capture;
    if (auto c = opt_int(at, o, "capture_id")) {
      auto it = ids_["captures"].find(*c);
      if (it != ids_["captures"].end()) capture = it->second;
    }
    auto ext = opt_text(at, o, "external_id", 200);
    if (ext && !external.emplace(listing, *ext).second)
      refuse(at + ": external_id appears twice on one listing");
    conn_.query(
        "INSERT INTO listing_events (listing_id, kind, occurred_at, summary, body, capture_id,"
        " actor, external_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        {listing, kind, req_int(at, o, "occurred_at"), summary,
         text_value(opt_text(at, o, "body", 20000)), store::Value(capture),
         text_or(at, o, "actor", 200), text_value(ext), req_int(at, o, "created_at")});
    ++facts_.records;
  }
}

bool account_has_records(store::Conn& conn, std::int64_t owner) {
  std::string sql = "SELECT 1 FROM uploads WHERE owner_id = ?";
  store::Params params{owner};
  for (const auto& name : format::kind_order()) {
    sql += " UNION ALL SELECT 1 FROM " + name + " WHERE owner_id = ?";
    params.emplace_back(owner);
  }
  sql += " UNION ALL SELECT 1 FROM captures WHERE owner_id = ?";
  params.emplace_back(owner);
  return conn.query("SELECT CASE WHEN EXISTS (" + sql + ") THEN 1 ELSE 0 END", params)[0].int_at(
             0) != 0;
}

ImportFacts Importer::run(const json& doc) {
  import_profile(field(doc, "profile"));
  for (const auto& name : format::kind_order()) import_kind(domain::kind(name), field(doc, name));
  // Interviews and offers made above wrote their own timeline entries; the
  // archive's timeline replaces them. Nor is anybody told of them again:
  // the announcements they queued (for connections that want such news)
  // are about records that are only being moved in.
  for (const auto& [_, id] : ids_["applications"])
    conn_.query("DELETE FROM application_events WHERE application_id = ?", {id});
  for (const char* table : {"deliveries", "inbox_notices"}) {
    for (const auto& [_, id] : ids_["interviews"])
      conn_.query(std::string("DELETE FROM ") + table + " WHERE owner_id = ? AND key LIKE ?",
                  {owner_, "interview:" + std::to_string(id) + ":%"});
    for (const auto& [_, id] : ids_["offers"])
      conn_.query(std::string("DELETE FROM ") + table + " WHERE owner_id = ? AND key = ?",
                  {owner_, "offer:" + std::to_string(id)});
  }
  import_tag_links(field(doc, "application_tags"));
  import_documents(field(doc, "documents"));
  import_events(field(doc, "application_events"));
  import_captures(field(doc, "captures"));
  import_listing_events(field(doc, "listing_events"));
  for (const auto& [table, id, created, updated] : times_)
    conn_.query("UPDATE " + table + " SET created_at = ?, updated_at = ? WHERE id = ?",
                {created, updated, id});
  return facts_;
}

// --- before the transaction ---------------------------------------------------

const std::vector<std::string>& sections() {
  static const std::vector<std::string> s = [] {
    std::vector<std::string> all = format::kind_order();
    for (const char* n :
         {"application_tags", "application_events", "captures", "listing_events", "documents"})
      all.emplace_back(n);
    return all;
  }();
  return s;
}

json read_document(zip_t* za, const std::map<std::string, Entry>& entries,
                   const ImportLimits& limits, std::int64_t& total) {
  auto it = entries.find(kExportJson);
  if (it == entries.end()) refuse("the archive has no peto.json: it is not a peto export");
  std::string text;
  read_entry(za, it->second, limits.max_json_bytes, limits, total,
             [&](const char* p, std::size_t n) { text.append(p, n); });
  if (json_nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth) refuse("peto.json nests too deeply");
  ValueCounter counter(limits.max_json_values);
  json::sax_parse(text, &counter);
  if (counter.over())
    refuse("peto.json holds more than " + std::to_string(limits.max_json_values) + " values");
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) refuse("peto.json is not valid JSON");
  if (field(doc, "format") != kExportFormat) refuse("peto.json is not a peto export");
  const json& version = field(doc, "version");
  if (!version.is_number_integer()) refuse("peto.json has no format version");
  if (version.get<std::int64_t>() != kExportVersion)
    refuse("the archive's format version " + version.dump() +
           " is not one this peto reads (it reads version " + std::to_string(kExportVersion) + ")");
  for (const auto& s : sections()) {
    if (!doc.contains(s)) doc[s] = json::array();
    if (!doc[s].is_array()) refuse("peto.json: " + s + " is not a list");
    for (const auto& o : doc[s])
      if (!o.is_object()) refuse("peto.json: " + s + " holds something that is not a record");
  }
  return doc;
}

// Which document each file entry belongs to; every entry but peto.json must
// be one document's file, and every file a document names must be there.
std::map<std::int64_t, const Entry*> match_files(const json& doc,
                                                 const std::map<std::string, Entry>& entries) {
  std::map<std::int64_t, const Entry*> files;
  std::set<std::string> named;
  for (const json& d : field(doc, "documents")) {
    // Every document is checked before any is used: an id, and a file
    // name and filename that are text when present.
    std::string at = where("documents", d);
    std::int64_t id = req_int(at, d, "id");
    text_or(at, d, "filename", 255);
    auto name = opt_text(at, d, "file", 300);
    if (!name) continue;
    auto it = entries.find(*name);
    if (it == entries.end()) refuse(at + ": its file \"" + *name + "\" is not in the archive");
    if (!named.insert(*name).second) refuse(at + ": its file is another document's too");
    if (!files.emplace(id, &it->second).second) refuse(at + ": the id appears twice");
    std::string sha = text_or(at, d, "sha256", 64);
    if (sha.size() != 64) refuse(at + ": sha256 is not a SHA-256");
  }
  for (const auto& [name, _] : entries)
    if (name != kExportJson && named.count(name) == 0)
      refuse("the entry \"" + name + "\" is not named by peto.json");
  return files;
}

// Unpacks one document's file to a temporary name, checking its size and
// SHA-256 against the JSON on the way.
void unpack(zip_t* za, const Entry& e, const json& d, const std::string& temp,
            const ImportLimits& limits, std::int64_t& total) {
  std::string at = where("documents", d);
  // Readable by peto alone, as an upload is.
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("could not write " + temp + ": " + std::strerror(errno));
  struct Closer {
    int& fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};
  Sha256 sum;
  std::int64_t size = 0;
  read_entry(za, e, limits.max_file_bytes, limits, total, [&](const char* p, std::size_t n) {
    sum.update(std::string_view(p, n));
    size += static_cast<std::int64_t>(n);
    while (n > 0) {
      ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw std::runtime_error("could not write " + temp + ": " + std::strerror(errno));
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  });
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    throw std::runtime_error("could not write " + temp + ": " + std::strerror(errno));
  if (text_or(at, d, "sha256", 64) != sum.hex_digest())
    refuse(at + ": its file's SHA-256 is not the one peto.json gives");
  if (auto want = opt_int(at, d, "size"); want && *want != size)
    refuse(at + ": its file's size is not the one peto.json gives");
}

}  // namespace

Result<ImportFacts> import_archive(store::Db& db, const Clock& clock, const std::string& media_dir,
                                   std::int64_t owner, const std::string& zip_path,
                                   const ImportLimits& limits, bool force) {
  std::vector<Staged> staged;
  const fs::path folder_path = fs::path(media_dir) / "documents" / std::to_string(owner);
  std::error_code exists_ec;
  const bool had_folder = fs::exists(folder_path, exists_ec);
  auto discard = [&] {
    std::error_code ec;
    for (const auto& s : staged) {
      fs::remove(s.temp, ec);
      if (s.renamed) fs::remove(s.final, ec);
    }
    if (!had_folder) fs::remove(folder_path, ec);  // only if empty
  };
  try {
    std::error_code ec;
    if (!fs::is_regular_file(zip_path, ec)) refuse(zip_path + " is not a file");
    Zip zip(zip_path);
    if (zip.get() == nullptr) refuse(zip_path + " is not a zip archive");
    auto entries = list_entries(zip.get(), limits);
    std::int64_t total = 0;
    json doc = read_document(zip.get(), entries, limits, total);
    auto files = match_files(doc, entries);
    if (!force) {
      auto conn = db.acquire();
      if (account_has_records(*conn, owner)) throw NotEmpty{};
    }
    // The files, unpacked under temporary names beside where they will live.
    const std::string folder = "documents/" + std::to_string(owner);
    if (!files.empty()) fs::create_directories(folder_path);
    // Each file is unpacked under a temporary name, its type read from its
    // bytes (as an upload's is), then it takes its own name before the
    // transaction: rows never name a file that is not there. Should peto
    // stop before the commit, the orphan sweep removes the unnamed files.
    std::map<std::int64_t, StoredFile> final_names;
    for (const json& d : field(doc, "documents")) {
      std::string at = where("documents", d);
      std::int64_t id = req_int(at, d, "id");
      auto f = files.find(id);
      if (f == files.end()) continue;
      std::string token = random_token(16);
      auto& s = staged.emplace_back(
          Staged{media_dir + "/" + folder + "/.import-" + token, std::string(), false});
      unpack(zip.get(), *f->second, d, s.temp, limits, total);
      Sniffed type = sniff_file(s.temp);
      if (!type.allowed)
        refuse(at + ": its file is not a kind of file peto accepts (" + type.detected + ")");
      std::string relative =
          folder + "/" + token + (type.extension.empty() ? "" : "." + type.extension);
      s.final = media_dir + "/" + relative;
      std::error_code rename_ec;
      fs::rename(s.temp, s.final, rename_ec);
      if (rename_ec)
        throw std::runtime_error("could not move " + s.temp + " to " + s.final + ": " +
                                 rename_ec.message());
      s.renamed = true;
      final_names[id] = StoredFile{relative, type.content_type};
    }
    ImportFacts facts = db.write([&](store::Conn& conn) {
      if (!force && account_has_records(conn, owner)) throw NotEmpty{};
      return Importer(db, conn, clock, owner, final_names).run(doc);
    });
    return facts;
  } catch (const Refusal& r) {
    discard();
    return Status::invalid(r.message);
  } catch (const NotEmpty&) {
    discard();
    return Status::conflict(
        "the account already has records; importing adds the archive's to them (use --force)");
  } catch (...) {
    discard();
    throw;
  }
}

}  // namespace peto::media
