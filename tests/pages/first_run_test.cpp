// A person with nothing in peto yet is told what to do first, instead of
// being shown five empty lists; once there is a listing, the dashboard is
// the usual one. A notifier already set up is marked done.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/factory.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class FirstRunTest : public peto::testing::SignedInPairTest {};

TEST_P(FirstRunTest, TheFirstDashboardSaysWhatToDoFirst) {
  auto first = ana_->get("/");
  ASSERT_EQ(first.status, 200);
  const std::string& b = first.body;
  EXPECT_NE(b.find(">Start here</h2>"), std::string::npos) << b;
  for (const char* href : {"/listings/new", "/captures", "/profile/connections"})
    EXPECT_NE(b.find(std::string("<a href=\"") + href + "\">"), std::string::npos) << href;
  EXPECT_EQ(b.find("badge\">Done<"), std::string::npos) << "nothing is done yet";

  auto made = ana_->post_form("/profile/connections/new?plugin=webhook",
                              {{"label", "My hook"},
                               {"config_url", "https://hooks.example/peto"},
                               {"config_secret", "a-webhook-secret-of-32-characters!"},
                               {"event_reminder_due", "on"}});
  EXPECT_EQ(made.status, 303) << made.body;
  EXPECT_NE(ana_->get("/").body.find("badge\">Done<"), std::string::npos)
      << "a notifier set up is marked done";

  testing::Factory f(db(), clock_);
  f.listing(ana_->account().id, f.company(ana_->account().id, "Acme"), "SRE");
  EXPECT_EQ(ana_->get("/").body.find(">Start here</h2>"), std::string::npos);
  EXPECT_NE(ben_->get("/").body.find(">Start here</h2>"), std::string::npos)
      << "ben has nothing yet";
}

PETO_BOTH_BACKENDS(FirstRunTest);

}  // namespace
}  // namespace peto::web
