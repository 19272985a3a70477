// The calendar feed over real HTTP: made on the profile, its address serves
// the person's interviews and open reminders (and nobody else's) without a
// session; replacing or turning it off stops the old address; made-up
// tokens, inactive accounts and forms without the CSRF token get nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "domain/applications.h"
#include "domain/cards.h"
#include "domain/records.h"
#include "formats/ical.h"
#include "tests/support/factory.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

using nlohmann::json;
using peto::testing::ClientResponse;
using peto::testing::form_body;
using peto::testing::http_request;
using peto::testing::SignedInClient;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Every feed path ("/feeds/<64 hex>/calendar.ics") on a page.
std::vector<std::string> feed_paths_in(const std::string& html) {
  static const std::regex path("/feeds/[0-9a-f]{64}/calendar\\.ics");
  std::vector<std::string> out;
  for (std::sregex_iterator it(html.begin(), html.end(), path), end; it != end; ++it)
    out.push_back(it->str());
  return out;
}

// Each VEVENT of a VCALENDAR, read on its own through formats::read_calendar.
std::vector<formats::CalItem> events_of(const std::string& ics) {
  std::vector<formats::CalItem> out;
  for (std::size_t at = ics.find("BEGIN:VEVENT"); at != std::string::npos;
       at = ics.find("BEGIN:VEVENT", at + 1)) {
    std::size_t end = ics.find("END:VEVENT\r\n", at);
    if (end == std::string::npos) {
      ADD_FAILURE() << "an unfinished VEVENT";
      break;
    }
    std::string one =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + ics.substr(at, end + 12 - at) + "END:VCALENDAR\r\n";
    auto read = formats::read_calendar(one, "UTC");
    if (auto* why = std::get_if<std::string>(&read)) {
      ADD_FAILURE() << *why;
      continue;
    }
    out.push_back(std::get<formats::CalItem>(read));
  }
  return out;
}

class FeedPagesTest : public peto::testing::SignedInPairTest {
 protected:
  void SetUp() override {
    SignedInPairTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    config_.public_url = "https://peto.example/";
    records_ = std::make_unique<domain::Records>(db(), clock_);
  }

  json make(std::int64_t owner, const std::string& kind, json values) {
    domain::Input in;
    in.values = std::move(values);
    auto made = records_->create(owner, domain::kind(kind), in);
    EXPECT_TRUE(std::holds_alternative<domain::Record>(made)) << kind;
    return std::holds_alternative<domain::Record>(made) ? std::get<domain::Record>(made) : json();
  }

  // An application for `role` at a company, an interview, an open and a done
  // reminder, all of `owner`. Returns {interview, open, done}.
  std::vector<json> calendar_of(std::int64_t owner, const std::string& role) {
    peto::testing::Factory(db(), clock_).without_auto_reminders(owner);
    json company = make(owner, "companies", {{"name", "Acme " + role}});
    json listing = make(owner, "listings",
                        {{"role", role}, {"company_id", std::to_string(company["id"].get<int>())}});
    domain::Applications apps(*records_);
    auto applied = apps.apply(owner, listing["id"].get<std::int64_t>(), "applied");
    std::string app = std::to_string(std::get<domain::Record>(applied)["id"].get<std::int64_t>());
    json interview = make(owner, "interviews",
                          {{"application_id", app},
                           {"starts_at", "2027-02-01T09:00"},
                           {"place", "Room 4; Floor 2, " + role}});
    json open =
        make(owner, "reminders", {{"title", "Call back, " + role}, {"due_at", "2027-01-20T10:00"}});
    json done = make(owner, "reminders",
                     {{"title", "Done already " + role}, {"due_at", "2027-01-10T10:00"}});
    db().query("UPDATE reminders SET done_at = ? WHERE id = ?",
               {clock_.now_ms(), done["id"].get<std::int64_t>()});
    return {interview, open, done};
  }

  // Makes (or replaces) the feed through the profile's form; its path.
  std::string create_feed(SignedInClient& who) {
    auto made = who.post_form("/profile/feed", {});
    EXPECT_EQ(made.status, 200) << made.body;
    auto paths = feed_paths_in(made.body);
    EXPECT_EQ(paths.size(), 1u) << made.body;
    return paths.empty() ? std::string("/feeds/none/calendar.ics") : paths[0];
  }

  std::unique_ptr<domain::Records> records_;
};

