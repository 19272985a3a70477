// The record pages over real HTTP: ownership on every route, forms that
// validate without half-saving, CSRF, escaping and the everyday flow.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "capture/kept_pages.h"
#include "connections/connections.h"
#include "core/timezone.h"
#include "domain/accounts.h"
#include "domain/api_tokens.h"
#include "domain/applications.h"
#include "domain/captures.h"
#include "domain/records.h"
#include "media/documents.h"
#include "media/exports.h"
#include "media/sent.h"
#include "tests/support/factory.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"

namespace peto::web {
namespace {

using peto::testing::ClientResponse;
using peto::testing::FormFields;
using peto::testing::SignedInClient;

class RecordsHttpTest : public peto::testing::SiteTest {
 protected:
  void SetUp() override {
    SiteTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    records_ = std::make_unique<domain::Records>(db(), clock_);
  }

  SignedInClient person(const std::string& email) {
    return SignedInClient::with_session(port(), site_->accounts(), email);
  }

  // One record of every kind for `owner`; kind name -> id.
  std::map<std::string, std::int64_t> one_of_each(std::int64_t owner) {
    std::map<std::string, std::int64_t> ids;
    auto make = [&](const std::string& kind, nlohmann::json values) {
      domain::Input in;
      in.values = std::move(values);
      auto made = records_->create(owner, domain::kind(kind), in);
      EXPECT_TRUE(std::holds_alternative<domain::Record>(made)) << kind;
      ids[kind] = std::get<domain::Record>(made)["id"].get<std::int64_t>();
    };
    make("companies", {{"name", "Acme"}});
    make("contacts", {{"name", "Zoe"}, {"company_id", std::to_string(ids["companies"])}});
    make("listings", {{"role", "Engineer"}, {"company_id", std::to_string(ids["companies"])}});
    domain::Applications apps(*records_);
    auto applied = apps.apply(owner, ids["listings"], "applied");
    ids["applications"] = std::get<domain::Record>(applied)["id"].get<std::int64_t>();
    std::string app = std::to_string(ids["applications"]);
    make("reminders",
         {{"title", "Call back"}, {"due_at", "2026-01-01T09:00"}, {"application_id", app}});
    make("interviews", {{"application_id", app}, {"starts_at", "2026-02-01T09:00"}});
    make("offers", {{"application_id", app}, {"base_pay", "50000"}, {"currency", "EUR"}});
    make("notes", {{"body", "Nice team"}, {"application_id", app}});
    make("tags", {{"name", "remote"}});
    make("career", {{"section", "experience"}, {"title", "Engineer"}});
    make("cvs", {{"name", "Backend"}, {"full_name", "Ana Lima"}});
    make("letters", {{"name", "Cover"},
                     {"cv_id", std::to_string(ids["cvs"])},
                     {"body", "Dear {contact},\n\nI would like to work at {company} as {role}."}});
    auto captured = domain::Captures(*records_).from_html(owner, "https://jobs.example/1",
                                                          "<h1>Engineer</h1>", "web");
    ids["captures"] = std::get<domain::Capture>(captured)["id"].get<std::int64_t>();
    capture::KeptPages(db(), clock_, config_.pages_dir())
        .keep(owner, ids["captures"], "<h1>Engineer</h1>");
    return ids;
  }

  // The href of a list page's rel="next" link, "" when it has none.
  static std::string next_link(const std::string& body) {
    auto next = body.find("rel=\"next\"");
    if (next == std::string::npos) return "";
    auto href = body.rfind("href=\"", next);
    std::string link = body.substr(href + 6, body.find('"', href + 6) - href - 6);
    // &amp; in the attribute stands for &.
    for (auto amp = link.find("&amp;"); amp != std::string::npos; amp = link.find("&amp;"))
      link.replace(amp, 5, "&");
    return link;
  }

  // A company of `owner` with nothing on it, for the trash.
  std::int64_t one_of_each_extra(std::int64_t owner) {
    domain::Input in;
    in.values = {{"name", "Gone"}};
    return std::get<domain::Record>(records_->create(owner, domain::kind("companies"), in))["id"]
        .get<std::int64_t>();
  }

