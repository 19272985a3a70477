// "Record as sent" on both backends: the CV and letter typeset for an
// application, kept as document versions with their SHA-256 and text, named
// on the timeline, frozen against later edits of the career record, and the
// same through the worker's errand; letters filled from the application.
#include "media/sent.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/token.h"
#include "domain/applications.h"
#include "media/documents.h"
#include "media/letter.h"
#include "media/uploads.h"
#include "tests/support/backends.h"
#include "tests/support/domain_fixture.h"

namespace peto::media {
namespace {

using nlohmann::json;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text of a PDF as poppler's pdftotext reads it.
std::string pdf_text(const std::string& path) {
  std::string out;
  peto::testing::run_command("pdftotext -enc UTF-8 '" + path + "' -", &out);
  return out;
}

class SentTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    config_.data_dir = dir().string();
    config_.background_work = false;
    application_ = new_application(owner_, "Acme *Labs*", "Backend engineer");
    cv_ = made("cvs", {{"name", "backend"}, {"full_name", "Ana Lima"}, {"town", "Lisbon"}});
    entry_ = made("career", {{"section", "experience"},
                             {"title", "Senior engineer"},
                             {"organisation", "Old Co"},
                             {"started_on", "2021-03-01"},
                             {"highlights", "- Cut the nightly run to *ten* minutes"}});
    letter_ = made("letters", {{"name", "Cover letter"},
                               {"purpose", "cover"},
                               {"cv_id", std::to_string(cv_)},
                               {"regarding", "Application for {role}"},
                               {"body",
                                "Dear {contact},\n\nI would like to join {company} on "
                                "{date}.\n\n- one\n- two"}});
  }

  std::int64_t made(const char* kind, std::map<std::string, std::string> values,
                    std::int64_t owner = 0) {
    domain::Input in;
    in.values = std::move(values);
    auto w = records().create(owner ? owner : owner_, domain::kind(kind), in);
    EXPECT_TRUE(std::holds_alternative<domain::Record>(w)) << kind;
    return std::holds_alternative<domain::Record>(w)
               ? std::get<domain::Record>(w)["id"].get<std::int64_t>()
               : 0;
  }
  std::int64_t new_application(std::int64_t owner, const std::string& company,
                               const std::string& role) {
    std::int64_t c = made("companies", {{"name", company}}, owner);
    std::int64_t l = made("listings", {{"role", role}, {"company_id", std::to_string(c)}}, owner);
    domain::Applications apps(records());
    return std::get<domain::Record>(apps.apply(owner, l))["id"].get<std::int64_t>();
  }
  Started sent(const SendRequest& request) {
    auto out = Sender(db(), clock_, config_).start(owner_, application_, request);
    EXPECT_TRUE(std::holds_alternative<Started>(out));
    return std::holds_alternative<Started>(out) ? std::get<Started>(out) : Started{};
  }

  Config config_;
  std::int64_t application_ = 0, cv_ = 0, entry_ = 0, letter_ = 0;
};

