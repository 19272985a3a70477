// Owned records on both backends: CRUD per kind, validation, ownership,
// company names, the list (tabs, search, filters, cursor, updated_since), API
// input and cascades.
#include "domain/records.h"

#include <gtest/gtest.h>

#include <set>

#include "domain/accounts.h"
#include "domain/applications.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

class RecordsTest : public peto::testing::TwoOwnersTest {
 protected:
  static Input form(json values) {
    Input in;
    in.values = std::move(values);
    return in;
  }
  static Input api(json values, bool partial = false) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    in.partial = partial;
    return in;
  }

  // Creates a record that must be valid; returns it.
  Record make(const std::string& kind_name, json values, std::int64_t owner = 0) {
    auto w =
        records().create(owner == 0 ? owner_ : owner, kind(kind_name), form(std::move(values)));
    if (auto* e = std::get_if<FieldErrors>(&w)) {
      std::string all;
      for (const auto& [f, m] : e->by_field) all += f + "=" + m + " ";
      ADD_FAILURE() << "creating a " << kind_name << " failed: " << all;
      return json::object();
    }
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    return std::get<Record>(w);
  }
  std::int64_t make_id(const std::string& kind_name, json values, std::int64_t owner = 0) {
    Record r = make(kind_name, std::move(values), owner);
    return r.contains("id") ? r["id"].get<std::int64_t>() : 0;
  }
  std::int64_t company(const std::string& name, std::int64_t owner = 0) {
    return make_id("companies", {{"name", name}}, owner);
  }
  std::int64_t listing(std::int64_t company_id, const std::string& role,
                       json more = json::object()) {
    more["role"] = role;
    more["company_id"] = std::to_string(company_id);
    return make_id("listings", more);
  }

  static std::map<std::string, std::string> errors(const Written& w) {
    if (auto* e = std::get_if<FieldErrors>(&w)) return e->by_field;
    return {{"(none)", std::holds_alternative<NotFound>(w) ? "NotFound" : "Record"}};
  }
  std::vector<std::int64_t> ids(const Page& page) {
    std::vector<std::int64_t> out;
    for (const Record& r : page.items) out.push_back(r["id"].get<std::int64_t>());
    return out;
  }
  std::set<std::int64_t> tab(const std::string& name) {
    ListQuery q;
    q.tab = name;
    auto v = ids(records().list(owner_, kind("listings"), q));
    return {v.begin(), v.end()};
  }
};

TEST_P(RecordsTest, CreateGetUpdateRemoveEveryKind) {
  std::int64_t co = company("Acme");
  std::int64_t li = listing(co, "Backend engineer");
  Applications apps(records());
  std::int64_t app_id = std::get<Record>(apps.apply(owner_, li))["id"].get<std::int64_t>();

  // One valid record of each kind, one field to change, and its new value.
  struct Case {
    std::string kind;
    json values;
    std::string field;
    json changed;
  };
  std::string c = std::to_string(co), l = std::to_string(li), a = std::to_string(app_id);
  std::vector<Case> cases = {
      {"companies",
       {{"name", "Initech"}, {"website", "https://initech.example"}},
       "location",
       "Lyon"},
      {"contacts",
       {{"name", "Mia Koch"}, {"company_id", c}, {"email", "mia@acme.example"}},
       "role",
       "Recruiter"},
      {"listings",
       {{"role", "SRE"}, {"company_id", c}, {"salary_min", "50000"}},
       "state",
       "shortlisted"},
      {"reminders", {{"title", "Follow up"}, {"due_at", "2027-01-20T09:00"}}, "title", "Call Mia"},
      {"interviews", {{"application_id", a}, {"starts_at", "2027-01-20T09:00"}}, "place", "Room 4"},
      {"offers",
       {{"application_id", a}, {"base_pay", "60000"}, {"currency", "EUR"}},
       "period",
       "month"},
      {"notes", {{"body", "Liked the team"}, {"application_id", a}}, "body", "Loved the team"},
      {"tags", {{"name", "Remote first"}}, "colour", "green"},
  };
  for (const Case& t : cases) {
    SCOPED_TRACE(t.kind);
    const Kind& k = kind(t.kind);
    Record made = make(t.kind, t.values);
    ASSERT_TRUE(made.contains("id"));
    std::int64_t id = made["id"].get<std::int64_t>();
    auto got = records().get(owner_, k, id);
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, made);
    EXPECT_EQ((*got)["created_at"], clock_.now_ms());

    clock_.advance(1min);
    Input change = api({{t.field, t.changed}}, /*partial=*/true);
    auto updated = records().update(owner_, k, id, change);
    ASSERT_TRUE(std::holds_alternative<Record>(updated)) << errors(updated).begin()->second;
    EXPECT_EQ(std::get<Record>(updated)[t.field], t.changed);
    EXPECT_EQ(std::get<Record>(updated)["updated_at"], clock_.now_ms());
    EXPECT_EQ((*records().get(owner_, k, id))[t.field], t.changed);

    EXPECT_TRUE(records().remove(owner_, k, id));
    EXPECT_FALSE(records().get(owner_, k, id));
    EXPECT_FALSE(records().remove(owner_, k, id)) << "already gone";
  }
}