  std::unique_ptr<domain::Records> records_;
};

// Every route that takes an id, on every method, answers 404 to somebody who
// does not own the record, and changes nothing.
TEST_P(RecordsHttpTest, AnotherPersonsRecordIsNotFoundOnEveryRoute) {
  SignedInClient ana = person("ana@example.com");
  SignedInClient bob = person("bob@example.com");
  auto ids = one_of_each(ana.account().id);
  std::string before = db().query("SELECT status, updated_at FROM applications")[0].text(0);
  std::int64_t events = count("application_events");
  // Routes whose {id} is not a record's, with what ana has there.
  domain::ApiTokens tokens(db(), clock_);
  auto connection =
      connections::Connections(db(), clock_, config_)
          .create(ana.account().id, "webhook", "Ana's",
                  {{"url", "https://localhost/hook"}, {"secret", "0123456789abcdef"}});
  const std::int64_t connection_id = std::get<connections::Connection>(connection).id;
  std::istringstream cv("%PDF-1.4\n%%EOF\n");
  const std::int64_t document_id =
      std::get<media::Document>(media::Documents(db(), clock_, config_)
                                    .create_from(ana.account().id, {.title = "CV"}, cv))
          .id;
  std::filesystem::create_directories(config_.exports_dir());
  std::ofstream(config_.exports_dir() + "/ana.zip") << "PK";
  // An errand of ana's application (a worker would typeset it).
  auto send = media::Sender(db(), clock_, config_)
                  .start(ana.account().id, ids["applications"], {ids["cvs"], std::nullopt, ""});
  const std::int64_t send_task = std::get<media::Started>(send).task_id;
  const std::int64_t archive_id = media::record_archive(
      db(), ana.account().id, std::nullopt, "ana.zip", "peto-export.zip", 2, clock_.now_ms());
  const std::map<std::string, std::int64_t> not_records = {
      {"/profile/tokens/{id}/revoke",
       std::get<domain::NewToken>(tokens.create(ana.account().id, "Ana's", {"read"})).token.id},
      {"/profile/connections/{id}", connection_id},
      {"/profile/connections/{id}/test", connection_id},
      {"/profile/connections/{id}/sync", connection_id},
      {"/profile/connections/{id}/delete", connection_id},
      {"/profile/connections/{id}/send-again", connection_id},
      {"/profile/connections/{id}/copy-existing", connection_id},
      {"/documents/{id}", document_id},
      {"/documents/{id}/file", document_id},
      {"/documents/{id}/versions", document_id},
      {"/documents/{id}/delete", document_id},
      {"/documents/{id}/copies/{copy_id}/send", document_id},
      {"/documents/{id}/compare", document_id},
      {"/profile/export/{id}/download", archive_id},
      {"/trash/{id}/restore", *records_->remove(ana.account().id, domain::kind("companies"),
                                                one_of_each_extra(ana.account().id))},
      // Ana's account: Bob is no administrator.
      {"/admin/people/{id}/recovery", ana.account().id},
      {"/admin/people/{id}/deactivate", ana.account().id},
      {"/admin/people/{id}/activate", ana.account().id},
      {"/admin/people/{id}/two-factor-reset", ana.account().id},
      {"/admin/people/{id}/delete", ana.account().id}};

  int checked = 0;
  for (const Route& route : router_.routes()) {
    auto at = route.pattern.find("{id}");
    if (at == std::string::npos) continue;
    std::string path = route.pattern;
    if (auto other = not_records.find(route.pattern); other != not_records.end()) {
      path.replace(at, 4, std::to_string(other->second));
      // A second parameter (a document's copy): one that would exist.
      if (auto copy = path.find("{copy_id}"); copy != std::string::npos) path.replace(copy, 9, "1");
    } else {
      std::string kind = route.segments.at(0);
      ASSERT_TRUE(ids.count(kind)) << "no record of kind " << kind << " for " << route.pattern;
      path.replace(at, 4, std::to_string(ids[kind]));
    }
    // A second parameter (Record as sent's errand): ana's.
    if (auto task = path.find("{task}"); task != std::string::npos)
      path.replace(task, 6, std::to_string(send_task));
    ClientResponse r = route.method == "GET" ? bob.get(path)
                                             : bob.post_form(path, {{"status", "rejected"},
                                                                    {"title", "x"},
                                                                    {"due_at", "2026-01-01T09:00"},
                                                                    {"body", "x"},
                                                                    {"summary", "x"},
                                                                    {"kind", "note"},
                                                                    {"name", "Evil"},
                                                                    {"role", "Evil"},
                                                                    {"company", "Evil"},
                                                                    {"state", "discarded"},
                                                                    {"outcome", "done"},
                                                                    {"done", "1"}});
    EXPECT_EQ(r.status, 404) << route.method << " " << path;
    // The owner still sees it.
    if (route.method == "GET") {
      EXPECT_EQ(ana.get(path).status, 200) << path;
    }
    ++checked;
  }
  EXPECT_GE(checked, 9 * 5);
  EXPECT_EQ(db().query("SELECT status FROM applications")[0].text(0), before);
  EXPECT_EQ(count("application_events"), events);
  for (const auto& [kind, id] : ids) {
    if (kind == "captures") continue;
    EXPECT_TRUE(records_->get(ana.account().id, domain::kind(kind), id)) << kind;
  }
  EXPECT_EQ((*domain::Captures(*records_).get(ana.account().id, ids["captures"]))["status"],
            "pending");
  EXPECT_EQ(count("companies"), 1);  // "Evil" was never made
  EXPECT_EQ(tokens.list(ana.account().id).size(), 1u);
}

TEST_P(RecordsHttpTest, ABadListingFormShowsEachErrorAndSavesNothing) {
  SignedInClient ana = person("ana@example.com");
  auto r = ana.post_form("/listings", {{"company", "Brand new company"},
                                       {"role", ""},
                                       {"url", "ftp://nope"},
                                       {"closes_on", "2026-02-30"},
                                       {"salary_min", "90000"},
                                       {"salary_max", "abc"},
                                       {"location", "Lisbon <script>"}});
  EXPECT_EQ(r.status, 422);
  for (const char* field : {"role", "url", "closes_on", "salary_max"})
    EXPECT_NE(r.body.find("id=\"f-" + std::string(field) + "-error\""), std::string::npos) << field;
  // What was typed is kept, escaped.
  EXPECT_NE(r.body.find("value=\"Lisbon &lt;script&gt;\""), std::string::npos);
  EXPECT_NE(r.body.find("value=\"Brand new company\""), std::string::npos);
  EXPECT_EQ(count("listings"), 0);
  EXPECT_EQ(count("companies"), 0);  // the company was not half-made

  auto order = ana.post_form("/listings", {{"company", "Acme"},
                                           {"role", "Engineer"},
                                           {"salary_min", "90000"},
                                           {"salary_max", "80000"}});
  EXPECT_EQ(order.status, 422);
  EXPECT_NE(order.body.find("f-salary_max-error"), std::string::npos);
  EXPECT_EQ(count("companies"), 0);
}

TEST_P(RecordsHttpTest, AFormWithoutTheCsrfTokenChangesNothing) {
  SignedInClient ana = person("ana@example.com");
  auto r = ana.request("POST", "/companies", "name=Acme",
                       {{"Content-Type", "application/x-www-form-urlencoded"}});
  EXPECT_EQ(r.status, 403);
  auto wrong = ana.request("POST", "/companies", "name=Acme&csrf=00ff",
                           {{"Content-Type", "application/x-www-form-urlencoded"}});
  EXPECT_EQ(wrong.status, 403);
  EXPECT_EQ(count("companies"), 0);
}

// A form's return_to is followed only to a path on this site; one a browser
// would read as another site (a TAB it strips, a backslash) goes to the
// record instead.
TEST_P(RecordsHttpTest, AFormReturnsOnlyToAPathOnThisSite) {
  SignedInClient ana = person("ana@example.com");
  auto back = ana.post_form("/companies", {{"name", "Acme"}, {"return_to", "/listings?page=2"}});
  ASSERT_EQ(back.status, 303) << back.body;
  EXPECT_EQ(back.header("Location"), "/listings?page=2");
  int n = 0;
  for (const char* evil : {"/\t/evil.example", "/\\evil.example", "//evil.example"}) {
    auto r = ana.post_form("/companies",
                           {{"name", "Other " + std::to_string(++n)}, {"return_to", evil}});
    ASSERT_EQ(r.status, 303) << r.body;
    EXPECT_TRUE(r.header("Location").starts_with("/companies/")) << r.header("Location");
  }
}

TEST_P(RecordsHttpTest, CompaniesAreMatchedByNameWhateverTheCaseAndAccents) {
  SignedInClient ana = person("ana@example.com");
  EXPECT_EQ(ana.post_form("/listings", {{"company", "Ståhl AB"}, {"role", "One"}}).status, 303);
  EXPECT_EQ(ana.post_form("/listings", {{"company", "  stahl ab "}, {"role", "Two"}}).status, 303);
  EXPECT_EQ(count("companies"), 1);
  auto dup = ana.post_form("/companies", {{"name", "STÅHL AB"}});
  EXPECT_EQ(dup.status, 422);
  EXPECT_NE(dup.body.find("f-name-error"), std::string::npos);
}

TEST_P(RecordsHttpTest, ListingToApplicationToReminderOnTheDashboard) {
  SignedInClient ana = person("ana@example.com");
  peto::testing::Factory(db(), clock_).without_auto_reminders(ana.account().id);
  auto made = ana.post_form(
      "/listings",
      {{"company", "Acme"}, {"role", "Data <engineer>"}, {"url", "https://example.com/jobs/1"}});
  ASSERT_EQ(made.status, 303);
  std::string listing = made.header("Location");
  auto page = ana.get(listing);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("Data &lt;engineer&gt;"), std::string::npos);
  EXPECT_EQ(page.body.find("Data <engineer>"), std::string::npos);

