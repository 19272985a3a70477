// The trash on both backends: what a delete takes with it, a restore that
// brings it all back under the same ids, refusals that change nothing, and
// the 30 days after which the trash is emptied.
#include "domain/trash.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "domain/applications.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

class TrashTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    trash_ = std::make_unique<Trash>(db(), clock_);
  }

  std::int64_t make(const std::string& kind_name, json values, std::int64_t owner = 0) {
    Input in;
    in.values = std::move(values);
    auto w = records().create(owner == 0 ? owner_ : owner, kind(kind_name), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind_name;
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }
  static std::string id(std::int64_t n) { return std::to_string(n); }

  // Every row of the tables a delete can touch, as text: equal before a
  // delete and after its restore when everything came back whole.
  std::string snapshot() {
    std::string out;
    for (const char* table :
         {"companies", "contacts", "listings", "applications", "reminders", "interviews", "offers",
          "notes", "tags", "application_events", "application_tags", "listing_events"}) {
      std::string order =
          std::string(table) == "application_tags" ? "application_id, tag_id" : "id";
      for (const auto& row :
           db().query(std::string("SELECT * FROM ") + table + " ORDER BY " + order)) {
        out += table;
        for (std::size_t i = 0; i < row.size(); ++i)
          out += "|" + (row.is_null(i) ? std::string("NULL") : row.text(i));
        out += "\n";
      }
    }
    return out;
  }

  std::unique_ptr<Trash> trash_;
};

// A company with a listing, its application and everything on it; a contact
// and a note that only mention the company; a note on the listing alone.
TEST_P(TrashTest, ACompanyGoesWithWhatHangsOnItAndComesBackWhole) {
  std::int64_t acme = make("companies", {{"name", "Acme"}});
  std::int64_t globex = make("companies", {{"name", "Globex"}});
  std::int64_t mia = make("contacts", {{"name", "Mia"}, {"company_id", id(acme)}});
  std::int64_t li = make("listings", {{"role", "SRE"}, {"company_id", id(acme)}});
  Applications apps(records());
  std::int64_t a = std::get<Record>(apps.apply(owner_, li, "applied"))["id"].get<std::int64_t>();
  ASSERT_TRUE(std::holds_alternative<Record>(records().update(owner_, kind("applications"), a, [&] {
    Input in;
    in.partial = true;
    in.values = {{"contact_id", id(mia)}};
    return in;
  }())));
  make("reminders",
       {{"title", "Chase"}, {"due_at", "2027-01-20T09:00"}, {"application_id", id(a)}});
  make("interviews",
       {{"application_id", id(a)}, {"kind", "video"}, {"starts_at", "2027-01-22T10:00"}});
  make("offers", {{"application_id", id(a)}, {"base_pay", "60000"}});
  std::int64_t remote = make("tags", {{"name", "Remote"}});
  ASSERT_TRUE(std::holds_alternative<bool>(apps.set_tags(owner_, a, {remote})));
  std::int64_t alone = make("notes", {{"body", "On the listing"}, {"listing_id", id(li)}});
  std::int64_t shared =
      make("notes", {{"body", "Both"}, {"listing_id", id(li)}, {"company_id", id(globex)}});
  std::int64_t events = count("application_events");
  ASSERT_GT(events, 1);
  const std::string before = snapshot();

  auto gone = trash_->dependents(owner_, kind("companies"), acme);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->counts, (std::map<std::string, std::int64_t>{{"listings", 1},
                                                               {"applications", 1},
                                                               {"application_events", events},
                                                               {"application_tags", 1},
                                                               {"interviews", 1},
                                                               {"offers", 1},
                                                               {"reminders", 1},
                                                               {"notes", 1}}));
  EXPECT_EQ(snapshot(), before) << "asking changes nothing";

  auto entry = records().remove(owner_, kind("companies"), acme);
  ASSERT_TRUE(entry);
  for (const char* table : {"listings", "applications", "reminders", "interviews", "offers",
                            "application_events", "application_tags"})
    EXPECT_EQ(count(table), 0) << table;
  EXPECT_FALSE(records().get(owner_, kind("notes"), alone));
  auto kept_note = records().get(owner_, kind("notes"), shared);
  ASSERT_TRUE(kept_note) << "a note attached elsewhere too stays";
  EXPECT_TRUE((*kept_note)["listing_id"].is_null());
  auto contact = records().get(owner_, kind("contacts"), mia);
  ASSERT_TRUE(contact) << "a contact outlives its company";
  EXPECT_TRUE((*contact)["company_id"].is_null());

  auto listed = trash_->list(owner_);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, *entry);
  EXPECT_EQ(listed[0].kind, "companies");
  EXPECT_EQ(listed[0].record_id, acme);
  EXPECT_EQ(listed[0].title, "Acme");
  EXPECT_EQ(listed[0].gone.counts, gone->counts);
  EXPECT_TRUE(trash_->list(other_).empty());
  EXPECT_TRUE(std::holds_alternative<TrashNotFound>(trash_->restore(other_, *entry)))
      << "another person's entry is not there for them";

  auto back = trash_->restore(owner_, *entry);
  ASSERT_TRUE(std::holds_alternative<Restored>(back));
  EXPECT_EQ(std::get<Restored>(back).id, acme);
  EXPECT_EQ(snapshot(), before) << "every row back, under its own id, links put back";
  EXPECT_TRUE(trash_->list(owner_).empty());
  EXPECT_TRUE(std::holds_alternative<TrashNotFound>(trash_->restore(owner_, *entry)));
}

