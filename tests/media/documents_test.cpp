// Documents on both backends: a create writes the file under the media
// folder and the row with its size and SHA-256 in one go; a refused or
// failed create leaves no row and no file; versions keep the old ones;
// everything is owner-scoped; "sent with this application" is a timeline
// entry naming the upload.
#include "media/documents.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "domain/applications.h"
#include "tests/support/domain_fixture.h"

namespace peto::media {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kPdf = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n";
// SHA-256 of "hello\n"
const std::string kHelloSha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

class DocumentsTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    config_.data_dir = dir().string();
    config_.upload_max_mb = 1;
    docs_ = std::make_unique<Documents>(db(), clock_, config_);
  }

  Made create(std::int64_t owner, const std::string& bytes, DocumentInput in = {}) {
    std::istringstream s(bytes);
    if (in.filename.empty()) in.filename = "cv.pdf";
    return docs_->create_from(owner, in, s);
  }
  Document made(const Made& m) {
    EXPECT_TRUE(std::holds_alternative<Document>(m));
    return std::holds_alternative<Document>(m) ? std::get<Document>(m) : Document{};
  }
  // Every file under the media folder, relative to it.
  std::vector<std::string> media_files() {
    std::vector<std::string> out;
    std::error_code ec;
    if (!fs::exists(config_.media_dir())) return out;
    for (const auto& e : fs::recursive_directory_iterator(config_.media_dir()))
      if (e.is_regular_file(ec))
        out.push_back(fs::relative(e.path(), config_.media_dir()).string());
    return out;
  }
  std::int64_t new_application(std::int64_t owner) {
    domain::Input c;
    c.values = {{"name", "Acme"}};
    auto company = std::get<domain::Record>(records().create(owner, domain::kind("companies"), c));
    domain::Input l;
    l.values = {{"role", "Backend engineer"},
                {"company_id", std::to_string(company["id"].get<std::int64_t>())}};
    auto listing = std::get<domain::Record>(records().create(owner, domain::kind("listings"), l));
    domain::Applications apps(records());
    auto app = apps.apply(owner, listing["id"].get<std::int64_t>());
    return std::get<domain::Record>(app)["id"].get<std::int64_t>();
  }

  Config config_;
  std::unique_ptr<Documents> docs_;
};