  auto applied = ana.post_form(listing + "/apply", {});
  ASSERT_EQ(applied.status, 303);
  std::string app = applied.header("Location");
  EXPECT_EQ(app.rfind("/applications/", 0), 0u);
  for (const char* status : {"applied", "screening", "interviewing"}) {
    auto moved = ana.post_form(app + "/status", {{"status", status}});
    ASSERT_EQ(moved.status, 303) << status;
  }
  auto shown = ana.get(app);
  EXPECT_NE(shown.body.find("data-testid=\"status\">Interviewing<"), std::string::npos);
  EXPECT_NE(shown.body.find("Screening → Interviewing"), std::string::npos);

  auto bad = ana.post_form(app + "/reminders", {{"title", "Call"}, {"due_at", "tomorrow"}});
  EXPECT_EQ(bad.status, 422);
  EXPECT_NE(bad.body.find("reminder-due-error"), std::string::npos);
  EXPECT_NE(bad.body.find("value=\"Call\""), std::string::npos);
  EXPECT_EQ(count("reminders"), 0);

  // The FakeClock's now is what "due" is measured against.
  std::string due = format_local(clock_.now_ms() - 3600 * 1000, "UTC", "%Y-%m-%dT%H:%M");
  ASSERT_EQ(ana.post_form(app + "/reminders", {{"title", "Call Zoe back"}, {"due_at", due}}).status,
            303);
  auto dash = ana.get("/");
  auto due_section = dash.body.find("Reminders due");
  ASSERT_NE(due_section, std::string::npos);
  EXPECT_NE(dash.body.find("Call Zoe back", due_section), std::string::npos);

