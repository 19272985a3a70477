// Export and import (media/exports.h) on both backends: a filled account
// exported and imported into a new one comes back record for record and file
// for file; an account with records needs force; and every hostile archive
// is refused with nothing written — no row, no file.
#include <sodium.h>
#include <sys/stat.h>
#include <zip.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/app.h"
#include "connections/connections.h"
#include "core/token.h"
#include "domain/auto_reminders.h"
#include "domain/captures.h"
#include "domain/kinds.h"
#include "domain/saved_views.h"
#include "media/exports.h"
#include "tests/support/domain_fixture.h"

namespace peto {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every entry of a zip, name -> bytes.
std::map<std::string, std::string> zip_entries(const fs::path& path) {
  std::map<std::string, std::string> out;
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (za == nullptr) return out;
  for (zip_int64_t i = 0; i < zip_get_num_entries(za, 0); ++i) {
    zip_stat_t st;
    zip_stat_index(za, static_cast<zip_uint64_t>(i), 0, &st);
    zip_file_t* f = zip_fopen_index(za, static_cast<zip_uint64_t>(i), 0);
    std::string bytes(st.size, '\0');
    if (st.size > 0) zip_fread(f, bytes.data(), st.size);
    zip_fclose(f);
    out[st.name] = bytes;
  }
  zip_discard(za);
  return out;
}

struct ZipEntry {
  std::string name;
  std::string bytes;
  std::optional<zip_uint32_t> unix_mode;  // external attributes' file mode
};

void write_zip(const fs::path& path, const std::vector<ZipEntry>& entries) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(za, nullptr);
  for (const auto& e : entries) {
    zip_source_t* s = zip_source_buffer(za, e.bytes.data(), e.bytes.size(), 0);
    zip_int64_t i = zip_file_add(za, e.name.c_str(), s, ZIP_FL_ENC_UTF_8);
    ASSERT_GE(i, 0) << e.name << ": " << zip_strerror(za);
    if (e.unix_mode)
      zip_file_set_external_attributes(za, static_cast<zip_uint64_t>(i), 0, ZIP_OPSYS_UNIX,
                                       *e.unix_mode << 16);
  }
  ASSERT_EQ(zip_close(za), 0);
}

// Rewrites the uncompressed size of entry `name` in both its headers, as a
// hostile archive would, to say less than the entry holds.
void lie_about_size(const fs::path& path, const std::string& name, std::uint32_t size) {
  std::string z = slurp(path);
  auto put = [&](std::size_t at) {
    for (int i = 0; i < 4; ++i) z[at + i] = static_cast<char>((size >> (8 * i)) & 0xff);
  };
  auto u16 = [&](std::size_t at) {
    return static_cast<std::size_t>(static_cast<unsigned char>(z[at])) |
           static_cast<std::size_t>(static_cast<unsigned char>(z[at + 1])) << 8;
  };
  int patched = 0;
  for (std::size_t i = 0; i + 46 < z.size(); ++i) {
    if (z.compare(i, 4, std::string("PK\x03\x04", 4)) == 0 &&
        z.compare(i + 30, name.size(), name) == 0 && u16(i + 26) == name.size()) {
      put(i + 22);
      ++patched;
    } else if (z.compare(i, 4, std::string("PK\x01\x02", 4)) == 0 &&
               z.compare(i + 46, name.size(), name) == 0 && u16(i + 28) == name.size()) {
      put(i + 24);
      ++patched;
    }
  }
  ASSERT_EQ(patched, 2);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << z;
}

domain::Input form(json values) {
  domain::Input in;
  in.values = std::move(values);
  return in;
}