TEST_P(DocumentsTest, CreateStoresTheFileWithItsSizeChecksumAndSniffedType) {
  Document d =
      made(create(owner_, "hello\n", {.title = "Notes", .kind = "other", .filename = "n.md"}));
  EXPECT_EQ(d.owner_id, owner_);
  EXPECT_EQ(d.size, 6);
  EXPECT_EQ(d.sha256, kHelloSha);
  EXPECT_EQ(d.content_type, "text/plain");
  EXPECT_EQ(d.version, 1);
  EXPECT_EQ(d.verified_at, 0) << "never checked from disk yet: the scrub reads it first";
  EXPECT_TRUE(d.file.starts_with("documents/" + std::to_string(owner_) + "/")) << d.file;
  EXPECT_TRUE(d.file.ends_with(".txt")) << "the extension is what the bytes are: " << d.file;
  std::ifstream in(docs_->path_of(d));
  std::string body((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(body, "hello\n");
  EXPECT_EQ(media_files(), std::vector<std::string>{d.file}) << "no incoming file is left";
  EXPECT_EQ(count("uploads"), 1);
}

TEST_P(DocumentsTest, AFailedCommitKeepsTheFileForTheSweep) {
  // A deferred foreign key fails only at COMMIT: after the row was written,
  // when a lost connection would leave the outcome unknown too.
  if (postgres()) {
    db().query("CREATE TABLE gate_parent (id BIGINT PRIMARY KEY)");
    db().query(
        "CREATE TABLE gate (p BIGINT REFERENCES gate_parent (id) DEFERRABLE INITIALLY DEFERRED)");
    db().query(
        "CREATE FUNCTION gate_fn() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN INSERT INTO gate (p) VALUES (42); RETURN NEW; END $$");
    db().query(
        "CREATE TRIGGER gate_upload AFTER INSERT ON uploads FOR EACH ROW EXECUTE FUNCTION "
        "gate_fn()");
  } else {
    db().query("CREATE TABLE gate_parent (id INTEGER PRIMARY KEY)");
    db().query(
        "CREATE TABLE gate (p INTEGER REFERENCES gate_parent (id) DEFERRABLE INITIALLY DEFERRED)");
    db().query(
        "CREATE TRIGGER gate_upload AFTER INSERT ON uploads BEGIN INSERT INTO gate (p) VALUES "
        "(42); END");
  }
  EXPECT_ANY_THROW(create(owner_, kPdf));
  EXPECT_EQ(count("uploads"), 0);
  auto kept = media_files();
  ASSERT_EQ(kept.size(), 1u) << "the commit may have gone through: the file is not removed";
  EXPECT_TRUE(kept[0].starts_with("documents/" + std::to_string(owner_) + "/")) << kept[0];
}

TEST_P(DocumentsTest, AFailureBeforeCommitLeavesNoFile) {
  if (postgres()) {
    db().query(
        "CREATE FUNCTION gate_fn() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN RAISE EXCEPTION 'no'; END $$");
    db().query(
        "CREATE TRIGGER gate_upload BEFORE INSERT ON uploads FOR EACH ROW EXECUTE FUNCTION "
        "gate_fn()");
  } else {
    db().query(
        "CREATE TRIGGER gate_upload BEFORE INSERT ON uploads BEGIN SELECT RAISE(ABORT, 'no'); END");
  }
  EXPECT_ANY_THROW(create(owner_, kPdf));
  EXPECT_EQ(count("uploads"), 0);
  EXPECT_EQ(media_files(), std::vector<std::string>{});
}

TEST_P(DocumentsTest, RefusedCreatesLeaveNoRowAndNoFile) {
  auto html = create(owner_, "<!DOCTYPE html><html><body>x</body></html>", {.filename = "cv.pdf"});
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(html));
  EXPECT_EQ(std::get<domain::FieldErrors>(html).by_field.at("file"), "documents_error_type");
  auto empty = create(owner_, "");
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(empty));
  auto big = create(owner_, kPdf + std::string(1 << 20, ' '));
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(big));
  EXPECT_EQ(std::get<domain::FieldErrors>(big).by_field.at("file"), "documents_error_too_large");
  auto bad_kind = create(owner_, kPdf, {.kind = "passport"});
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(bad_kind));
  // Attached to somebody else's application: refused inside the transaction.
  std::int64_t theirs = new_application(other_);
  auto foreign = create(owner_, kPdf, {.subject_kind = "application", .subject_id = theirs});
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(foreign));
  EXPECT_EQ(std::get<domain::FieldErrors>(foreign).by_field.at("subject"),
            "documents_error_subject");
  EXPECT_EQ(count("uploads"), 0);
  EXPECT_EQ(media_files(), std::vector<std::string>{});
}

TEST_P(DocumentsTest, ANewVersionKeepsTheOldOneAndFollowsTheChain) {
  std::int64_t app = new_application(owner_);
  Document v1 = made(create(owner_, kPdf,
                            {.title = "CV (en)",
                             .kind = "cv",
                             .language = "en",
                             .subject_kind = "application",
                             .subject_id = app}));
  std::string path2 = docs_->incoming_path(owner_);
  fs::create_directories(fs::path(path2).parent_path());
  std::ofstream(path2) << kPdf << "% second\n";
  auto facts = read_facts(path2);
  Document v2 = made(docs_->add_version(owner_, v1.id, {.filename = "cv-2.pdf"},
                                        {path2, facts->size, facts->sha256}));
  EXPECT_EQ(v2.version, 2);
  EXPECT_EQ(v2.replaces, v1.id);
  EXPECT_EQ(v2.title, "CV (en)");
  EXPECT_EQ(v2.kind, "cv");
  EXPECT_EQ(v2.subject_kind, "application");
  EXPECT_EQ(v2.subject_id, app);
  EXPECT_TRUE(fs::exists(docs_->path_of(v1))) << "the old version is kept";

  // A new version of an old one continues the chain from its end.
  std::string path3 = docs_->incoming_path(owner_);
  std::ofstream(path3) << kPdf << "% third\n";
  facts = read_facts(path3);
  Document v3 = made(docs_->add_version(owner_, v1.id, {}, {path3, facts->size, facts->sha256}));
  EXPECT_EQ(v3.version, 3);
  EXPECT_EQ(v3.replaces, v2.id);
  auto chain = docs_->versions(owner_, v2.id);
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].id, v3.id);
  EXPECT_EQ(chain[2].id, v1.id);
  EXPECT_EQ(docs_->list_for(owner_, "application", app).size(), 3u);

  // Removing the middle version links the next one to the first.
  ASSERT_TRUE(docs_->remove(owner_, v2.id));
  EXPECT_FALSE(fs::exists(docs_->path_of(v2)));
  EXPECT_EQ(docs_->get(owner_, v3.id)->replaces, v1.id);
  EXPECT_EQ(docs_->versions(owner_, v1.id).size(), 2u);
}