  auto id = db().query("SELECT id FROM reminders")[0].int_at(0);
  EXPECT_EQ(ana.post_form("/reminders/" + std::to_string(id) + "/done", {{"done", "1"}}).status,
            303);
  EXPECT_EQ(ana.get("/").body.find("Call Zoe back"), std::string::npos);
}

// Found where a person looks: a listing by its company's name, an
// application by company or role; a listing added from a company's page
// names it, and the company field offers the person's companies.
TEST_P(RecordsHttpTest, SearchFindsCompaniesAndTheCompanyFieldSuggestsThem) {
  SignedInClient ana = person("ana@example.com");
  SignedInClient ben = person("ben@example.com");
  ASSERT_EQ(
      ana.post_form("/listings", {{"company", "Globex"}, {"role", "Platform engineer"}}).status,
      303);
  ASSERT_EQ(ana.post_form("/listings", {{"company", "Initech"}, {"role", "Data analyst"}}).status,
            303);
  ASSERT_EQ(ben.post_form("/listings", {{"company", "Globex"}, {"role", "Ben's own"}}).status, 303);
  const std::string globex = std::to_string(
      db().query("SELECT id FROM companies WHERE name = 'Globex' ORDER BY id")[0].int_at(0));
  auto found = ana.get("/listings?view=table&tab=all&q=globex");
  ASSERT_EQ(found.status, 200);
  EXPECT_NE(found.body.find("Platform engineer"), std::string::npos);
  EXPECT_EQ(found.body.find("Data analyst"), std::string::npos);
  EXPECT_EQ(found.body.find("Ben&#39;s own"), std::string::npos);
  EXPECT_EQ(found.body.find("Ben's own"), std::string::npos);

  const std::string listing = std::to_string(
      db().query("SELECT id FROM listings WHERE role = 'Data analyst'")[0].int_at(0));
  ASSERT_EQ(ana.post_form("/listings/" + listing + "/apply", {}).status, 303);
  auto apps = ana.get("/applications?view=table&tab=all&q=INITECH");
  ASSERT_EQ(apps.status, 200);
  EXPECT_NE(apps.body.find("role=\"search\""), std::string::npos) << "the table has a search box";
  EXPECT_NE(apps.body.find("Data analyst"), std::string::npos);
  EXPECT_EQ(ana.get("/applications?view=table&tab=all&q=globex").body.find("Data analyst"),
            std::string::npos);

  auto form = ana.get("/listings/new?company_id=" + globex);
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("name=\"company\" type=\"text\" value=\"Globex\""), std::string::npos)
      << "the company is filled in";
  EXPECT_NE(form.body.find("list=\"f-company-options\""), std::string::npos);
  EXPECT_NE(form.body.find("<option value=\"Initech\">"), std::string::npos);
  // Another person's company id fills in nothing.
  EXPECT_NE(ben.get("/listings/new?company_id=" + globex)
                .body.find("name=\"company\" type=\"text\" value=\"\""),
            std::string::npos);
}

// "Apply" offers both: the application was sent (today or on a past day),
// or a draft is started. Timeline entries can be dated in the past too.
TEST_P(RecordsHttpTest, IAppliedYesterdayAndADraftAreBothOffered) {
  SignedInClient ana = person("ana@example.com");
  auto listing_at = [&](const std::string& role) {
    auto made = ana.post_form("/listings", {{"company", "Acme"}, {"role", role}});
    EXPECT_EQ(made.status, 303);
    return made.header("Location");
  };
  const std::string sent = listing_at("Sent yesterday");
  auto page = ana.get(sent);
  EXPECT_NE(page.body.find("name=\"status\" value=\"applied\""), std::string::npos);
  EXPECT_NE(page.body.find("name=\"status\" value=\"draft\""), std::string::npos);
  const std::string today = local_date(clock_.now_ms(), "UTC");
  EXPECT_NE(page.body.find("name=\"applied_on\" type=\"date\" value=\"" + today + "\""),
            std::string::npos);

  const std::int64_t day = 24 * 3600 * 1000;
  const std::string yesterday = local_date(clock_.now_ms() - day, "UTC");
  auto future = ana.post_form(
      sent + "/apply",
      {{"status", "applied"}, {"applied_on", local_date(clock_.now_ms() + day, "UTC")}});
  EXPECT_EQ(future.status, 422);
  EXPECT_NE(future.body.find("in the future"), std::string::npos);
  EXPECT_NE(future.body.find("id=\"applied-on-error\""), std::string::npos)
      << "said by the date field, on the listing's page";
  EXPECT_EQ(count("applications"), 0) << "nothing half-made";

  auto applied = ana.post_form(sent + "/apply", {{"status", "applied"}, {"applied_on", yesterday}});
  ASSERT_EQ(applied.status, 303);
  auto row = db().query("SELECT id, status, applied_at FROM applications")[0];
  EXPECT_EQ(row.text("status"), "applied");
  EXPECT_EQ(row.int_at("applied_at"), *parse_local(yesterday + " 12:00", "UTC"));
  auto change = db().query(
      "SELECT occurred_at FROM application_events WHERE application_id = ? AND kind = "
      "'status_change'",
      {row.int_at("id")});
  ASSERT_EQ(change.size(), 1u);
  EXPECT_EQ(change[0].int_at("occurred_at"), row.int_at("applied_at"))
      << "the change happened then";

  const std::string drafted = listing_at("Still writing");
  ASSERT_EQ(ana.post_form(drafted + "/apply", {{"status", "draft"}}).status, 303);
  EXPECT_EQ(db().query("SELECT status FROM applications ORDER BY id DESC")[0].text("status"),
            "draft");

  // Yesterday's call, added today.
  const std::string app = applied.header("Location");
  const std::string call = format_local(clock_.now_ms() - day, "UTC", "%Y-%m-%dT%H:%M");
  ASSERT_EQ(
      ana.post_form(app + "/events",
                    {{"kind", "call"}, {"summary", "Recruiter called"}, {"occurred_at", call}})
          .status,
      303);
  EXPECT_EQ(db().query("SELECT occurred_at FROM application_events WHERE summary = "
                       "'Recruiter called'")[0]
                .int_at(0),
            *parse_local(call, "UTC"));
  for (const std::string& when :
       {format_local(clock_.now_ms() + day, "UTC", "%Y-%m-%dT%H:%M"), std::string("yesterday")}) {
    auto refused = ana.post_form(app + "/events",
                                 {{"kind", "call"}, {"summary", "Not yet"}, {"occurred_at", when}});
    EXPECT_EQ(refused.status, 422) << when;
    EXPECT_NE(refused.body.find("id=\"event-occurred-error\""), std::string::npos) << when;
  }
  EXPECT_TRUE(db().query("SELECT 1 FROM application_events WHERE summary = 'Not yet'").empty());
}