TEST_P(SentTest, KeepsTheCvAndLetterAsDocumentsNamedOnTheTimeline) {
  Started s = sent({cv_, letter_, "by e-mail"});
  EXPECT_EQ(s.task_id, 0);
  ASSERT_EQ(s.copies.size(), 2u);
  Documents docs(db(), clock_, config_);
  for (const SentCopy& c : s.copies) {
    auto d = docs.get(owner_, c.upload_id);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->content_type, "application/pdf");
    EXPECT_EQ(d->subject_kind, "application");
    EXPECT_EQ(d->subject_id, application_);
    EXPECT_EQ(d->version, 1);
    // The recorded SHA-256 is the file's.
    Sha256 sum;
    sum.update(read_file(docs.path_of(*d)));
    EXPECT_EQ(d->sha256, sum.hex_digest());
    auto ev = db().query("SELECT kind, upload_id, body FROM application_events WHERE id = ?",
                         {c.event_id});
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].text("kind"), "document_sent");
    EXPECT_EQ(ev[0].int_at("upload_id"), c.upload_id);
    EXPECT_EQ(ev[0].text("body"), "by e-mail");
  }
  auto cv = docs.get(owner_, s.copies[0].upload_id);
  EXPECT_EQ(cv->kind, "cv");
  EXPECT_EQ(cv->made_from, "cvs:" + std::to_string(cv_));
  EXPECT_NE(docs.source_text(owner_, cv->id)->find("Senior engineer, Old Co"), std::string::npos);
  auto letter = docs.get(owner_, s.copies[1].upload_id);
  EXPECT_EQ(letter->kind, "cover_letter");
  // The company's name is its text, not Markdown emphasis; no contact reads
  // as "Hiring Manager"; the date is written out.
  std::string text = *docs.source_text(owner_, letter->id);
  EXPECT_NE(text.find("Dear Hiring Manager,"), std::string::npos) << text;
  EXPECT_NE(text.find("I would like to join Acme *Labs* on January 15, 2027."), std::string::npos)
      << text;
  EXPECT_NE(text.find("Application for Backend engineer"), std::string::npos) << text;
  std::string pdf = pdf_text(docs.path_of(*letter));
  EXPECT_NE(pdf.find("Acme *Labs*"), std::string::npos) << pdf;
  EXPECT_NE(pdf.find("Ana Lima"), std::string::npos) << pdf;
}

TEST_P(SentTest, ASentCopyStaysByteIdenticalWhenTheCareerRecordChanges) {
  Started first = sent({cv_, std::nullopt, ""});
  Documents docs(db(), clock_, config_);
  auto kept = docs.get(owner_, first.copies.at(0).upload_id);
  std::string before = read_file(docs.path_of(*kept));
  std::string text_before = *docs.source_text(owner_, kept->id);

  domain::Input change;
  change.values = {{"title", "Principal engineer"}};
  ASSERT_TRUE(std::holds_alternative<domain::Record>(
      records().update(owner_, domain::kind("career"), entry_, change)));
  clock_.advance(std::chrono::hours(24));
  Started second = sent({cv_, std::nullopt, ""});

  EXPECT_EQ(read_file(docs.path_of(*kept)), before);
  EXPECT_EQ(*docs.source_text(owner_, kept->id), text_before);
  // The scrub reads the file against its SHA-256 and finds it whole.
  auto rows =
      db().query("SELECT " + std::string(kCheckColumns) + " FROM uploads WHERE id = ?", {kept->id});
  EXPECT_EQ(check_upload(db(), config_.media_dir(), rows[0], store::Value()), Damage::none);
  // The second send is the next version of the same document.
  auto again = docs.get(owner_, second.copies.at(0).upload_id);
  EXPECT_EQ(again->version, 2);
  EXPECT_EQ(again->replaces, kept->id);
  EXPECT_NE(docs.source_text(owner_, again->id)->find("Principal engineer"), std::string::npos);
  EXPECT_NE(read_file(docs.path_of(*again)), before);
}

// Errands run side by side on the worker: copies of one CV for one
// application made at once still number 1, 2, 3, 4, one chain.
TEST_P(SentTest, CopiesMadeAtOnceNeverShareAVersion) {
  std::vector<std::thread> threads;
  std::atomic<int> made{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      auto out = Sender(db(), clock_, config_).make(owner_, application_, {cv_, std::nullopt, ""});
      if (std::holds_alternative<Started>(out)) ++made;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(made.load(), 4);
  auto rows = db().query("SELECT version, replaces FROM uploads ORDER BY version");
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].int_at("version"), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(rows[i].is_null("replaces"), i == 0);
  }
}

