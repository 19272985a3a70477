// The record lists behind the tables, on both backends: sorted by any
// column with a cursor that walks every record once in either direction
// (records without a value last), and narrowed by company, tag and a range
// of days in the owner's time zone.
#include <gtest/gtest.h>

#include <set>

#include "core/timezone.h"
#include "domain/accounts.h"
#include "domain/applications.h"
#include "domain/records.h"
#include "tests/support/domain_fixture.h"
#include "tests/support/factory.h"

namespace peto::domain {
namespace {

using nlohmann::json;

class SortedListsTest : public peto::testing::TwoOwnersTest {
 protected:
  // Every id of the list, a page of `limit` at a time, following the cursor.
  std::vector<std::int64_t> walk(const std::string& kind_name, ListQuery q, int limit) {
    std::vector<std::int64_t> out;
    q.limit = limit;
    for (int pages = 0; pages < 50; ++pages) {
      Page page = records().list(owner_, kind(kind_name), q);
      for (const Record& r : page.items) out.push_back(r["id"].get<std::int64_t>());
      if (!page.next_after) break;
      // As a page carries it: through its text in the URL.
      q.after = read_mark(mark_text(*page.next_after));
      EXPECT_TRUE(q.after.has_value());
    }
    return out;
  }
  std::int64_t company(const std::string& name, json more = json::object()) {
    Input in;
    in.values = std::move(more);
    in.values["name"] = name;
    in.from_form = false;
    auto made = records().create(owner_, kind("companies"), in);
    EXPECT_TRUE(std::holds_alternative<Record>(made));
    return std::get<Record>(made)["id"].get<std::int64_t>();
  }
};

TEST_P(SortedListsTest, ACursorWalksEveryRecordOnceEitherWayWithTheEmptyOnesLast) {
  // Ties (two in Berlin) and empty values (two without a place) on purpose.
  const auto lisbon = company("Acme", {{"location", "Lisbon"}});
  const auto berlin_b = company("Beta", {{"location", "Berlin"}});
  const auto none_c = company("Gamma");
  const auto berlin_d = company("Delta", {{"location", "berlin"}});
  const auto none_e = company("Epsilon");
  const auto amsterdam = company("Zeta", {{"location", "Amsterdam"}});

  ListQuery q;
  q.sort = "location";
  const std::vector<std::int64_t> up = {amsterdam, berlin_b, berlin_d, lisbon, none_c, none_e};
  const std::vector<std::int64_t> down = {lisbon, berlin_d, berlin_b, amsterdam, none_e, none_c};
  for (int limit : {1, 2, 4, 50}) {
    q.descending = false;
    EXPECT_EQ(walk("companies", q, limit), up) << "A to Z, case aside, a page of " << limit;
    q.descending = true;
    EXPECT_EQ(walk("companies", q, limit), down) << "Z to A, a page of " << limit;
  }
  q.sort = "name";
  q.descending = false;
  EXPECT_EQ(walk("companies", q, 4),
            (std::vector<std::int64_t>{lisbon, berlin_b, berlin_d, none_e, none_c, amsterdam}));
}

TEST_P(SortedListsTest, ApplicationsSortByCompanyByStatusInItsOrderAndByWhenSent) {
  peto::testing::Factory make(db(), clock_);
  const Millis day = 24 * 3600 * 1000;
  const Millis now = clock_.now_ms();
  auto app = [&](const std::string& company, const std::string& status, Millis at) {
    return make.application(owner_, make.listing(owner_, make.company(owner_, company), "SRE"),
                            status, at);
  };
  const auto zed = app("Zed", "interviewing", now - 3 * day);
  const auto acme = app("acme", "applied", now - 1 * day);
  const auto mid = app("Midway", "draft", now - 2 * day);  // never sent: no applied_at

  ListQuery q;
  q.tab = "all";
  q.sort = "company_name";
  EXPECT_EQ(walk("applications", q, 2), (std::vector<std::int64_t>{acme, mid, zed}));
  q.sort = "status";
  EXPECT_EQ(walk("applications", q, 2), (std::vector<std::int64_t>{mid, acme, zed}))
      << "draft, applied, interviewing: the order a search advances in";
  q.sort = "applied_at";
  q.descending = true;
  EXPECT_EQ(walk("applications", q, 1), (std::vector<std::int64_t>{acme, zed, mid}))
      << "the draft has no day it was sent and comes last";
  q.sort = "no_such_column";
  q.descending = false;
  EXPECT_EQ(records().list(owner_, kind("applications"), q).items.front()["id"], mid)
      << "an unknown column: newest first, as without a sort";
}

TEST_P(SortedListsTest, FiltersByCompanyTagAndDaysWhereTheOwnerLives) {
  Accounts accounts(db(), clock_);
  Account wanted = *accounts.find(owner_);
  wanted.time_zone = "Pacific/Auckland";
  ASSERT_TRUE(accounts.update_profile(owner_, wanted).empty());
  peto::testing::Factory make(db(), clock_);
  const auto acme = make.company(owner_, "Acme");
  const auto globex = make.company(owner_, "Globex");
  // 2027-01-10 23:30 in Auckland is still the 10th there, the 10th in UTC too.
  const auto at = [](const std::string& local) { return *parse_local(local, "Pacific/Auckland"); };
  const auto early = make.application(owner_, make.listing(owner_, acme, "SRE"), "applied",
                                      at("2027-01-10 00:30"));
  const auto late = make.application(owner_, make.listing(owner_, acme, "Dev"), "applied",
                                     at("2027-01-11 23:30"));
  const auto other = make.application(owner_, make.listing(owner_, globex, "Ops"), "applied",
                                      at("2027-01-11 12:00"));

  ListQuery q;
  q.tab = "all";
  q.sort = "applied_at";
  q.company_id = acme;
  EXPECT_EQ(walk("applications", q, 50), (std::vector<std::int64_t>{early, late}));
  EXPECT_EQ(find_company(db(), owner_, "  ACME "), acme) << "named as a company is matched";
  EXPECT_FALSE(find_company(db(), other_, "Acme").has_value()) << "only the owner's";

  q.company_id.reset();
  q.range_field = "applied_at";
  q.time_zone = "Pacific/Auckland";
  q.from_day = "2027-01-11";
  EXPECT_EQ(walk("applications", q, 50), (std::vector<std::int64_t>{other, late}))
      << "the 11th begins at midnight in Auckland, not in UTC";
  q.from_day.clear();
  q.to_day = "2027-01-10";
  EXPECT_EQ(walk("applications", q, 50), (std::vector<std::int64_t>{early}));
  q.to_day = "not a day";
  EXPECT_EQ(walk("applications", q, 50).size(), 3u) << "a day that is not one narrows nothing";

  Applications apps(records());
  Input tag;
  tag.values = {{"name", "Remote"}};
  const auto remote = std::get<Record>(records().create(owner_, kind("tags"), tag))["id"];
  ASSERT_TRUE(
      std::holds_alternative<bool>(apps.set_tags(owner_, late, {remote.get<std::int64_t>()})));
  q = ListQuery{};
  q.tab = "all";
  q.tag_id = remote.get<std::int64_t>();
  EXPECT_EQ(walk("applications", q, 50), (std::vector<std::int64_t>{late}));
}

TEST_P(SortedListsTest, AMarkReadsBackAsItWasAndJunkIsRefused) {
  for (const Mark& m : {Mark{nullptr, 4}, Mark{-12, 7}, Mark{std::string("a.b s"), 9}}) {
    auto back = read_mark(mark_text(m));
    ASSERT_TRUE(back.has_value()) << mark_text(m);
    EXPECT_EQ(back->key, m.key);
    EXPECT_EQ(back->id, m.id);
  }
  for (const char* junk : {"", "7", "7.", "x.n", "0.n", "7.q", "7.i12a", "7.nx", "-3.i4"})
    EXPECT_FALSE(read_mark(junk).has_value()) << junk;
}

PETO_BOTH_BACKENDS(SortedListsTest);

}  // namespace
}  // namespace peto::domain