// Every kind of record a person keeps is one click from every page.
TEST_P(RecordsHttpTest, TheNavigationReachesEveryKindOfRecord) {
  SignedInClient ana = person("ana@example.com");
  auto page = ana.get("/");
  const auto nav =
      page.body.substr(page.body.find("<nav"), page.body.find("</nav>") - page.body.find("<nav"));
  for (const char* href :
       {"/listings", "/applications", "/interviews", "/offers", "/reminders", "/companies",
        "/contacts", "/documents", "/notes", "/tags", "/career", "/cvs"})
    EXPECT_NE(nav.find(std::string("href=\"") + href + "\""), std::string::npos) << href;
  EXPECT_NE(page.body.find("class=\"site-account__email\" href=\"/profile\""), std::string::npos);
  auto notes = ana.get("/notes");
  EXPECT_NE(notes.body.find("href=\"/notes\" aria-current=\"page\""), std::string::npos);
}

TEST_P(RecordsHttpTest, AnInterviewDownloadsAsACalendarFile) {
  SignedInClient ana = person("ana@example.com");
  auto ids = one_of_each(ana.account().id);
  auto r = ana.get("/interviews/" + std::to_string(ids["interviews"]) + "/event.ics");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("Content-Type").rfind("text/calendar", 0), 0u);
  EXPECT_NE(r.body.find("BEGIN:VEVENT\r\n"), std::string::npos);
  EXPECT_NE(r.body.find("DTSTART:20260201T090000Z"), std::string::npos);
  EXPECT_NE(r.body.find("SUMMARY:Interview: Engineer at Acme\r\n"), std::string::npos)
      << "the title names the company";
}

// The career record is written once; a CV picks from it, shows a preview in
// its page and downloads as a PDF and as plain text, for its owner alone.
TEST_P(RecordsHttpTest, ACvIsMadeFromTheCareerRecordAndDownloadsAsPdfAndText) {
  SignedInClient ana = person("ana@example.com");
  SignedInClient ben = person("ben@example.com");
  auto entry = ana.post_form("/career", {{"section", "experience"},
                                         {"title", "Senior engineer <script>"},
                                         {"organisation", "Acme"},
                                         {"started_on", "2021-03-01"},
                                         {"highlights", "- Cut *costs*\n- Shipped"}});
  ASSERT_EQ(entry.status, 303) << entry.body;
  auto made = ana.post_form("/cvs", {{"name", "Backend"},
                                     {"full_name", "Ana Lima"},
                                     {"town", "Lisbon"},
                                     {"street", "Rua Augusta 10"},
                                     {"language", "en"},
                                     {"theme", "classic"},
                                     {"page_size", "a4"},
                                     {"entry_order", "date"},
                                     {"with_references", "no"},
                                     {"with_street", "no"}});
  ASSERT_EQ(made.status, 303) << made.body;
  const std::string cv = made.header("Location");
  ASSERT_EQ(cv.rfind("/cvs/", 0), 0u) << cv;

  auto page = ana.get(cv);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<b>Senior engineer &lt;script&gt;</b>, Acme"), std::string::npos);
  EXPECT_NE(page.body.find("<li>Cut <i>costs</i></li>"), std::string::npos);
  EXPECT_EQ(page.body.find("Rua Augusta"), page.body.rfind("Rua Augusta"))
      << "the street is a field of the CV, but not on the CV unless asked for";
  EXPECT_NE(page.body.find("href=\"" + cv + "/cv.pdf\""), std::string::npos);

  auto pdf = ana.get(cv + "/cv.pdf");
  ASSERT_EQ(pdf.status, 200);
  EXPECT_EQ(pdf.header("Content-Type"), "application/pdf");
  ASSERT_EQ(pdf.body.rfind("%PDF-", 0), 0u);
  std::filesystem::path file = dir() / "cv.pdf";
  std::ofstream(file, std::ios::binary) << pdf.body;
  std::string text;
  ASSERT_EQ(peto::testing::run_command("pdftotext -enc UTF-8 '" + file.string() + "' -", &text), 0);
  EXPECT_NE(text.find("Senior engineer <script>, Acme"), std::string::npos) << text;
  EXPECT_EQ(text.find("Rua Augusta"), std::string::npos) << text;

  auto plain = ana.get(cv + "/cv.txt");
  ASSERT_EQ(plain.status, 200);
  EXPECT_NE(plain.body.find("Senior engineer <script>, Acme — 03/2021 – now\n- Cut costs\n"),
            std::string::npos)
      << plain.body;

  EXPECT_EQ(ben.get(cv + "/cv.pdf").status, 404);
  EXPECT_EQ(ben.get(cv + "/cv.txt").status, 404);
  EXPECT_EQ(ben.get(cv).status, 404);
}

