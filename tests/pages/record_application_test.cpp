// "Record an application": the company, the listing and the application
// sent on a day, in one form. All of it is written, or (any field refused)
// none of it, with every reason next to its field.
#include <gtest/gtest.h>

#include <string>

#include "core/timezone.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class RecordApplicationTest : public peto::testing::SignedInPairTest {
 protected:
  std::int64_t count(const std::string& table) {
    return db().query("SELECT COUNT(*) FROM " + table)[0].int_at(0);
  }
};

TEST_P(RecordApplicationTest, OneFormMakesTheCompanyTheListingAndTheApplication) {
  auto form = ana_->get("/applications/record");
  ASSERT_EQ(form.status, 200);
  for (const char* name : {"company", "role", "url", "location", "applied_on", "channel"})
    EXPECT_NE(form.body.find(std::string("name=\"") + name + "\""), std::string::npos) << name;
  EXPECT_NE(form.body.find("value=\"2027-01-15\""), std::string::npos) << "today by default";

  auto made = ana_->post_form("/applications/record", {{"company", "Acme"},
                                                       {"role", "Data engineer"},
                                                       {"location", "Berlin"},
                                                       {"applied_on", "2027-01-10"},
                                                       {"channel", "referral"}});
  ASSERT_EQ(made.status, 303) << made.body;
  const std::string at = made.header("Location");
  ASSERT_EQ(at.rfind("/applications/", 0), 0u) << at;
  auto row = db().query(
      "SELECT a.status, a.applied_at, a.channel, l.role, l.location, c.name FROM applications a"
      " JOIN listings l ON l.id = a.listing_id JOIN companies c ON c.id = l.company_id");
  ASSERT_EQ(row.size(), 1u);
  EXPECT_EQ(row[0].text("status"), "applied");
  EXPECT_EQ(row[0].int_at("applied_at"), parse_local("2027-01-10 12:00", "UTC").value());
  EXPECT_EQ(row[0].text("channel"), "referral");
  EXPECT_EQ(row[0].text("role"), "Data engineer");
  EXPECT_EQ(row[0].text("name"), "Acme");

  // The same company by another spelling is found, not made again.
  ASSERT_EQ(ana_->post_form("/applications/record", {{"company", "ACME"}, {"role", "SRE"}}).status,
            303);
  EXPECT_EQ(count("companies"), 1);
  EXPECT_EQ(count("applications"), 2);
}

TEST_P(RecordApplicationTest, ARefusedFieldWritesNothingAndSaysWhyByEachField) {
  auto refused = ana_->post_form("/applications/record", {{"company", "Newco"},
                                                          {"role", ""},
                                                          {"url", "ftp://newco.example"},
                                                          {"applied_on", "2027-02-30"}});
  EXPECT_EQ(refused.status, 422);
  for (const char* field : {"role", "url", "applied_on"})
    EXPECT_NE(refused.body.find(std::string("id=\"f-") + field + "-error\""), std::string::npos)
        << field;
  EXPECT_NE(refused.body.find("value=\"Newco\""), std::string::npos) << "what was typed stays";

  auto future =
      ana_->post_form("/applications/record",
                      {{"company", "Newco"}, {"role", "SRE"}, {"applied_on", "2027-03-01"}});
  EXPECT_EQ(future.status, 422);
  EXPECT_NE(future.body.find("id=\"f-applied_on-error\""), std::string::npos) << future.body;
  EXPECT_EQ(count("companies"), 0) << "not even the company";
  EXPECT_EQ(count("listings"), 0);
  EXPECT_EQ(count("applications"), 0);
}

PETO_BOTH_BACKENDS(RecordApplicationTest);

}  // namespace
}  // namespace peto::web
