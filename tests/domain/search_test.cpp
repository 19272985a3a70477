// Search on both backends: each kind found by its words, every word needed,
// the start of the last word enough, titles first, accents and case ignored, another person's
// records never; and the index in step with every write, the trash and its
// restore included.
#include "domain/search.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "domain/trash.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

class SearchTest : public peto::testing::TwoOwnersTest {
 protected:
  // "kind id" of each hit, in the order found.
  std::vector<std::string> found(const std::string& q, std::int64_t owner = 0,
                                 const SearchQuery& query = {}) {
    std::vector<std::string> out;
    for (const auto& h : search(db(), owner == 0 ? owner_ : owner, q, query))
      out.push_back(h.kind + " " + std::to_string(h.id));
    return out;
  }
  static bool has(const std::vector<std::string>& hits, const std::string& kind, std::int64_t id) {
    return std::find(hits.begin(), hits.end(), kind + " " + std::to_string(id)) != hits.end();
  }
  std::int64_t make(const std::string& kind, json values) {
    Input in;
    in.values = std::move(values);
    auto w = records().create(owner_, domain::kind(kind), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind;
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }
  void change(const std::string& kind, std::int64_t id, json values) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    in.partial = true;
    auto w = records().update(owner_, domain::kind(kind), id, in);
    ASSERT_TRUE(std::holds_alternative<Record>(w)) << kind;
  }
  std::int64_t event(std::int64_t application, const std::string& summary,
                     const std::string& body) {
    db().query(
        "INSERT INTO application_events (application_id, kind, occurred_at, summary, body,"
        " created_at) VALUES (?, 'note', 0, ?, ?, 0)",
        {application, summary, body});
    return db().query("SELECT MAX(id) FROM application_events")[0].int_at(0);
  }
};

TEST_P(SearchTest, EachKindIsFoundByItsWords) {
  testing::Factory f(db(), clock_);
  const auto acme = f.company(owner_, "Müller Logistik");
  const auto listing = f.listing(owner_, acme, "Data Engineer");
  change("listings", listing, {{"location", "Berlin"}, {"description", "Kafka and dbt daily"}});
  const auto application = f.application(owner_, listing, "applied");
  const auto contact = make("contacts", {{"name", "Bea Santos"}, {"role", "Talent partner"}});
  const auto note = make("notes", {{"body", "Ask about the on-call rota"}});
  const auto reminder = make("reminders", {{"title", "Send the portfolio"}});
  const auto entry = event(application, "Phone screen booked", "Recruiter liked the Kafka work");

  auto hits = found("data engineer");
  EXPECT_TRUE(has(hits, "applications", application)) << "an application has its listing's words";
  EXPECT_FALSE(has(hits, "listings", listing)) << "and stands for the listing, found once";
  SearchQuery listings;
  listings.kinds = {"listings"};
  EXPECT_TRUE(has(found("data engineer", 0, listings), "listings", listing)) << "unless asked";
  EXPECT_TRUE(has(found("muller"), "companies", acme)) << "accents do not matter";
  EXPECT_TRUE(has(found("MÜLLER"), "companies", acme)) << "nor does case";
  EXPECT_TRUE(has(found("engineer müller", 0, listings), "listings", listing))
      << "a listing has its company's words";
  EXPECT_TRUE(has(found("engineer berl", 0, listings), "listings", listing))
      << "the start of the last word is enough: what is being typed";
  EXPECT_FALSE(has(found("eng berlin", 0, listings), "listings", listing))
      << "the words before it are whole";
  EXPECT_TRUE(has(found("talent"), "contacts", contact));
  EXPECT_TRUE(has(found("on-call"), "notes", note));
  EXPECT_TRUE(has(found("portfolio"), "reminders", reminder));
  EXPECT_TRUE(has(found("kafka recruiter"), "events", entry));
  EXPECT_TRUE(found("data engineer paris").empty()) << "every word must appear";
  EXPECT_TRUE(found("").empty());
  EXPECT_TRUE(found(" \"*() - ").empty()) << "no word, nothing found, no error";
  EXPECT_TRUE(found("data engineer", other_).empty()) << "ben finds none of ana's";
}