// A letter template is checked when saved, previewed filled in for one of
// the person's applications, and recorded as sent with a CV: both kept as
// PDFs of the application's, named on its timeline, and a later copy
// compared line by line with the first.
TEST_P(RecordsHttpTest, LettersAreFilledInAndWhatWasSentIsKeptAndCompared) {
  SignedInClient ana = person("ana@example.com");
  SignedInClient ben = person("ben@example.com");
  auto ids = one_of_each(ana.account().id);
  const std::string app = "/applications/" + std::to_string(ids["applications"]);
  const std::string letter = "/letters/" + std::to_string(ids["letters"]);

  auto refused = ana.post_form("/letters", {{"name", "Bad"},
                                            {"purpose", "cover"},
                                            {"language", "en"},
                                            {"theme", "classic"},
                                            {"page_size", "a4"},
                                            {"body", "Dear {recruiter},"}});
  ASSERT_EQ(refused.status, 422);
  EXPECT_NE(refused.body.find("Unknown placeholder {recruiter}. The placeholders are {company}, "
                              "{role}, {contact}, {listing_url}, {date}."),
            std::string::npos)
      << refused.body;

  auto preview = ana.get(letter + "?application=" + std::to_string(ids["applications"]));
  ASSERT_EQ(preview.status, 200);
  EXPECT_NE(preview.body.find("I would like to work at Acme as Engineer."), std::string::npos)
      << preview.body;
  auto example = ana.get(letter);
  EXPECT_NE(example.body.find("I would like to work at Example Company"), std::string::npos);
  auto pdf = ana.get(letter + "/letter.pdf?application=" + std::to_string(ids["applications"]));
  ASSERT_EQ(pdf.status, 200);
  EXPECT_EQ(pdf.header("Content-Type"), "application/pdf");
  std::filesystem::path file = dir() / "letter.pdf";
  std::ofstream(file, std::ios::binary) << pdf.body;
  std::string text;
  ASSERT_EQ(peto::testing::run_command("pdftotext -enc UTF-8 '" + file.string() + "' -", &text), 0);
  EXPECT_NE(text.find("Dear Hiring Manager,"), std::string::npos) << text;
  EXPECT_EQ(ben.get(letter).status, 404);
  EXPECT_EQ(ben.get(letter + "/letter.pdf").status, 404);

  // Made at once when no worker runs.
  config_.background_work = false;
  auto page = ana.get(app);
  EXPECT_NE(page.body.find("action=\"" + app + "/send\""), std::string::npos);
  auto sent = ana.post_form(app + "/send", {{"cv_id", std::to_string(ids["cvs"])},
                                            {"letter_id", std::to_string(ids["letters"])},
                                            {"note", "by e-mail"}});
  ASSERT_EQ(sent.status, 303) << sent.body;
  EXPECT_EQ(sent.header("Location"), app);
  // The flash message the next page shows.
  auto shown = [&](const ClientResponse& answer) {
    return ana
        .request("GET", app, "",
                 {{"Cookie", "peto_flash=" + peto::testing::cookie_of(answer, "peto_flash")}})
        .body;
  };
  EXPECT_NE(shown(sent).find("Kept 2 document(s) as sent"), std::string::npos);
  page = ana.get(app);
  EXPECT_NE(page.body.find("Sent: Ana Lima — Backend (version 1)"), std::string::npos);
  EXPECT_NE(page.body.find("Sent: Cover (version 1)"), std::string::npos);
  auto nothing = ana.post_form(app + "/send", {{"cv_id", ""}, {"letter_id", ""}});
  ASSERT_EQ(nothing.status, 303);
  EXPECT_NE(shown(nothing).find("Choose a CV, a letter or both."), std::string::npos);
  EXPECT_EQ(ben.post_form(app + "/send", {{"cv_id", std::to_string(ids["cvs"])}}).status, 404);

  // The career changes; the second copy is version 2, and the page compares.
  auto entry = "/career/" + std::to_string(ids["career"]);
  ASSERT_EQ(ana.post_form(entry, {{"section", "experience"}, {"title", "Lead engineer"}}).status,
            303);
  ASSERT_EQ(ana.post_form(app + "/send", {{"cv_id", std::to_string(ids["cvs"])}}).status, 303);
  auto rows =
      db().query("SELECT id, version FROM uploads WHERE made_from = ? ORDER BY version DESC",
                 {"cvs:" + std::to_string(ids["cvs"])});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].int_at("version"), 2);
  const std::string doc = "/documents/" + std::to_string(rows[0].int_at("id"));
  EXPECT_NE(ana.get(doc).body.find("href=\"" + doc + "/compare\""), std::string::npos);
  auto compared = ana.get(doc + "/compare");
  ASSERT_EQ(compared.status, 200);
  EXPECT_NE(compared.body.find("diff__line--removed\"><span class=\"visually-hidden\">Removed: "
                               "</span>− Engineer</div>"),
            std::string::npos)
      << compared.body;
  EXPECT_NE(compared.body.find("diff__line--added\"><span class=\"visually-hidden\">Added: "
                               "</span>+ Lead engineer</div>"),
            std::string::npos);
  EXPECT_EQ(ben.get(doc + "/compare").status, 404);

  // With a worker, an errand whose page refreshes itself until it is done.
  config_.background_work = true;
  auto queued = ana.post_form(app + "/send", {{"letter_id", std::to_string(ids["letters"])}});
  ASSERT_EQ(queued.status, 303);
  const std::string errand = queued.header("Location");
  ASSERT_EQ(errand.rfind(app + "/send/", 0), 0u) << errand;
  auto waiting = ana.get(errand);
  ASSERT_EQ(waiting.status, 200);
  EXPECT_EQ(waiting.header("Refresh"), "2");
  EXPECT_NE(waiting.body.find("0 of 1 made"), std::string::npos);
  EXPECT_EQ(ben.get(errand).status, 404);
}