TEST_P(FeedPagesTest, TheAddressServesInterviewsAndOpenRemindersOfItsOwnerOnly) {
  auto ana = calendar_of(ana_->account().id, "Backend engineer");
  auto ben = calendar_of(ben_->account().id, "Secret role");
  (void)create_feed(*ben_);

  auto made = ana_->post_form("/profile/feed", {});
  ASSERT_EQ(made.status, 200) << made.body;
  EXPECT_EQ(made.header("Cache-Control"), "no-store");
  EXPECT_EQ(made.header("Referrer-Policy"), "no-referrer");
  EXPECT_TRUE(contains(made.body, "it will not be shown again")) << made.body;
  EXPECT_TRUE(contains(made.body, "Keep this address secret"));
  auto paths = feed_paths_in(made.body);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_TRUE(contains(made.body, "value=\"https://peto.example" + paths[0] + "\""))
      << "the full address, from the public URL";
  EXPECT_TRUE(contains(made.body, "readonly"));

  auto feed = http_request(port(), "GET", paths[0]);  // no session
  ASSERT_EQ(feed.status, 200) << feed.body;
  EXPECT_EQ(feed.header("Content-Type"), "text/calendar; charset=utf-8");
  EXPECT_EQ(feed.header("Cache-Control"), "private, max-age=300");
  EXPECT_EQ(feed.header("Referrer-Policy"), "no-referrer");
  EXPECT_FALSE(contains(feed.body, "Secret role")) << "nothing of another account";

  auto events = events_of(feed.body);
  ASSERT_EQ(events.size(), 2u) << feed.body;
  auto uid =
      db().query("SELECT uid FROM interviews WHERE id = ?", {ana[0]["id"].get<std::int64_t>()});
  const formats::CalItem& interview = events[0].uid == uid[0].text(0) ? events[0] : events[1];
  const formats::CalItem& reminder = &interview == &events[0] ? events[1] : events[0];
  EXPECT_EQ(interview.uid, uid[0].text(0)) << "the interview's own uid";
  EXPECT_EQ(interview.summary, "Interview: Backend engineer at Acme Backend engineer");
  EXPECT_EQ(interview.location, "Room 4; Floor 2, Backend engineer");
  EXPECT_EQ(interview.start, ana[0]["starts_at"].get<std::int64_t>());
  EXPECT_EQ(interview.end, *interview.start + 3600000);

  EXPECT_EQ(reminder.uid, domain::record_uid("reminders", ana[1]));
  EXPECT_EQ(reminder.uid, "peto-reminder-" + std::to_string(ana[1]["id"].get<std::int64_t>()) +
                              "-" + std::to_string(ana[1]["created_at"].get<std::int64_t>()));
  EXPECT_EQ(reminder.type, formats::CalItem::Type::event);
  EXPECT_EQ(reminder.summary, "Call back, Backend engineer");
  EXPECT_EQ(reminder.start, ana[1]["due_at"].get<std::int64_t>());
  EXPECT_EQ(reminder.end, *reminder.start + 15 * 60000);
  EXPECT_FALSE(contains(feed.body, "Done already")) << "done reminders stay out";

  // A later fetch: the same entries, so calendars update instead of adding.
  clock_.advance(std::chrono::hours(2));
  auto again = events_of(http_request(port(), "GET", paths[0]).body);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].uid, events[0].uid);
  EXPECT_EQ(again[1].uid, events[1].uid);
}

TEST_P(FeedPagesTest, TheProfileShowsTheSectionButNeverTheAddress) {
  auto before = ana_->get("/profile");
  ASSERT_EQ(before.status, 200);
  EXPECT_TRUE(contains(before.body, "<h2 id=\"profile-feed-title\">Calendar feed</h2>"))
      << before.body;
  EXPECT_TRUE(contains(before.body, "You have no calendar feed address."));
  EXPECT_TRUE(contains(before.body, "action=\"/profile/feed\""));
  EXPECT_TRUE(contains(before.body, ">Create a feed address</button>"));
  EXPECT_FALSE(contains(before.body, "/profile/feed/revoke"));

  std::string path = create_feed(*ana_);
  auto after = ana_->get("/profile");
  ASSERT_EQ(after.status, 200);
  EXPECT_TRUE(feed_paths_in(after.body).empty()) << "shown once, on the answer that made it";
  EXPECT_TRUE(contains(after.body, "Your feed address has worked since 2027-01-15")) << after.body;
  EXPECT_TRUE(contains(after.body, ">Replace the address</button>"));
  EXPECT_TRUE(contains(after.body, "action=\"/profile/feed/revoke\""));
  // Every POST form of the page carries the CSRF token.
  std::size_t forms = 0, tokens = 0;
  for (std::size_t at = after.body.find("method=\"post\""); at != std::string::npos;
       at = after.body.find("method=\"post\"", at + 1))
    ++forms;
  for (std::size_t at = after.body.find("name=\"csrf\""); at != std::string::npos;
       at = after.body.find("name=\"csrf\"", at + 1))
    ++tokens;
  EXPECT_EQ(forms, tokens);
  EXPECT_FALSE(contains(ana_->get("/profile/feed").body, path));

  // In French too.
  domain::Account french = ana_->account();
  french.language = "fr";
  french.time_zone = "Europe/Paris";
  ASSERT_TRUE(site_->accounts().update_profile(french.id, french).empty());
  auto fr = ana_->get("/profile");
  EXPECT_TRUE(contains(fr.body, "Votre adresse de flux fonctionne depuis le 2027-01-15 09:00."))
      << "in the profile's language and time zone";
}