TEST_P(SentTest, RefusesWithoutChangingAnything) {
  Sender sender(db(), clock_, config_);
  auto nothing = sender.start(owner_, application_, {});
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(nothing));
  EXPECT_TRUE(std::get<domain::FieldErrors>(nothing).has("form"));
  // Somebody else's CV, letter and application.
  std::int64_t theirs = made("cvs", {{"name", "x"}, {"full_name", "Ben"}}, other_);
  auto foreign = sender.start(owner_, application_, {theirs, std::nullopt, ""});
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(foreign));
  EXPECT_TRUE(std::get<domain::FieldErrors>(foreign).has("cv_id"));
  EXPECT_TRUE(std::holds_alternative<domain::NotFound>(
      sender.start(other_, application_, {std::nullopt, std::nullopt, ""})));
  auto long_note = sender.start(owner_, application_, {cv_, std::nullopt, std::string(2001, 'x')});
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(long_note));
  EXPECT_EQ(count("uploads"), 0);
  EXPECT_EQ(
      db().query("SELECT COUNT(*) FROM application_events WHERE kind = 'document_sent'")[0].int_at(
          0),
      0);
}

TEST_P(SentTest, TemplatesWithUnknownPlaceholdersAreRefusedNamingTheKnownOnes) {
  domain::Input in;
  in.values = {{"name", "Bad"}, {"body", "Dear {recruiter}, about {role} at {Company}"}};
  auto w = records().create(owner_, domain::kind("letters"), in);
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(w));
  const auto& e = std::get<domain::FieldErrors>(w);
  EXPECT_EQ(e.by_field.at("body"), "error_template");  // {Company} is not a name at all
  in.values["body"] = "Dear {recruiter}, about {role} at {employer}";
  w = records().create(owner_, domain::kind("letters"), in);
  ASSERT_TRUE(std::holds_alternative<domain::FieldErrors>(w));
  const auto& unknown = std::get<domain::FieldErrors>(w);
  EXPECT_EQ(unknown.by_field.at("body"), "error_placeholder");
  EXPECT_EQ(unknown.vars.at("body").at("unknown"), "{recruiter}, {employer}");
  EXPECT_EQ(unknown.vars.at("body").at("known"),
            "{company}, {role}, {contact}, {listing_url}, {date}");
  EXPECT_EQ(count("letters"), 1);  // the fixture's
}

TEST_P(SentTest, WithAWorkerItIsAnErrandThatReportsItsProgress) {
  config_.background_work = true;
  Started s = sent({cv_, letter_, ""});
  ASSERT_GT(s.task_id, 0);
  EXPECT_TRUE(s.copies.empty());
  Sender sender(db(), clock_, config_);
  auto waiting = sender.state(owner_, s.task_id);
  ASSERT_TRUE(waiting);
  EXPECT_EQ(waiting->state, "available");
  EXPECT_EQ(waiting->total, 2);
  EXPECT_EQ(waiting->application_id, application_);
  EXPECT_FALSE(sender.state(other_, s.task_id));  // somebody else's errand reads as absent

  engine::Task task;
  task.id = s.task_id;
  task.kind = kSendTask;
  task.owner = owner_;
  task.payload =
      db().query("SELECT payload FROM tasks WHERE id = ?", {s.task_id})[0].text("payload");
  auto result = sender.run_task(task);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(count("uploads"), 2);
  // The queue marks it done from the handler's result.
  db().query("UPDATE tasks SET state = 'done', result = ? WHERE id = ?", {*result, s.task_id});
  auto finished = sender.state(owner_, s.task_id);
  ASSERT_TRUE(finished);
  EXPECT_EQ(finished->done, 2);
  ASSERT_EQ(finished->copies.size(), 2u);
  EXPECT_EQ(finished->copies[0].version, 1);
}

TEST(LongDate, WritesTheDayInTheLettersLanguage) {
  EXPECT_EQ(typeset::long_date("2026-12-07", "en"), "December 7, 2026");
  EXPECT_EQ(typeset::long_date("2026-12-07", "fr"), "7 décembre 2026");
  EXPECT_EQ(typeset::long_date("2026-12-07", "de"), "7. Dezember 2026");
  EXPECT_EQ(typeset::long_date("2026-02-31x", "en"), "2026-02-31x");
  EXPECT_EQ(typeset::long_date("", "en"), "");
}

PETO_BOTH_BACKENDS(SentTest);

}  // namespace
}  // namespace peto::media