TEST_P(RecordsHttpTest, ListsArePaginated) {
  SignedInClient ana = person("ana@example.com");
  for (int i = 0; i < 53; ++i) {
    domain::Input in;
    in.values = {{"name", "Company " + std::to_string(i)}};
    ASSERT_TRUE(std::holds_alternative<domain::Record>(
        records_->create(ana.account().id, domain::kind("companies"), in)));
  }
  auto first = ana.get("/companies");
  ASSERT_EQ(first.status, 200);
  const std::string link = next_link(first.body);
  ASSERT_FALSE(link.empty());
  auto second = ana.get(link);
  ASSERT_EQ(second.status, 200);
  EXPECT_NE(second.body.find(">Company 0<"), std::string::npos);
  EXPECT_EQ(first.body.find(">Company 0<"), std::string::npos);
  EXPECT_EQ(second.body.find("rel=\"next\""), std::string::npos);
}

// A field over its limit says the limit, and every field says its own
// problem at once.
TEST_P(RecordsHttpTest, ATooLongFieldSaysItsLimit) {
  SignedInClient ana = person("ana@example.com");
  auto r = ana.post_form("/companies", {{"name", std::string(201, 'a')},
                                        {"website", "not a url"},
                                        {"location", std::string(201, 'b')}});
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.find("This is too long: keep it to 200 characters."), std::string::npos);
  for (const char* field : {"name", "website", "location"})
    EXPECT_NE(r.body.find("id=\"f-" + std::string(field) + "-error\""), std::string::npos) << field;
  EXPECT_NE(r.body.find("maxlength=\"200\""), std::string::npos);
  EXPECT_EQ(count("companies"), 0);
}

// Tables name what a record points to and do not repeat its title; the
// applications table has a Company column; a record page names its contact.
TEST_P(RecordsHttpTest, TablesAndPagesShowNamesWhereIdsWere) {
  SignedInClient ana = person("ana@example.com");
  auto ids = one_of_each(ana.account().id);
  domain::Input in;
  in.partial = true;
  in.values = {{"contact_id", std::to_string(ids["contacts"])}};
  ASSERT_TRUE(std::holds_alternative<domain::Record>(
      records_->update(ana.account().id, domain::kind("applications"), ids["applications"], in)));

  auto companies = ana.get("/companies?view=table");
  const std::string name_heading = "sort=name\">Name</a></th>";
  const auto first = companies.body.find(name_heading);
  EXPECT_NE(first, std::string::npos);
  EXPECT_EQ(companies.body.find(">Name</a></th>", first + name_heading.size()), std::string::npos)
      << "the title is not a column twice";
  auto apps = ana.get("/applications?view=table");
  EXPECT_NE(apps.body.find("sort=company_name\">Company</a></th>"), std::string::npos) << apps.body;
  EXPECT_NE(apps.body.find("href=\"/companies/" + std::to_string(ids["companies"]) + "\">Acme<"),
            std::string::npos);
  auto app = ana.get("/applications/" + std::to_string(ids["applications"]));
  EXPECT_NE(app.body.find(">Zoe</a>"), std::string::npos) << "the main contact by name";
  auto notes = ana.get("/notes");
  EXPECT_NE(notes.body.find(">Engineer</a>"), std::string::npos) << "a note names its application";
  EXPECT_EQ(notes.body.find(">#"), std::string::npos);
}

// Outstanding reminders come soonest first, the overdue ones marked, and
// the next page goes on in that order.
TEST_P(RecordsHttpTest, RemindersComeSoonestFirstWithTheOverdueMarked) {
  SignedInClient ana = person("ana@example.com");
  auto remind = [&](const std::string& title, const std::string& due) {
    domain::Input in;
    in.values = {{"title", title}, {"due_at", due}};
    ASSERT_TRUE(std::holds_alternative<domain::Record>(
        records_->create(ana.account().id, domain::kind("reminders"), in)));
  };
  remind("Later", "2027-03-01T09:00");
  remind("Call Zoe", "2027-01-10T09:00");
  remind("Soon", "2027-01-16T09:00");
  auto page = ana.get("/reminders");
  ASSERT_EQ(page.status, 200);
  auto overdue = page.body.find(">Call Zoe</a>");
  auto soon = page.body.find(">Soon</a>");
  auto later = page.body.find(">Later</a>");
  ASSERT_NE(overdue, std::string::npos);
  EXPECT_LT(overdue, soon);
  EXPECT_LT(soon, later);
  EXPECT_NE(page.body.find("badge--overdue", overdue), std::string::npos);
  EXPECT_LT(page.body.find("badge--overdue", overdue), soon) << "only the overdue one is marked";
  EXPECT_EQ(page.body.find("badge--overdue", soon), std::string::npos);

  for (int i = 0; i < 50; ++i) remind("Filler " + std::to_string(i), "2027-02-01T09:00");
  auto first = ana.get("/reminders");
  EXPECT_EQ(first.body.find(">Later</a>"), std::string::npos) << "the latest is on the next page";
  const std::string link = next_link(first.body);
  ASSERT_FALSE(link.empty());
  auto second = ana.get(link);
  EXPECT_NE(second.body.find(">Later</a>"), std::string::npos) << link;
  EXPECT_EQ(second.body.find(">Call Zoe</a>"), std::string::npos);
}