TEST_P(TrashTest, ARecordWhoseParentIsGoneWaitsForItsParent) {
  std::int64_t acme = make("companies", {{"name", "Acme"}});
  std::int64_t li = make("listings", {{"role", "SRE"}, {"company_id", id(acme)}});
  const std::string before = snapshot();
  auto listing_entry = records().remove(owner_, kind("listings"), li);
  auto company_entry = records().remove(owner_, kind("companies"), acme);
  ASSERT_TRUE(listing_entry && company_entry);
  const std::string emptied = snapshot();

  auto refused = trash_->restore(owner_, *listing_entry);
  ASSERT_TRUE(std::holds_alternative<RestoreRefused>(refused));
  const auto& why = std::get<RestoreRefused>(refused);
  EXPECT_EQ(why.why, RestoreRefused::Why::parent_gone);
  EXPECT_EQ(why.parent_kind, "companies");
  EXPECT_EQ(why.parent_entry, company_entry);
  EXPECT_EQ(snapshot(), emptied) << "a refused restore changes nothing";
  EXPECT_EQ(trash_->list(owner_).size(), 2u);

  ASSERT_TRUE(std::holds_alternative<Restored>(trash_->restore(owner_, *company_entry)));
  ASSERT_TRUE(std::holds_alternative<Restored>(trash_->restore(owner_, *listing_entry)));
  EXPECT_EQ(snapshot(), before);
}

TEST_P(TrashTest, ANameTakenSinceRefusesTheRestore) {
  std::int64_t acme = make("companies", {{"name", "Acme"}});
  auto entry = records().remove(owner_, kind("companies"), acme);
  ASSERT_TRUE(entry);
  make("companies", {{"name", "ACME"}});
  auto refused = trash_->restore(owner_, *entry);
  ASSERT_TRUE(std::holds_alternative<RestoreRefused>(refused));
  EXPECT_EQ(std::get<RestoreRefused>(refused).why, RestoreRefused::Why::name_taken);
  EXPECT_EQ(count("companies"), 1);
  EXPECT_EQ(trash_->list(owner_).size(), 1u) << "the entry stays for a later try";
}

TEST_P(TrashTest, ATagDeletedSinceIsLeftOffTheRestoredApplication) {
  std::int64_t acme = make("companies", {{"name", "Acme"}});
  std::int64_t li = make("listings", {{"role", "SRE"}, {"company_id", id(acme)}});
  Applications apps(records());
  std::int64_t a = std::get<Record>(apps.apply(owner_, li, "applied"))["id"].get<std::int64_t>();
  std::int64_t remote = make("tags", {{"name", "Remote"}});
  std::int64_t dream = make("tags", {{"name", "Dream"}});
  ASSERT_TRUE(std::holds_alternative<bool>(apps.set_tags(owner_, a, {remote, dream})));
  auto entry = records().remove(owner_, kind("applications"), a);
  ASSERT_TRUE(entry);
  ASSERT_TRUE(records().remove(owner_, kind("tags"), dream));
  ASSERT_TRUE(std::holds_alternative<Restored>(trash_->restore(owner_, *entry)));
  auto tags = apps.tags_of(owner_, a);
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0]["id"], remote);
}

TEST_P(TrashTest, TheUpkeepEmptiesEntriesAfterThirtyDays) {
  std::int64_t old_one = make("companies", {{"name", "Old"}});
  ASSERT_TRUE(records().remove(owner_, kind("companies"), old_one));
  clock_.advance(std::chrono::duration_cast<std::chrono::milliseconds>(Trash::kKeep) - 1h);
  std::int64_t newer = make("companies", {{"name", "Newer"}});
  ASSERT_TRUE(records().remove(owner_, kind("companies"), newer));
  EXPECT_EQ(trash_->empty_older_than(), 0);
  clock_.advance(2h);
  EXPECT_EQ(trash_->empty_older_than(), 1);
  auto left = trash_->list(owner_);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].title, "Newer");
}

// Every foreign key that points at a record is one the trash follows: a
// table added later that hangs on a record must say what a delete does to it.
TEST_P(TrashTest, EveryLinkToARecordIsOneTheTrashFollows) {
  if (postgres()) GTEST_SKIP() << "the schema is the same; SQLite lists it simply";
  const auto known = Trash::links();
  int seen = 0;
  for (const auto& table : db().query("SELECT name FROM sqlite_master WHERE type = 'table'")) {
    for (const auto& fk :
         db().query("SELECT \"table\" AS parent, \"from\" AS child FROM pragma_foreign_key_list(?)",
                    {table.text("name")})) {
      const std::string parent = fk.text("parent");
      if (find_kind(parent) == nullptr) continue;  // users, uploads, connections…
      const std::string link = table.text("name") + "." + fk.text("child") + " -> " + parent;
      EXPECT_NE(std::find(known.begin(), known.end(), link), known.end())
          << link << " is not followed by the trash (domain/trash.cpp, links_to)";
      ++seen;
    }
  }
  EXPECT_GE(seen, 15);
}

PETO_BOTH_BACKENDS(TrashTest);

}  // namespace
}  // namespace peto::domain