TEST_P(RecordsTest, ReadsGiveTypedValuesAndExtras) {
  std::int64_t co = company("Acme");
  Record l = make("listings", {{"role", "SRE"},
                               {"company_id", std::to_string(co)},
                               {"salary_min", "50000"},
                               {"closes_on", "2027-02-01"}});
  EXPECT_EQ(l["salary_min"], 50000) << "an integer, not text, on both backends";
  EXPECT_EQ(l["company_id"], co);
  EXPECT_EQ(l["company_name"], "Acme");
  EXPECT_EQ(l["state"], "new") << "a choice defaults to its first value";
  EXPECT_TRUE(l["url"].is_null()) << "empty is null";
  EXPECT_TRUE(l["application_id"].is_null());
  EXPECT_EQ(l["closed"], 0);
  EXPECT_EQ(l["closes_on"], "2027-02-01");

  Record r = make("reminders", {{"title", "Call"}, {"due_at", "2027-01-20T09:30"}});
  EXPECT_EQ(r["due_at"], *parse_time("2027-01-20T09:30:00Z")) << "form times are local (UTC)";
  Input lisbon_summer = form({{"title", "Call"}, {"due_at", "2027-07-20T09:30"}});
  lisbon_summer.time_zone = "Europe/Lisbon";
  auto w = records().create(owner_, kind("reminders"), lisbon_summer);
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_EQ(std::get<Record>(w)["due_at"], *parse_time("2027-07-20T08:30:00Z"))
      << "a local time is read in the person's zone";
}

TEST_P(RecordsTest, InterviewsGetAnHourAndAStableUid) {
  std::int64_t li = listing(company("Acme"), "SRE");
  Applications apps(records());
  std::int64_t a = std::get<Record>(apps.apply(owner_, li))["id"].get<std::int64_t>();
  Record i = make("interviews",
                  {{"application_id", std::to_string(a)}, {"starts_at", "2027-01-20T09:00"}});
  EXPECT_EQ(i["ends_at"].get<std::int64_t>() - i["starts_at"].get<std::int64_t>(), 3600 * 1000);
  EXPECT_EQ(i["outcome"], "scheduled");

  // The calendar uid is made once and survives changes (re-imports update).
  std::int64_t id = i["id"].get<std::int64_t>();
  auto uid = [&] { return db().query("SELECT uid FROM interviews WHERE id = ?", {id})[0].text(0); };
  std::string first = uid();
  EXPECT_FALSE(first.empty());
  auto w = records().update(owner_, kind("interviews"), id,
                            form({{"application_id", std::to_string(a)},
                                  {"starts_at", "2027-01-21T09:00"},
                                  {"place", "Room 4"}}));
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_EQ(uid(), first);
  std::int64_t j = make_id(
      "interviews", {{"application_id", std::to_string(a)}, {"starts_at", "2027-01-22T09:00"}});
  EXPECT_NE(db().query("SELECT uid FROM interviews WHERE id = ?", {j})[0].text(0), first);
}