class ExportImportTest : public testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    media_ = (dir() / "media").string();
    fs::create_directories(media_);
  }

  // A document row with its file under the media folder; returns its id.
  std::int64_t add_document(std::int64_t owner, const std::string& title, const std::string& bytes,
                            std::optional<std::int64_t> replaces, int version,
                            const std::string& subject_kind = "",
                            std::optional<std::int64_t> subject_id = {}) {
    std::string rel = "documents/" + std::to_string(owner) + "/" + random_token(8) + ".pdf";
    fs::create_directories((fs::path(media_) / rel).parent_path());
    std::ofstream(fs::path(media_) / rel, std::ios::binary) << bytes;
    return db()
        .query(
            "INSERT INTO uploads (owner_id, file, size, sha256, title, kind, filename,"
            " content_type, language, notes, version, replaces, subject_kind, subject_id,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'cv', ?, 'application/pdf', 'en',"
            " 'for Nordic firms', ?, ?, ?, ?, ?, ?) RETURNING id",
            {owner, rel, static_cast<std::int64_t>(bytes.size()), sha256_hex(bytes), title,
             title + ".pdf", version, store::Value(replaces), subject_kind,
             store::Value(subject_id), clock_.now_ms() - 1000, clock_.now_ms()})[0]
        .int_at(0);
  }

  // The demo's job search (with tags on applications), plus documents (a
  // version chain, one attached to an application and sent with it), a capture
  // and a listing event, and profile settings.
  void fill(std::int64_t owner) {
    app::load_demo(db(), clock_, owner);
    auto app_id =
        db().query("SELECT MIN(id) FROM applications WHERE owner_id = ?", {owner})[0].int_at(0);
    auto v1 = add_document(owner, "CV", std::string("%PDF-1.4 first\n") + std::string(3000, 'a'),
                           std::nullopt, 1);
    auto v2 = add_document(owner, "CV", "%PDF-1.4 second\n" + std::string(70000, 'b'), v1, 2);
    auto letter =
        add_document(owner, "Letter", "%PDF-1.4 letter", std::nullopt, 1, "application", app_id);
    db().query(
        "INSERT INTO application_events (application_id, kind, occurred_at, summary, actor,"
        " upload_id, created_at) VALUES (?, 'document_sent', ?, 'Sent CV v2', '', ?, ?)",
        {app_id, clock_.now_ms() - 500, v2, clock_.now_ms() - 500});
    domain::Captures captures(records());
    auto made = captures.from_html(
        owner, "https://jobs.example/42?utm_source=x",
        "<html><head><title>Platform engineer</title></head><body>Hi</body></html>", "web");
    ASSERT_TRUE(std::holds_alternative<domain::Capture>(made));
    auto listing =
        db().query("SELECT MIN(id) FROM listings WHERE owner_id = ?", {owner})[0].int_at(0);
    db().query(
        "INSERT INTO listing_events (listing_id, kind, occurred_at, summary, capture_id, actor,"
        " external_id, created_at) VALUES (?, 'capture', ?, 'Saved from a page', ?, '', 'x-1', ?)",
        {listing, clock_.now_ms() - 100, std::get<domain::Capture>(made)["id"].get<std::int64_t>(),
         clock_.now_ms() - 100});
    ASSERT_TRUE(std::holds_alternative<domain::SavedView>(
        domain::SavedViews(db(), clock_)
            .save(owner, "applications", "Berlin, sent",
                  "view=table&company=Acme&sort=applied_at")));
    db().query(
        "UPDATE users SET language = 'sv', time_zone = 'Europe/Stockholm', quiet_after_days = 30,"
        " follow_up_days = 10, remind_interviews = 1, remind_closing = 1 WHERE id = ?",
        {owner});
    // Due on a day where the person lives, and without a date at all.
    for (json values :
         {json{{"title", "Forms due"}, {"due_on", "2027-01-21"}}, json{{"title", "Someday"}}})
      ASSERT_TRUE(std::holds_alternative<domain::Record>(
          records().create(owner, domain::kind("reminders"), form(values))));
    ASSERT_TRUE(std::holds_alternative<domain::Record>(records().create(
        owner, domain::kind("interviews"),
        form({{"application_id", std::to_string(app_id)}, {"starts_on", "2027-01-22"}}))));
    // The career record and a CV made from it (format version 2).
    ASSERT_TRUE(std::holds_alternative<domain::Record>(
        records().create(owner, domain::kind("career"),
                         form({{"section", "experience"},
                               {"title", "Engineer"},
                               {"organisation", "Acme"},
                               {"started_on", "2021-03-01"},
                               {"highlights", "- Cut costs\n- Shipped"}}))));
    auto cv = records().create(
        owner, domain::kind("cvs"),
        form({{"name", "Backend"}, {"full_name", "Ana Lima"}, {"theme", "modern"}}));
    ASSERT_TRUE(std::holds_alternative<domain::Record>(cv));
    const std::string cv_id =
        std::to_string(std::get<domain::Record>(cv)["id"].get<std::int64_t>());
    ASSERT_TRUE(std::holds_alternative<domain::Record>(records().create(
        owner, domain::kind("letters"),
        form({{"name", "Cover"}, {"cv_id", cv_id}, {"body", "Dear {contact},"}}))));
    // The letter was sent as typeset by peto: what it was made from travels.
    db().query(
        "UPDATE uploads SET made_from = ?, source_text = 'Dear Hiring Manager,' WHERE id = ?",
        {"cvs:" + cv_id, letter});
  }

  fs::path export_of(std::int64_t owner, const std::string& name) {
    fs::path out = dir() / name;
    auto made = media::write_export(db(), clock_, media_, owner, out.string());
    EXPECT_TRUE(made) << made.status().message();
    EXPECT_EQ(fs::status(out).permissions() & (fs::perms::group_all | fs::perms::others_all),
              fs::perms::none)
        << "an export is the person's whole record";
    return out;
  }

  Result<media::ImportFacts> import(std::int64_t owner, const fs::path& zip,
                                    const media::ImportLimits& limits = {}, bool force = false) {
    return media::import_archive(db(), clock_, media_, owner, zip.string(), limits, force);
  }

  // What "nothing was written" is checked against: every table's rows and
  // every file under the media folder.
  std::string snapshot() {
    std::string s;
    for (const char* t :
         {"users", "companies", "contacts", "listings", "applications", "reminders", "interviews",
          "offers", "notes", "tags", "application_tags", "application_events", "captures",
          "listing_events", "uploads", "document_copies", "deliveries", "saved_views"})
      s += std::string(t) + "=" + std::to_string(count(t)) + " ";
    s += db().query("SELECT COALESCE(SUM(updated_at), 0) FROM users")[0].text(0) + " files:";
    for (const auto& e : fs::recursive_directory_iterator(media_)) s += " " + e.path().string();
    return s;
  }

  std::string media_;
};

