// The records of a peto export (import_archive, media/exports.h), created in
// one transaction: each kind after the kinds it refers to, every archive id
// mapped to the new record's id (companies and tags matched by name), and
// the fields peto sets itself and the records' times written last, as the
// archive has them.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <vector>

#include "core/i18n.h"
#include "core/timezone.h"
#include "domain/auto_reminders.h"
#include "domain/captures.h"
#include "domain/kinds.h"
#include "domain/records.h"
#include "domain/saved_views.h"
#include "media/copies.h"
#include "media/documents.h"
#include "media/export_format.h"
#include "media/import_internal.h"

namespace peto::media::import_detail {

using nlohmann::json;

namespace {

bool one_of(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

store::Value text_value(const std::optional<std::string>& s) {
  return s ? store::Value(*s) : store::Value();
}

using IdMap = std::map<std::int64_t, std::int64_t>;

class Importer {
 public:
  Importer(store::Db& db, store::Conn& conn, const Clock& clock, std::int64_t owner,
           const std::map<std::int64_t, StoredFile>& files)
      : conn_(conn), clock_(clock), records_(db, clock), owner_(owner), files_(files) {}

  ImportFacts run(const json& doc);

 private:
  std::int64_t mapped(const std::string& at, const std::string& kind, const json& o,
                      const std::string& name, bool required);
  store::Value made_from(const std::string& at, const json& o);
  std::string typeset_from(const std::string& at, const json& o);
  void import_profile(const json& p);
  void import_kind(const domain::Kind& k, const json& list);
  void set_exactly(const domain::Kind& k, const json& o, const std::string& at, std::int64_t id,
                   bool all_day);
  void import_documents(const json& list);
  void import_events(const json& list);
  void import_tag_links(const json& list);
  void import_captures(const json& list);
  void import_listing_events(const json& list);
  void import_saved_views(const json& list);

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

// What an automatic reminder was made for, in this account: its made_from
// through the kind its made_for names. Null when the archive says nothing
// (the reminder comes in as a plain one).
store::Value Importer::made_from(const std::string& at, const json& o) {
  auto made_for = opt_text(at, o, "made_for", 20);
  auto archive_id = opt_int(at, o, "made_from");
  if (!made_for || made_for->empty() || !archive_id) return {};
  const std::string kind = domain::made_from_kind(*made_for);
  if (kind.empty()) refuse(at + ": made_for is not one of its choices");
  auto& m = ids_[kind];
  auto it = m.find(*archive_id);
  if (it == m.end()) refuse(at + ": made_from names no record of the archive");
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
  // The automatic reminders' switches (archives before them leave the defaults).
  const domain::ReminderSwitches defaults;
  auto follow_up = opt_int(at, p, "follow_up_days").value_or(defaults.follow_up_days);
  if (follow_up < 0 || follow_up > domain::kMaxFollowUpDays)
    refuse("profile: follow_up_days is not between 0 and " +
           std::to_string(domain::kMaxFollowUpDays));
  auto flag = [&](const char* name, bool otherwise) {
    const json& v = field(p, name);
    if (v.is_null()) return otherwise;
    if (!v.is_boolean()) refuse(std::string("profile: ") + name + " is not true or false");
    return v.get<bool>();
  };
  conn_.query(
      "UPDATE users SET language = ?, time_zone = ?, quiet_after_days = ?,"
      " closing_notice_days = ?, follow_up_days = ?, remind_interviews = ?,"
      " remind_answer_by = ?, remind_closing = ?, updated_at = ? WHERE id = ?",
      {language, zone, quiet, closing, follow_up,
       flag("remind_interviews", defaults.interviews) ? 1 : 0,
       flag("remind_answer_by", defaults.answer_by) ? 1 : 0,
       flag("remind_closing", defaults.closing) ? 1 : 0, clock_.now_ms(), owner_});
  domain::follow_time_zone(conn_, owner_);
}

// What peto sets itself on record `id`, as the archive has it: the
// read-only fields and the scheduler's marks.
void Importer::set_exactly(const domain::Kind& k, const json& o, const std::string& at,
                           std::int64_t id, bool all_day) {
  std::string sql;
  store::Params params;
  for (const auto& f : k.fields) {
    bool exact = !f.writable || (k.name == "interviews" && f.name == "ends_at" && !all_day);
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
  const store::Value from = made_from(at, o);
  for (const auto& c : format::kind_marks(k.name)) {
    if (c.name == "made_from")
      params.push_back(from);
    else if (c.name == "made_for")
      params.push_back(from.is_null() ? store::Value()
                                      : store::Value(o["made_for"].get<std::string>()));
    else if (c.number)
      params.emplace_back(opt_int(at, o, c.name));
    else
      params.emplace_back(text_value(opt_text(at, o, c.name, 40)));
    sql += (sql.empty() ? "" : ", ") + c.name + " = ?";
  }
  if (sql.empty()) return;
  params.emplace_back(id);
  conn_.query("UPDATE " + k.name + " SET " + sql + " WHERE id = ?", params);
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
        m[archive_id] = found[0].int_at("id");
        ++(company ? facts_.companies_matched : facts_.tags_matched);
        continue;
      }
    }
    domain::Input in;
    in.from_form = false;
    in.make_reminders = false;  // the archive brings its own
    // An all-day record brings its day; its times follow from the day where
    // the person importing it lives.
    const bool all_day = !k.day_field.empty() && field(o, k.day_field).is_string();
    for (const auto& f : k.fields) {
      if (!f.writable || (all_day && f.name == k.due_field)) continue;
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
    set_exactly(k, o, at, id, all_day);
    times_.emplace_back(k.name, id, req_int(at, o, "created_at"), req_int(at, o, "updated_at"));
  }
}

// What a document peto typeset was made from: "cvs:<id>" names a CV of the
// archive's, renumbered as it is imported; "" for an upload.
std::string Importer::typeset_from(const std::string& at, const json& o) {
  std::string from = text_or(at, o, "made_from", 40);
  if (from.empty()) return from;
  std::size_t colon = from.find(':');
  std::string kind_name = from.substr(0, colon);
  if (colon == std::string::npos || (kind_name != "cvs" && kind_name != "letters"))
    refuse(at + ": made_from names no CV or letter");
  std::int64_t old_id = 0;
  std::string_view digits = std::string_view(from).substr(colon + 1);
  auto read = std::from_chars(digits.data(), digits.data() + digits.size(), old_id);
  auto& ids = ids_[kind_name];
  bool whole = read.ec == std::errc() && read.ptr == digits.data() + digits.size();
  auto found = whole ? ids.find(old_id) : ids.end();
  if (found == ids.end()) refuse(at + ": made_from names a record the archive lacks");
  return kind_name + ":" + std::to_string(found->second);
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
    const std::string made_from = typeset_from(at, o);
    std::string damage = text_or(at, o, "damage", 20);
    if (!damage.empty() && damage != "missing" && damage != "changed")
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
        " created_at, updated_at, made_from, source_text)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        {owner_,
         stored,
         store::Value(size),
         sha.empty() ? store::Value() : store::Value(sha),
         stored.empty() ? 0 : now,
         damage,
         text_or(at, o, "title", 200),
         kind,
         filename,
         content_type,
         text_or(at, o, "language", 12),
         text_or(at, o, "notes", 20000),
         version,
         store::Value(replaces),
         subject_kind,
         store::Value(subject_id),
         req_int(at, o, "created_at"),
         req_int(at, o, "updated_at"),
         made_from,
         text_or(at, o, "source_text", 200000)});
    std::int64_t id = row[0].int_at("id");
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
  const std::vector<std::string>& statuses = domain::statuses();
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

void Importer::import_saved_views(const json& list) {
  domain::SavedViews views(records_.db(), clock_);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& o = list[i];
    const std::string at = "saved_views[" + std::to_string(i) + "]";
    const std::string kind = text_or(at, o, "kind", 40);
    const std::string name = text_or(at, o, "name", domain::SavedViews::kMaxName);
    const std::string query = text_or(at, o, "query", domain::SavedViews::kMaxQuery);
    auto saved = views.save_in(conn_, owner_, kind, name, query);
    if (auto* errors = std::get_if<domain::FieldErrors>(&saved))
      refuse(at + ": " + errors->by_field.begin()->first + " is not one peto can keep");
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
    m[archive_id] = row[0].int_at("id");
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
  import_saved_views(field(doc, "saved_views"));
  for (const auto& [table, id, created, updated] : times_)
    conn_.query("UPDATE " + table + " SET created_at = ?, updated_at = ? WHERE id = ?",
                {created, updated, id});
  return facts_;
}

}  // namespace

bool account_has_records(store::Conn& conn, std::int64_t owner) {
  std::string sql = "SELECT 1 FROM uploads WHERE owner_id = ?";
  store::Params params{owner};
  for (const auto& name : format::kind_order()) {
    sql += " UNION ALL SELECT 1 FROM " + name + " WHERE owner_id = ?";
    params.emplace_back(owner);
  }
  sql += " UNION ALL SELECT 1 FROM captures WHERE owner_id = ?";
  params.emplace_back(owner);
  return conn.query("SELECT CASE WHEN EXISTS (" + sql + ") THEN 1 ELSE 0 END AS has_records",
                    params)[0]
             .int_at("has_records") != 0;
}

ImportFacts import_records(store::Db& db, store::Conn& conn, const Clock& clock, std::int64_t owner,
                           const std::map<std::int64_t, StoredFile>& files, const json& doc) {
  return Importer(db, conn, clock, owner, files).run(doc);
}

}  // namespace peto::media::import_detail