TEST_P(DocumentsTest, SomebodyElsesDocumentIsAbsent) {
  Document mine = made(create(owner_, kPdf));
  EXPECT_TRUE(docs_->get(owner_, mine.id));
  EXPECT_FALSE(docs_->get(other_, mine.id));
  EXPECT_TRUE(docs_->list(other_).empty());
  EXPECT_TRUE(docs_->versions(other_, mine.id).empty());
  EXPECT_FALSE(docs_->remove(other_, mine.id));
  std::string path = docs_->incoming_path(other_);
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << kPdf;
  EXPECT_TRUE(std::holds_alternative<domain::NotFound>(
      docs_->add_version(other_, mine.id, {}, {path, static_cast<std::int64_t>(kPdf.size()), ""})));
  EXPECT_FALSE(fs::exists(path)) << "the refused file is removed";
  std::int64_t their_app = new_application(other_);
  EXPECT_TRUE(std::holds_alternative<domain::NotFound>(
      docs_->record_sent(other_, new_application(owner_), mine.id)));
  EXPECT_TRUE(
      std::holds_alternative<domain::FieldErrors>(docs_->record_sent(other_, their_app, mine.id)));
  EXPECT_TRUE(fs::exists(docs_->path_of(mine)));
  EXPECT_EQ(count("application_events WHERE kind = 'document_sent'"), 0);
}

TEST_P(DocumentsTest, SentWithAnApplicationIsOnItsTimelineWithTheVersion) {
  std::int64_t app = new_application(owner_);
  Document cv = made(create(owner_, kPdf, {.title = "CV (en)", .kind = "cv"}));
  auto sent = docs_->record_sent(owner_, app, cv.id, "by e-mail to the recruiter");
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(sent));
  auto rows =
      db().query("SELECT kind, summary, body, upload_id FROM application_events WHERE id = ?",
                 {std::get<std::int64_t>(sent)});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text(0), "document_sent");
  EXPECT_EQ(rows[0].text(1), "Sent: CV (en) (version 1)");
  EXPECT_EQ(rows[0].text(2), "by e-mail to the recruiter");
  EXPECT_EQ(rows[0].int_at(3), cv.id);
  domain::Applications apps(records());
  EXPECT_EQ((*apps.timeline(owner_, app))[0]["kind"], "document_sent");
  // A person cannot write that kind by hand.
  domain::NewEvent forged;
  forged.kind = "document_sent";
  forged.summary = "x";
  EXPECT_TRUE(std::holds_alternative<domain::FieldErrors>(apps.add(owner_, app, forged)));
  // Removing the upload keeps the entry's words and drops the link.
  ASSERT_TRUE(docs_->remove(owner_, cv.id));
  rows = db().query("SELECT summary, upload_id FROM application_events WHERE id = ?",
                    {std::get<std::int64_t>(sent)});
  EXPECT_EQ(rows[0].text(0), "Sent: CV (en) (version 1)");
  EXPECT_TRUE(rows[0].is_null(1));
}

TEST_P(DocumentsTest, CheckUploadRecordsDamageAndLeavesTheFile) {
  Document d = made(create(owner_, kPdf));
  {
    std::ofstream out(docs_->path_of(d), std::ios::app);
    out << "tampered";
  }
  auto row =
      db().query("SELECT " + std::string(kCheckColumns) + " FROM uploads WHERE id = ?", {d.id});
  EXPECT_EQ(check_upload(db(), config_.media_dir(), row[0], store::now_param(clock_)),
            Damage::changed);
  auto after = docs_->get(owner_, d.id);
  EXPECT_EQ(after->damage, "changed");
  EXPECT_EQ(after->verified_at, clock_.now_ms());
  std::ifstream in(docs_->path_of(d));
  std::string body((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(body, kPdf + "tampered") << "the file is never altered";
}

PETO_BOTH_BACKENDS(DocumentsTest);

}  // namespace
}  // namespace peto::media