// The export with ids replaced by each record's position in its section,
// and file names by the file's bytes: two exports of the same data compare
// equal whatever ids the database gave.
json normalised(const fs::path& zip) {
  auto entries = zip_entries(zip);
  json doc = json::parse(entries.at("peto.json"));
  doc.erase("exported_at");
  doc.erase("account");
  std::map<std::string, std::map<std::int64_t, std::int64_t>> order;
  for (auto& [section, list] : doc.items())
    if (list.is_array())
      for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].contains("id")) order[section][list[i]["id"].get<std::int64_t>()] = i;
  auto renumber = [&](json& o, const std::string& column, const std::string& section) {
    if (o.contains(column) && o[column].is_number_integer())
      o[column] = order[section].at(o[column].get<std::int64_t>());
  };
  std::map<std::string, std::string> singular;
  for (const auto& k : domain::kinds()) singular[k.singular] = k.name;
  for (auto& [section, list] : doc.items()) {
    if (!list.is_array()) continue;
    for (auto& o : list) {
      renumber(o, "id", section);
      if (const auto* k = domain::find_kind(section))
        for (const auto& f : k->fields)
          if (f.type == domain::FieldType::ref) renumber(o, f.name, f.ref_kind);
      for (const char* c : {"application_id", "tag_id", "interview_id", "listing_id"})
        if (!domain::find_kind(section))
          renumber(o, c, std::string(c).substr(0, std::string(c).size() - 3) + "s");
      renumber(o, "upload_id", "documents");
      renumber(o, "replaces", "documents");
      renumber(o, "capture_id", "captures");
      if (section == "reminders" && o["made_for"].is_string())
        renumber(o, "made_from", domain::made_from_kind(o["made_for"].get<std::string>()));
      if (section == "documents") {
        // "cvs:<id>": the CV's place in its section.
        if (std::string from = o.value("made_from", ""); !from.empty()) {
          auto colon = from.find(':');
          o["made_from"] =
              from.substr(0, colon + 1) +
              std::to_string(order[from.substr(0, colon)].at(std::stoll(from.substr(colon + 1))));
        }
        if (!o["subject_kind"].get<std::string>().empty())
          renumber(o, "subject_id", singular.at(o["subject_kind"].get<std::string>()));
        if (o["file"].is_string()) o["file"] = sha256_hex(entries.at(o["file"].get<std::string>()));
      }
    }
  }
  return doc;
}