TEST_P(RecordsTest, EveryFieldErrorAtOnceAndNothingWritten) {
  std::int64_t co = company("Acme");
  std::int64_t others = company("Theirs", other_);
  std::int64_t before = count("listings");
  auto w = records().create(owner_, kind("listings"),
                            form({{"role", ""},
                                  {"company_id", std::to_string(others)},
                                  {"url", "ftp://acme.example/jobs"},
                                  {"location", std::string(201, 'x')},
                                  {"remote", "moon"},
                                  {"salary_min", "-5"},
                                  {"salary_max", "lots"},
                                  {"closes_on", "2026-02-30"}}));
  std::map<std::string, std::string> want = {
      {"role", "error_required"},     {"company_id", "error_ref"}, {"url", "error_url"},
      {"location", "error_too_long"}, {"remote", "error_choice"},  {"salary_min", "error_range"},
      {"salary_max", "error_number"}, {"closes_on", "error_date"}};
  EXPECT_EQ(errors(w), want);
  EXPECT_EQ(count("listings"), before) << "nothing written";

  w = records().create(owner_, kind("contacts"),
                       form({{"name", "Mia"}, {"email", "mia@nowhere"}, {"company_id", "abc"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"email", "error_email"},
                                                           {"company_id", "error_ref"}}));
  w = records().create(owner_, kind("reminders"),
                       form({{"title", "Call"}, {"due_at", "2027-13-01T09:00"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"due_at", "error_datetime"}}));
  w = records().create(owner_, kind("reminders"),
                       api({{"title", "Call"}, {"due_at", "2027-01-20 09:00"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"due_at", "error_rfc3339"}}))
      << "the API takes RFC 3339";
  EXPECT_EQ(count("contacts"), 0);
  EXPECT_EQ(count("reminders"), 0);

  // A character count, not bytes: 200 two-byte characters fit in 200.
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "é";
  EXPECT_EQ(make("companies", {{"name", accents}})["name"], accents);
  w = records().create(owner_, kind("companies"), form({{"name", accents + "e"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"name", "error_too_long"}}));
  (void)co;
}

TEST_P(RecordsTest, CrossFieldChecks) {
  std::int64_t co = company("Acme");
  auto w = records().create(owner_, kind("listings"),
                            form({{"role", "SRE"},
                                  {"company_id", std::to_string(co)},
                                  {"salary_min", "60000"},
                                  {"salary_max", "50000"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"salary_max", "error_salary_order"}}));
  EXPECT_EQ(count("listings"), 0);

  std::int64_t li = listing(co, "SRE");
  Applications apps(records());
  std::int64_t a = std::get<Record>(apps.apply(owner_, li))["id"].get<std::int64_t>();
  std::int64_t events = count("application_events");
  w = records().create(owner_, kind("interviews"),
                       form({{"application_id", std::to_string(a)},
                             {"starts_at", "2027-01-20T10:00"},
                             {"ends_at", "2027-01-20T09:00"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"ends_at", "error_end_before_start"}}));
  EXPECT_EQ(count("interviews"), 0);
  EXPECT_EQ(count("application_events"), events) << "no interview_scheduled for a refused one";
}