TEST_P(SearchTest, HitsMarkTheWordsAndSayWhatTheyBelongTo) {
  testing::Factory f(db(), clock_);
  const auto listing = f.listing(owner_, f.company(owner_, "Acme"), "Platform Engineer");
  const auto application = f.application(owner_, listing, "applied");
  event(application, "Take-home sent", "Due on Friday");

  auto hits = search(db(), owner_, "engin", {});
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].title,
            "Platform \x01"
            "Engineer\x02");
  auto events = search(db(), owner_, "friday", {});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "events");
  EXPECT_EQ(events[0].application_id, application);
  EXPECT_EQ(events[0].context, "Platform Engineer · Acme");
  EXPECT_NE(events[0].snippet.find("\x01"
                                   "Friday\x02"),
            std::string::npos)
      << events[0].snippet;
}

TEST_P(SearchTest, OnlyTheKindsAsked) {
  testing::Factory f(db(), clock_);
  const auto acme = f.company(owner_, "Acme Robotics");
  const auto listing = f.listing(owner_, acme, "Robotics Engineer");
  const auto application = f.application(owner_, listing, "applied");
  SearchQuery only_applications;
  only_applications.kinds = {"applications"};
  EXPECT_EQ(found("robotics", 0, only_applications),
            std::vector<std::string>{"applications " + std::to_string(application)});
  SearchQuery one;
  one.limit = 1;
  EXPECT_EQ(found("robotics", 0, one).size(), 1u) << "the limit counts the applications too";
  SearchQuery only_companies;
  only_companies.kinds = {"companies"};
  EXPECT_EQ(found("robotics", 0, only_companies),
            std::vector<std::string>{"companies " + std::to_string(acme)});
}

TEST_P(SearchTest, TitlesFirstThenTheNewest) {
  const auto fan = make("contacts", {{"name", "Kafka Fan"}});
  const auto bea = make("contacts", {{"name", "Bea Santos"}, {"notes", "Talks about Kafka"}});
  const auto guild = make("contacts", {{"name", "Kafka Guild"}});
  EXPECT_EQ(found("kafka"), (std::vector<std::string>{"contacts " + std::to_string(guild),
                                                      "contacts " + std::to_string(fan),
                                                      "contacts " + std::to_string(bea)}))
      << "the word in the name first, newest first; then the word in the notes";
  SearchQuery two;
  two.limit = 2;
  EXPECT_EQ(found("kafka", 0, two).size(), 2u);
}

// Every write keeps the index in step, in its own transaction: a change,
// a rename of the company a listing names, the trash and the restore.
TEST_P(SearchTest, TheIndexFollowsEveryWrite) {
  testing::Factory f(db(), clock_);
  const auto acme = f.company(owner_, "Acme");
  const auto listing = f.listing(owner_, acme, "Data Engineer");
  change("listings", listing, {{"role", "Analytics Engineer"}});
  EXPECT_TRUE(found("data").empty()) << "the old words are gone";
  EXPECT_TRUE(has(found("analytics"), "listings", listing));

  change("companies", acme, {{"name", "Globex"}});
  EXPECT_TRUE(has(found("analytics globex"), "listings", listing)) << "the company's new name";
  EXPECT_TRUE(found("analytics acme").empty()) << "and not its old one";

  Records rec(db(), clock_);
  auto entry = rec.remove(owner_, kind("companies"), acme);
  ASSERT_TRUE(entry.has_value());
  EXPECT_TRUE(found("analytics").empty()) << "the trash takes the listing with its company";
  EXPECT_TRUE(found("globex").empty());
  Trash(db(), clock_).restore(owner_, *entry);
  EXPECT_TRUE(has(found("analytics globex"), "listings", listing)) << "the restore brings it back";
  EXPECT_TRUE(has(found("globex"), "companies", acme));
}

PETO_BOTH_BACKENDS(SearchTest);

}  // namespace
}  // namespace peto::domain