TEST_P(ExportImportTest, ImportIntoANewAccountReproducesEveryRecordAndFile) {
  fill(owner_);
  fs::path first = export_of(owner_, "ana.zip");
  auto facts = import(other_, first);
  ASSERT_TRUE(facts) << facts.status().message();
  EXPECT_EQ(facts->files, 3);
  EXPECT_EQ(facts->companies_matched, 0);
  fs::path second = export_of(other_, "ben.zip");

  json a = normalised(first), b = normalised(second);
  for (const auto& [section, list] : a.items()) {
    ASSERT_TRUE(b.contains(section)) << section;
    EXPECT_EQ(list.size(), b[section].size()) << section;
    EXPECT_EQ(list, b[section]) << section;  // every record of one is in the other, both ways
  }
  EXPECT_EQ(a.size(), b.size());
  EXPECT_GE(a["applications"].size(), 20u);
  EXPECT_EQ(a["documents"].size(), 3u);
  EXPECT_EQ(a["captures"].size(), 1u);
  EXPECT_EQ(a["saved_views"].size(), 1u) << "a person's saved views travel with their records";
  EXPECT_EQ(a["career"].size(), 1u);
  EXPECT_EQ(a["cvs"].size(), 1u);
  EXPECT_EQ(a["cvs"][0]["theme"], "modern");
  EXPECT_EQ(a["letters"].size(), 1u);
  EXPECT_EQ(a["letters"][0]["cv_id"], 0) << "the letter still names the CV";
  int sent_copies = 0;
  for (const json& d : b["documents"]) sent_copies += d["made_from"] == "cvs:0";
  EXPECT_EQ(sent_copies, 1) << "a sent copy still names the CV it was made from";
  EXPECT_EQ(a["profile"]["follow_up_days"], 10);
  EXPECT_EQ(a["profile"]["remind_closing"], true);
  // The reminders peto made stay tied to what they are about (renumbered
  // above through made_from), and the import makes none of its own.
  std::set<std::string> made;
  for (const json& r : b["reminders"])
    if (r["made_for"].is_string()) made.insert(r["made_for"].get<std::string>());
  EXPECT_TRUE(made.count("interview")) << b["reminders"].dump();

  // The imported files are on disk under ben's own names, byte for byte.
  std::vector<std::string> bytes_a, bytes_b;
  for (const auto& r :
       db().query("SELECT file FROM uploads WHERE owner_id = ? ORDER BY id", {owner_}))
    bytes_a.push_back(slurp(fs::path(media_) / r.text(0)));
  for (const auto& r : db().query(
           "SELECT file, verified_at FROM uploads WHERE owner_id = ? ORDER BY id", {other_})) {
    EXPECT_EQ(r.text(0).rfind("documents/" + std::to_string(other_) + "/", 0), 0u) << r.text(0);
    bytes_b.push_back(slurp(fs::path(media_) / r.text(0)));
  }
  EXPECT_EQ(bytes_a, bytes_b);
  // No temporary file is left behind.
  for (const auto& e : fs::recursive_directory_iterator(media_))
    EXPECT_EQ(e.path().filename().string().find(".import-"), std::string::npos) << e.path();
}

TEST_P(ExportImportTest, AnAccountWithRecordsNeedsForceAndCompaniesAreMatchedByName) {
  fill(owner_);
  fs::path zip = export_of(owner_, "ana.zip");
  auto made =
      records().create(other_, domain::kind("companies"), form({{"name", "Nordvik Systems AS"}}));
  ASSERT_TRUE(std::holds_alternative<domain::Record>(made));
  std::string before = snapshot();
  auto refused = import(other_, zip);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), Status::Code::conflict);
  EXPECT_NE(refused.status().message().find("--force"), std::string::npos);
  EXPECT_EQ(snapshot(), before);

  // Ben's webhook wants to hear of interviews and offers: moving old ones in
  // tells it nothing.
  Config config;
  auto hook = connections::Connections(db(), clock_, config)
                  .create(other_, "webhook", "Ben's board",
                          {{"url", "https://hooks.example/peto"},
                           {"secret", "0123456789abcdef"},
                           {"event_interview_scheduled", true},
                           {"event_offer_recorded", true}});
  ASSERT_TRUE(std::holds_alternative<connections::Connection>(hook));
  auto forced = import(other_, zip, {}, /*force=*/true);
  ASSERT_TRUE(forced) << forced.status().message();
  EXPECT_EQ(count("deliveries"), 0);
  EXPECT_EQ(count("inbox_notices"), 0);
  EXPECT_EQ(forced->companies_matched, 1);
  EXPECT_EQ(
      count("companies"),
      2 * db().query("SELECT COUNT(*) FROM companies WHERE owner_id = ?", {owner_})[0].int_at(0));
}