TEST_P(RecordsTest, PartialUpdatesAreCheckedAgainstStoredValues) {
  std::int64_t co = company("Acme");
  std::int64_t li = listing(co, "SRE", {{"salary_min", "60000"}, {"salary_max", "70000"}});
  auto w = records().update(owner_, kind("listings"), li, api({{"salary_max", 50000}}, true));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"salary_max", "error_salary_order"}}));
  EXPECT_EQ((*records().get(owner_, kind("listings"), li))["salary_max"], 70000);

  Applications apps(records());
  std::int64_t a = std::get<Record>(apps.apply(owner_, li))["id"].get<std::int64_t>();
  std::int64_t i = make_id(
      "interviews", {{"application_id", std::to_string(a)}, {"starts_at", "2027-01-20T10:00"}});
  w = records().update(owner_, kind("interviews"), i,
                       api({{"ends_at", "2027-01-20T09:00:00Z"}}, true));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"ends_at", "error_end_before_start"}}));
}

TEST_P(RecordsTest, AnotherOwnersRecordIsInvisible) {
  std::int64_t co = company("Acme");
  std::int64_t li = listing(co, "SRE");
  const Kind& listings = kind("listings");
  EXPECT_FALSE(records().get(other_, listings, li));
  EXPECT_FALSE(records().get(other_, kind("companies"), co));
  EXPECT_TRUE(std::holds_alternative<NotFound>(
      records().update(other_, listings, li, api({{"role", "Hacked"}}, true))));
  EXPECT_TRUE(std::holds_alternative<NotFound>(
      records().update(other_, listings, li, form({{"role", "Hacked"}, {"company_id", "1"}}))));
  EXPECT_FALSE(records().remove(other_, listings, li));
  EXPECT_FALSE(records().remove(other_, kind("companies"), co));
  EXPECT_TRUE(records().list(other_, listings, ListQuery{}).items.empty());
  EXPECT_TRUE(records().count_by(other_, listings, "state", "all").empty());
  auto mine = records().get(owner_, listings, li);
  ASSERT_TRUE(mine);
  EXPECT_EQ((*mine)["role"], "SRE");
  EXPECT_EQ(count("listings"), 1);
  EXPECT_EQ(count("companies"), 1);

  // Nor can the other person point at it from their own records.
  std::int64_t theirs = company("Theirs", other_);
  auto w = records().create(other_, kind("listings"),
                            form({{"role", "SRE"}, {"company_id", std::to_string(co)}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"company_id", "error_ref"}}));
  std::int64_t their_listing =
      make_id("listings", {{"role", "X"}, {"company_id", std::to_string(theirs)}}, other_);
  w = records().update(other_, listings, their_listing,
                       api({{"company_id", co}}, /*partial=*/true));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"company_id", "error_ref"}}));
}

TEST_P(RecordsTest, CompanyNamesFoldCaseAndAccents) {
  EXPECT_EQ(fold_name("  Ståhl   AB "), "stahl ab");
  EXPECT_EQ(fold_name("ÉCOLE Polytechnique"), "ecole polytechnique");
  std::int64_t stahl = company("Ståhl AB");
  auto conn = db().acquire();
  auto same = records().company_named(*conn, owner_, "stahl ab");
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(same));
  EXPECT_EQ(std::get<std::int64_t>(same), stahl);
  EXPECT_EQ(count("companies"), 1);

  auto fresh = records().company_named(*conn, owner_, "Müller GmbH");
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(fresh));
  EXPECT_NE(std::get<std::int64_t>(fresh), stahl);
  EXPECT_EQ(count("companies"), 2);
  auto theirs = records().company_named(*conn, other_, "STÅHL AB");
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(theirs));
  EXPECT_NE(std::get<std::int64_t>(theirs), stahl) << "names are unique per owner only";
  auto empty = records().company_named(*conn, owner_, "   ");
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(empty));
  EXPECT_TRUE(std::get<FieldErrors>(empty).has("name"));

  auto dup = records().create(owner_, kind("companies"), form({{"name", "STAHL ab"}}));
  EXPECT_EQ(errors(dup), (std::map<std::string, std::string>{{"name", "error_company_exists"}}));
  std::int64_t muller = std::get<std::int64_t>(fresh);
  dup = records().update(owner_, kind("companies"), muller, form({{"name", "Stahl AB"}}));
  EXPECT_EQ(errors(dup), (std::map<std::string, std::string>{{"name", "error_company_exists"}}));
  auto renamed = records().update(owner_, kind("companies"), stahl, form({{"name", "STÅHL AB"}}));
  EXPECT_TRUE(std::holds_alternative<Record>(renamed)) << "renaming to its own name is fine";
  EXPECT_EQ(count("companies"), 3);
}