TEST_P(FeedPagesTest, RevokingAnswers404) {
  calendar_of(ana_->account().id, "Engineer");
  std::string path = create_feed(*ana_);
  ASSERT_EQ(http_request(port(), "GET", path).status, 200);
  auto off = ana_->post_form("/profile/feed/revoke", {});
  EXPECT_EQ(off.status, 303);
  EXPECT_EQ(off.header("Location"), "/profile/feed?revoked=1");
  auto gone = http_request(port(), "GET", path);
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(gone.header("Content-Type").rfind("text/plain", 0), 0u);
  EXPECT_TRUE(contains(gone.body, "no calendar feed at this address")) << gone.body;
  EXPECT_FALSE(contains(gone.body, "BEGIN:VCALENDAR"));
  EXPECT_EQ(count("calendar_feeds"), 0);
  auto page = ana_->get("/profile/feed?revoked=1");
  EXPECT_TRUE(contains(page.body, "its address no longer works")) << page.body;
  EXPECT_TRUE(contains(page.body, ">Create a feed address</button>"));
}

TEST_P(FeedPagesTest, ReplacingStopsTheOldAddress) {
  calendar_of(ana_->account().id, "Engineer");
  std::string old_path = create_feed(*ana_);
  std::string new_path = create_feed(*ana_);
  EXPECT_NE(old_path, new_path);
  EXPECT_EQ(http_request(port(), "GET", old_path).status, 404);
  auto fresh = http_request(port(), "GET", new_path);
  EXPECT_EQ(fresh.status, 200);
  EXPECT_EQ(events_of(fresh.body).size(), 2u);
  EXPECT_EQ(count("calendar_feeds"), 1);
}

TEST_P(FeedPagesTest, MadeUpTokensAndInactiveAccountsGetNothing) {
  calendar_of(ana_->account().id, "Engineer");
  std::string path = create_feed(*ana_);
  std::string token = path.substr(7, 64);
  std::string other = token;
  other[0] = other[0] == 'a' ? 'b' : 'a';
  for (const std::string& t : {other, std::string(64, '0'), token.substr(0, 63), token + "0",
                               std::string("abc"), std::string(64, 'G'), std::string(3000, 'a')}) {
    auto r = http_request(port(), "GET", "/feeds/" + t + "/calendar.ics");
    EXPECT_EQ(r.status, 404) << t;
    EXPECT_FALSE(contains(r.body, "BEGIN:VCALENDAR")) << t;
  }
  EXPECT_EQ(http_request(port(), "GET", "/feeds/" + token + "/other.ics").status, 404);

  site_->accounts().set_active(ana_->account().id, false);
  EXPECT_EQ(http_request(port(), "GET", path).status, 404) << "an inactive account's feed is off";
  site_->accounts().set_active(ana_->account().id, true);
  EXPECT_EQ(http_request(port(), "GET", path).status, 200);
}

TEST_P(FeedPagesTest, FormsNeedASessionAndTheCsrfToken) {
  const std::vector<std::pair<std::string, std::string>> form = {
      {"Content-Type", "application/x-www-form-urlencoded"}};
  EXPECT_EQ(ana_->request("POST", "/profile/feed", "", form).status, 403);
  EXPECT_EQ(count("calendar_feeds"), 0);
  std::string path = create_feed(*ana_);
  EXPECT_EQ(ana_->request("POST", "/profile/feed/revoke", "", form).status, 403);
  EXPECT_EQ(http_request(port(), "GET", path).status, 200) << "still on";
  auto signed_out = http_request(port(), "POST", "/profile/feed", "", form);
  EXPECT_EQ(signed_out.status, 303);
  EXPECT_EQ(signed_out.header("Location").rfind("/signin", 0), 0u);
  EXPECT_EQ(count("calendar_feeds"), 1);
}

PETO_BOTH_BACKENDS(FeedPagesTest);

}  // namespace
}  // namespace peto::web