class HostileArchiveTest : public ExportImportTest {
 protected:
  void SetUp() override {
    ExportImportTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A small valid export to start the hostile ones from.
    records().create(owner_, domain::kind("companies"), form({{"name", "Acme"}}));
    auto company = db().query("SELECT id FROM companies WHERE owner_id = ?", {owner_})[0].int_at(0);
    for (int i = 0; i < 3; ++i)
      records().create(owner_, domain::kind("listings"),
                       form({{"role", "Role " + std::to_string(i)},
                             {"company_id", std::to_string(company)},
                             {"url", "https://acme.example/" + std::to_string(i)}}));
    add_document(owner_, "CV", "%PDF-1.4 cv", std::nullopt, 1);
    add_document(owner_, "CV2", "%PDF-1.4 cv two", std::nullopt, 1);
    valid_ = export_of(owner_, "valid.zip");
    entries_ = zip_entries(valid_);
    doc_ = json::parse(entries_.at("peto.json"));
  }

  // The valid archive with its JSON changed by `change` and `extra` entries.
  fs::path variant(const std::function<void(json&)>& change, std::vector<ZipEntry> extra = {}) {
    json doc = doc_;
    change(doc);
    std::vector<ZipEntry> all = {{"peto.json", doc.dump(), std::nullopt}};
    for (const auto& [name, bytes] : entries_)
      if (name != "peto.json") all.push_back({name, bytes, std::nullopt});
    for (auto& e : extra) all.push_back(std::move(e));
    fs::path out = dir() / ("hostile-" + std::to_string(++made_) + ".zip");
    write_zip(out, all);
    return out;
  }

  // Imports into ben's empty account; it must be refused with a message
  // containing `words`, and leave everything as it was.
  void expect_refused(const fs::path& zip, const std::string& words,
                      const media::ImportLimits& limits = {}) {
    std::string before = snapshot();
    auto r = import(other_, zip, limits);
    ASSERT_FALSE(r) << zip;
    EXPECT_EQ(r.status().code(), Status::Code::invalid);
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
    EXPECT_EQ(snapshot(), before);
  }

  fs::path valid_;
  std::map<std::string, std::string> entries_;
  json doc_;
  int made_ = 0;
};

TEST_P(HostileArchiveTest, TheValidOneImports) {
  auto r = import(other_, valid_);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->files, 2);
}

TEST_P(HostileArchiveTest, AVersionOneArchiveWithoutTheCareerRecordImports) {
  auto r = import(other_, variant([](json& d) {
                    d["version"] = 1;
                    d.erase("career");
                    d.erase("cvs");
                    d.erase("letters");
                  }));
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM listings WHERE owner_id = ?", {other_})[0].int_at(0),
            3);
}

TEST_P(HostileArchiveTest, PathsThatLeaveTheFolderAreRefused) {
  expect_refused(variant([](json&) {}, {{"../x", "evil", std::nullopt}}), "leaves its folder");
  expect_refused(variant([](json&) {}, {{"media/../../x", "evil", std::nullopt}}),
                 "leaves its folder");
  expect_refused(variant([](json&) {}, {{"/etc/x", "evil", std::nullopt}}), "absolute path");
  expect_refused(variant([](json&) {}, {{"media\\..\\x", "evil", std::nullopt}}), "backslash");
  // Named by the JSON as a document's file: still refused by its name.
  expect_refused(variant([](json& d) { d["documents"][0]["file"] = "../x"; },
                         {{"../x", "evil", std::nullopt}}),
                 "leaves its folder");
}

TEST_P(HostileArchiveTest, LinksAndStrayEntriesAreRefused) {
  expect_refused(variant([](json&) {}, {{"media/link", "/etc/passwd", S_IFLNK | 0777}}),
                 "symbolic link");
  expect_refused(variant([](json&) {}, {{"media/stray.txt", "hi", std::nullopt}}),
                 "not named by peto.json");
}