TEST_P(RecordsTest, TagNamesAreUniqueBySlug) {
  Record t = make("tags", {{"name", "Remote first!"}});
  EXPECT_EQ(slug("Remote first!"), "remote-first");
  auto dup = records().create(owner_, kind("tags"), form({{"name", "remote FIRST"}}));
  EXPECT_EQ(errors(dup), (std::map<std::string, std::string>{{"name", "error_tag_exists"}}));
  EXPECT_EQ(count("tags"), 1);
  (void)t;
}

// An old notice, link or bookmark names a record by its id: a deleted
// record's id is never given to a new one.
TEST_P(RecordsTest, TheIdOfADeletedRecordIsNeverGivenAgain) {
  std::int64_t co = company("Acme");
  listing(co, "First");
  std::int64_t newest = listing(co, "Newest");
  ASSERT_TRUE(records().remove(owner_, kind("listings"), newest));
  EXPECT_GT(listing(co, "After"), newest);
  std::int64_t other = company("Initech");
  ASSERT_TRUE(records().remove(owner_, kind("companies"), other));
  EXPECT_GT(company("Globex"), other);
}

TEST_P(RecordsTest, ListingTabs) {
  std::int64_t co = company("Acme");
  // Today is 2027-01-15.
  std::int64_t undecided = listing(co, "Undecided", {{"closes_on", "2027-01-15"}});
  std::int64_t shortlisted = listing(co, "Shortlisted", {{"state", "shortlisted"}});
  std::int64_t discarded =
      listing(co, "Discarded", {{"state", "discarded"}, {"closes_on", "2027-01-01"}});
  std::int64_t applied = listing(co, "Applied");
  std::int64_t past = listing(co, "Past closing", {{"closes_on", "2027-01-14"}});
  std::int64_t short_past =
      listing(co, "Shortlisted, past", {{"state", "shortlisted"}, {"closes_on", "2027-01-10"}});
  // A draft is a decision taken but nothing sent: shortlisted, not applied.
  std::int64_t drafted = listing(co, "Drafted");
  Applications apps(records());
  ASSERT_TRUE(std::holds_alternative<Record>(apps.apply(owner_, applied, "applied")));
  ASSERT_TRUE(std::holds_alternative<Record>(apps.apply(owner_, drafted, "draft")));

  EXPECT_EQ(tab("undecided"), (std::set<std::int64_t>{undecided}));
  EXPECT_EQ(tab(""), (std::set<std::int64_t>{undecided})) << "the first tab is the default";
  EXPECT_EQ(tab("shortlisted"), (std::set<std::int64_t>{shortlisted, drafted}));
  EXPECT_EQ(tab("discarded"), (std::set<std::int64_t>{discarded}));
  EXPECT_EQ(tab("applied"), (std::set<std::int64_t>{applied}));
  EXPECT_EQ(tab("closed"), (std::set<std::int64_t>{past, short_past}));
  EXPECT_EQ(tab("all").size(), 7u);
  EXPECT_EQ((*records().get(owner_, kind("listings"), past))["closed"], 1);
  EXPECT_EQ((*records().get(owner_, kind("listings"), applied))["application_id"].is_number(),
            true);

  clock_.advance(24h);  // 2027-01-16: the one closing today has closed.
  EXPECT_TRUE(tab("undecided").empty());
  EXPECT_EQ(tab("closed"), (std::set<std::int64_t>{undecided, past, short_past}));

  auto counts = records().count_by(owner_, kind("listings"), "state", "all");
  EXPECT_EQ(counts, (std::map<std::string, std::int64_t>{
                        {"new", 4}, {"shortlisted", 2}, {"discarded", 1}}));
}