// A reminder written on the form may be due on a whole day or on none: the
// list shows the day or "No date", undated ones last and under their own tab,
// and a time with a day is refused with the reason next to the field.
TEST_P(RecordsHttpTest, RemindersDueOnADayOrWithoutADate) {
  SignedInClient ana = person("ana@example.com");
  ASSERT_EQ(
      ana.post_form("/reminders", {{"title", "Read about Acme"}, {"due_at", ""}, {"due_on", ""}})
          .status,
      303);
  ASSERT_EQ(ana.post_form("/reminders",
                          {{"title", "Forms due"}, {"due_at", ""}, {"due_on", "2027-01-20"}})
                .status,
            303);
  auto both = ana.post_form(
      "/reminders", {{"title", "Call"}, {"due_at", "2027-01-20T09:00"}, {"due_on", "2027-01-21"}});
  EXPECT_EQ(both.status, 422);
  EXPECT_NE(both.body.find("Give a time or a whole day, not both"), std::string::npos);
  EXPECT_NE(both.body.find("aria-describedby=\"f-due_on-hint f-due_on-error\""), std::string::npos)
      << "the hint and the reason, both read out with the field";
  EXPECT_EQ(count("reminders"), 2);

  auto list = ana.get("/reminders");
  auto dated = list.body.find(">Forms due</a>");
  auto undated_row = list.body.find(">Read about Acme</a>");
  ASSERT_NE(dated, std::string::npos) << list.body;
  ASSERT_NE(undated_row, std::string::npos);
  EXPECT_LT(dated, undated_row) << "undated last";
  EXPECT_NE(list.body.find(">2027-01-20<", dated), std::string::npos) << "the day, no time";
  EXPECT_NE(list.body.find(">No date<", undated_row), std::string::npos);
  auto undated = ana.get("/reminders?tab=undated");
  EXPECT_NE(undated.body.find(">Read about Acme</a>"), std::string::npos);
  EXPECT_EQ(undated.body.find(">Forms due</a>"), std::string::npos);

  // The form of an all-day reminder shows its day and an empty time.
  auto id = db().query("SELECT id FROM reminders WHERE title = 'Forms due'")[0].int_at(0);
  auto edit = ana.get("/reminders/" + std::to_string(id) + "/edit");
  EXPECT_NE(edit.body.find("value=\"2027-01-20\""), std::string::npos) << edit.body;
  EXPECT_EQ(edit.body.find("value=\"2027-01-20T00:00\""), std::string::npos);
}

// Cancel on a form opened from another page goes back there.
TEST_P(RecordsHttpTest, CancelGoesBackWhereTheFormWasOpened) {
  SignedInClient ana = person("ana@example.com");
  auto ids = one_of_each(ana.account().id);
  const std::string app = "/applications/" + std::to_string(ids["applications"]);
  auto form = ana.get("/interviews/new?application_id=" + std::to_string(ids["applications"]) +
                      "&return_to=" + app);
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("href=\"" + app + "\">Cancel<"), std::string::npos) << form.body;
  auto plain = ana.get("/interviews/new");
  EXPECT_NE(plain.body.find("href=\"/interviews\">Cancel<"), std::string::npos);
}

// Web addresses, e-mail addresses and phone numbers open in what handles them.
TEST_P(RecordsHttpTest, AddressesAndNumbersAreLinks) {
  SignedInClient ana = person("ana@example.com");
  auto note = ana.post_form(
      "/notes",
      {{"body", "See https://jobs.example/x-1. Mail zoe@acme.example,\ncall +351912345678!"}});
  ASSERT_EQ(note.status, 303);
  auto page = ana.get(note.header("Location"));
  EXPECT_NE(page.body.find("<a href=\"https://jobs.example/x-1\" rel=\"noopener noreferrer "
                           "nofollow\">https://jobs.example/x-1</a>. Mail"),
            std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("href=\"mailto:zoe@acme.example\""), std::string::npos);
  EXPECT_NE(page.body.find("href=\"tel:+351912345678\""), std::string::npos);
  auto contact = ana.post_form(
      "/contacts", {{"name", "Zoe"}, {"email", "zoe@acme.example"}, {"phone", "+351 912 345 678"}});
  ASSERT_EQ(contact.status, 303);
  auto shown = ana.get(contact.header("Location"));
  EXPECT_NE(shown.body.find("href=\"mailto:zoe@acme.example\""), std::string::npos);
  EXPECT_NE(shown.body.find("href=\"tel:+351912345678\""), std::string::npos);
}

PETO_BOTH_BACKENDS(RecordsHttpTest);

}  // namespace
}  // namespace peto::web