TEST_P(HostileArchiveTest, ZipBombsAreRefusedEarly) {
  // 64 MB of zeros, declared honestly: refused from the header, unread.
  std::string zeros(64u << 20, '\0');
  fs::path big = variant([](json&) {}, {{"media/zeros", zeros, std::nullopt}});
  expect_refused(big, "zip bomb");
  zeros.assign(5u << 20, '\0');
  // Under the size limits but packed more than 100:1.
  expect_refused(variant([](json&) {}, {{"media/zeros", zeros, std::nullopt}}), "zip bomb");
  // A document's file whose header claims a small size: counted while read.
  fs::path lying = dir() / "lying.zip";
  std::string name = doc_["documents"][0]["file"].get<std::string>();
  std::vector<ZipEntry> all = {{"peto.json", doc_.dump(), std::nullopt}};
  for (const auto& [n, bytes] : entries_)
    if (n != "peto.json") all.push_back({n, bytes, std::nullopt});
  write_zip(lying, all);
  lie_about_size(lying, name, 3);
  expect_refused(lying, "larger than its header says");
}

TEST_P(HostileArchiveTest, SizeLimitsAreKept) {
  media::ImportLimits small;
  small.max_total_bytes = 20;
  expect_refused(valid_, "unpacks to more than", small);
  media::ImportLimits tiny_files;
  tiny_files.max_file_bytes = 5;
  expect_refused(valid_, "larger than", tiny_files);
}

TEST_P(HostileArchiveTest, UnknownVersionsAndBadJsonAreRefused) {
  expect_refused(variant([](json& d) { d["version"] = 3; }), "format version 3");
  expect_refused(variant([](json& d) { d["version"] = 0; }), "format version 0");
  expect_refused(variant([](json& d) { d["format"] = "something-else"; }), "not a peto export");
  std::vector<ZipEntry> all = {
      {"peto.json", "{\"format\": \"peto-export\", \"version\": 1,", std::nullopt}};
  fs::path broken = dir() / "broken.zip";
  write_zip(broken, all);
  expect_refused(broken, "not valid JSON");
  fs::path not_zip = dir() / "not.zip";
  std::ofstream(not_zip) << "hello";
  expect_refused(not_zip, "not a zip archive");
  expect_refused(variant([](json& d) { d["listings"] = json::object(); }), "not a list");
}

TEST_P(HostileArchiveTest, MissingOrChangedFilesAreRefused) {
  std::string name = doc_["documents"][1]["file"].get<std::string>();
  json doc = doc_;
  std::vector<ZipEntry> without = {{"peto.json", doc.dump(), std::nullopt}};
  for (const auto& [n, bytes] : entries_)
    if (n != "peto.json" && n != name) without.push_back({n, bytes, std::nullopt});
  fs::path missing = dir() / "missing.zip";
  write_zip(missing, without);
  expect_refused(missing, "is not in the archive");
  // The second file's checksum is wrong: the first, already unpacked, goes.
  expect_refused(variant([](json& d) { d["documents"][1]["sha256"] = std::string(64, '0'); }),
                 "SHA-256");
}

TEST_P(HostileArchiveTest, ARecordThatFailsValidationRollsEverythingBack) {
  // The last listing is bad: the company, the first listings and both files
  // were already written in the transaction when it is refused.
  expect_refused(variant([](json& d) { d["listings"][2]["url"] = "ftp://acme.example/"; }),
                 "listings 3: url: Enter a web address");
  expect_refused(variant([](json& d) { d["listings"][2]["company_id"] = 999; }), "names no record");
  expect_refused(variant([](json& d) { d["listings"][1]["state"] = 7; }), "state");
  expect_refused(variant([](json& d) { d["profile"]["time_zone"] = "Mars/Olympus"; }), "time_zone");
  expect_refused(variant([](json& d) { d["documents"][1]["replaces"] = 12345; }),
                 "names no record");
  expect_refused(variant([](json& d) { d["documents"][0]["made_from"] = "listings:1"; }),
                 "made_from names no CV or letter");
  expect_refused(variant([](json& d) { d["documents"][0]["made_from"] = "cvs:12345"; }),
                 "made_from names a record the archive lacks");
  expect_refused(variant([](json& d) { d["documents"][0]["made_from"] = "cvs:1x"; }),
                 "made_from names a record the archive lacks");
}