TEST_P(RecordsTest, SearchAndFilters) {
  std::int64_t acme = company("Acme");
  std::int64_t initech = company("Initech");
  std::int64_t a =
      listing(acme, "Backend Engineer", {{"location", "Berlin"}, {"remote", "hybrid"}});
  std::int64_t b = listing(acme, "Designer", {{"location", "Lisbon"}});
  std::int64_t c =
      listing(initech, "Data engineer", {{"location", "Remote"}, {"remote", "remote"}});
  listing(initech, "100% sales", {{"location", "Paris"}});
  auto find = [&](ListQuery q) {
    q.tab = "all";
    auto v = ids(records().list(owner_, kind("listings"), q));
    return std::set<std::int64_t>(v.begin(), v.end());
  };
  ListQuery q;
  q.text = "ENGINEER";
  EXPECT_EQ(find(q), (std::set<std::int64_t>{a, c})) << "case-insensitive, in role";
  q.text = "lisbon";
  EXPECT_EQ(find(q), (std::set<std::int64_t>{b})) << "and in location";
  q.text = "0%";
  EXPECT_EQ(find(q).size(), 1u) << "% is literal";
  q.text = "_";
  EXPECT_TRUE(find(q).empty()) << "_ is literal";
  q = {};
  q.equals = {{"company_id", std::to_string(acme)}};
  EXPECT_EQ(find(q), (std::set<std::int64_t>{a, b}));
  q.equals["remote"] = "hybrid";
  EXPECT_EQ(find(q), (std::set<std::int64_t>{a}));
  q.text = "designer";
  EXPECT_TRUE(find(q).empty()) << "filters and search combine";
  q = {};
  q.equals = {{"description", "x"}};
  EXPECT_EQ(find(q).size(), 4u) << "a field that is not filterable is ignored";
}

TEST_P(RecordsTest, CursorPagingWalksEverythingOnce) {
  std::vector<std::int64_t> made;
  for (int i = 0; i < 5; ++i) made.push_back(company("Company " + std::to_string(i)));
  company("Not mine", other_);
  std::vector<std::int64_t> seen;
  ListQuery q;
  q.limit = 2;
  int pages = 0;
  for (;;) {
    Page p = records().list(owner_, kind("companies"), q);
    ++pages;
    ASSERT_LE(p.items.size(), 2u);
    for (auto id : ids(p)) seen.push_back(id);
    if (!p.next_cursor) break;
    q.before_id = p.next_cursor;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(pages, 3);
  std::vector<std::int64_t> newest_first(made.rbegin(), made.rend());
  EXPECT_EQ(seen, newest_first);
}

TEST_P(RecordsTest, UpdatedSince) {
  std::int64_t a = company("Old");
  std::int64_t b = company("Changed");
  clock_.advance(1h);
  std::int64_t since = clock_.now_ms();
  std::int64_t c = company("New");
  ASSERT_TRUE(std::holds_alternative<Record>(
      records().update(owner_, kind("companies"), b, api({{"location", "Oslo"}}, true))));
  ListQuery q;
  q.updated_since = since;
  auto v = ids(records().list(owner_, kind("companies"), q));
  EXPECT_EQ(std::set<std::int64_t>(v.begin(), v.end()), (std::set<std::int64_t>{b, c}));
  (void)a;
}

TEST_P(RecordsTest, ApiInputRejectsUnknownAndReadOnlyFields) {
  std::int64_t li = listing(company("Acme"), "SRE");
  auto w = records().create(owner_, kind("applications"),
                            api({{"listing_id", li}, {"status", "offer"}, {"colour", "red"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"status", "error_read_only"},
                                                           {"colour", "error_unknown_field"}}));
  EXPECT_EQ(count("applications"), 0);
  // A form ignores fields it does not know, and never writes read-only ones.
  w = records().create(owner_, kind("applications"),
                       form({{"listing_id", std::to_string(li)}, {"status", "offer"}, {"x", "1"}}));
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_EQ(std::get<Record>(w)["status"], "draft");
  // The API takes typed values and an id that matches nothing is harmless.
  w = records().create(owner_, kind("listings"),
                       api({{"id", 99},
                            {"role", "QA"},
                            {"company_id", std::get<Record>(w)["company_id"]},
                            {"salary_min", 1000},
                            {"closes_on", "2027-03-01"}}));
  ASSERT_TRUE(std::holds_alternative<Record>(w)) << errors(w).begin()->first;
  EXPECT_NE(std::get<Record>(w)["id"], 99);
  w = records().create(owner_, kind("listings"),
                       api({{"role", json::array({"x"})}, {"company_id", 1.5}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"role", "error_invalid"},
                                                           {"company_id", "error_invalid"}}));
}

TEST_P(RecordsTest, PartialUpdateTouchesOnlyGivenFields) {
  std::int64_t co = company("Acme");
  std::int64_t li = listing(
      co, "SRE", {{"location", "Berlin"}, {"salary_min", "50000"}, {"state", "shortlisted"}});
  auto w = records().update(owner_, kind("listings"), li, api({{"location", "Munich"}}, true));
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  Record r = std::get<Record>(w);
  EXPECT_EQ(r["location"], "Munich");
  EXPECT_EQ(r["role"], "SRE");
  EXPECT_EQ(r["salary_min"], 50000);
  EXPECT_EQ(r["state"], "shortlisted");
  // Null clears a field; a required one cannot be cleared.
  w = records().update(owner_, kind("listings"), li, api({{"salary_min", nullptr}}, true));
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_TRUE(std::get<Record>(w)["salary_min"].is_null());
  w = records().update(owner_, kind("listings"), li, api({{"role", ""}}, true));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"role", "error_required"}}));
  // A full (form) update replaces every writable field.
  w = records().update(owner_, kind("listings"), li,
                       form({{"role", "SRE II"}, {"company_id", std::to_string(co)}}));
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_TRUE(std::get<Record>(w)["location"].is_null());
  EXPECT_EQ(std::get<Record>(w)["state"], "new");
}

TEST_P(RecordsTest, DeletingACompanyTakesItsListingsAndApplications) {
  std::int64_t acme = company("Acme");
  std::int64_t keep = company("Keep");
  std::int64_t contact =
      make_id("contacts", {{"name", "Mia"}, {"company_id", std::to_string(acme)}});
  std::int64_t li = listing(acme, "SRE");
  std::int64_t kept_listing = listing(keep, "QA");
  Applications apps(records());
  std::int64_t a = std::get<Record>(apps.apply(owner_, li, "applied"))["id"].get<std::int64_t>();
  ASSERT_TRUE(std::holds_alternative<Record>(apps.apply(owner_, kept_listing)));
  make("reminders",
       {{"title", "Chase"}, {"due_at", "2027-01-20T09:00"}, {"application_id", std::to_string(a)}});
  ASSERT_GT(count("application_events"), 0);

  EXPECT_TRUE(records().remove(owner_, kind("companies"), acme));
  EXPECT_FALSE(records().get(owner_, kind("listings"), li));
  EXPECT_FALSE(records().get(owner_, kind("applications"), a));
  EXPECT_EQ(count("listings"), 1);
  EXPECT_EQ(count("applications"), 1);
  EXPECT_EQ(
      db().query("SELECT COUNT(*) FROM application_events WHERE application_id = ?", {a})[0].int_at(
          0),
      0);
  auto c = records().get(owner_, kind("contacts"), contact);
  ASSERT_TRUE(c) << "a contact outlives its company";
  EXPECT_TRUE((*c)["company_id"].is_null());
  EXPECT_EQ(count("reminders"), 0) << "an application's reminder goes with it (to the trash)";
}

PETO_BOTH_BACKENDS(RecordsTest);

}  // namespace
}  // namespace peto::domain