// A document deleted while its archive is written (its file removed after
// the rows were read) still has its file packed: the export does not fail.
TEST_P(HostileArchiveTest, AFileDeletedDuringTheExportIsStillPacked) {
  fs::path out = dir() / "during.zip";
  bool deleted = false;
  auto made = media::write_export(
      db(), clock_, media_, owner_, out.string(), [&](const media::ExportProgress& p) {
        if (deleted || p.files_done < 1) return;
        for (const auto& row : db().query("SELECT file FROM uploads WHERE owner_id = ?", {owner_}))
          fs::remove(fs::path(media_) / row.text(0));
        deleted = true;
      });
  ASSERT_TRUE(made) << made.status().message();
  EXPECT_TRUE(deleted);
  EXPECT_EQ(made->files, 2);
  auto entries = zip_entries(out);
  const json listed = json::parse(entries.at("peto.json"));
  for (const auto& d : listed["documents"]) {
    ASSERT_TRUE(d["file"].is_string());
    EXPECT_EQ(entries.count(d["file"].get<std::string>()), 1u);
  }
}

// Documents without an id, or with fields of the wrong type, are refused by
// name before anything is read or unpacked (not a crash, not a 500).
TEST_P(HostileArchiveTest, DocumentsWithMissingOrMistypedFieldsAreRefused) {
  expect_refused(variant([](json& d) {
                   d["documents"].push_back({{"title", "x"}});
                 }),
                 "id is missing");
  expect_refused(variant([](json& d) { d["documents"][0]["id"] = "x"; }), "not a whole number");
  expect_refused(variant([](json& d) { d["documents"][0]["filename"] = 5; }),
                 "filename is not text");
  expect_refused(variant([](json& d) { d["documents"][0]["file"] = 5; }), "file is not text");
}

// peto.json's values are counted before a tree is built from them.
TEST_P(HostileArchiveTest, TooManyJsonValuesAreRefusedBeforeParsing) {
  media::ImportLimits few;
  few.max_json_values = 50;
  expect_refused(valid_, "values", few);
  json many = json::array();
  for (int i = 0; i < 100; ++i) many.push_back(json::object());
  EXPECT_TRUE(import(other_, variant([&](json& d) { d["padding"] = many; }), {}));
}

// A file's type is read from its bytes, as an upload's is: a script is
// refused, and a PDF is stored as a PDF whatever the JSON says.
TEST_P(HostileArchiveTest, FileTypesAreSniffedNotTakenFromTheJson) {
  const std::string script = "#!/bin/sh\necho hello from a script\n";
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(script.data()), script.size());
  char hex[2 * crypto_hash_sha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  const std::string name = doc_["documents"][0]["file"].get<std::string>();
  json doc = doc_;
  doc["documents"][0]["sha256"] = hex;
  doc["documents"][0]["size"] = script.size();
  doc["documents"][0]["content_type"] = "application/pdf";
  std::vector<ZipEntry> all = {{"peto.json", doc.dump(), std::nullopt}};
  for (const auto& [n, bytes] : entries_)
    if (n != "peto.json") all.push_back({n, n == name ? script : bytes, std::nullopt});
  fs::path scripted = dir() / "script.zip";
  write_zip(scripted, all);
  expect_refused(scripted, "not a kind of file peto accepts");

  auto r = import(other_, variant([](json& d) {
                    for (auto& x : d["documents"]) x["content_type"] = "text/html";
                  }));
  ASSERT_TRUE(r) << r.status().message();
  for (const auto& row :
       db().query("SELECT content_type, file FROM uploads WHERE owner_id = ?", {other_})) {
    EXPECT_EQ(row.text(0), "application/pdf");
    EXPECT_EQ(fs::path(row.text(1)).extension(), ".pdf");
  }
}

// Unpacked files are peto's alone, as uploads are.
TEST_P(HostileArchiveTest, ImportedFilesAreReadableByPetoAlone) {
  auto r = import(other_, valid_);
  ASSERT_TRUE(r) << r.status().message();
  auto rows = db().query("SELECT file FROM uploads WHERE owner_id = ?", {other_});
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    auto perms = fs::status(fs::path(media_) / row.text(0)).permissions();
    EXPECT_EQ(perms & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write)
        << row.text(0);
  }
}

PETO_BOTH_BACKENDS(ExportImportTest);
PETO_BOTH_BACKENDS(HostileArchiveTest);

}  // namespace
}  // namespace peto
