// SignedInPairTest: the whole site (SiteTest) with two people signed in on
// their own sessions, ana_ (the first account, so the admin) and ben_: the
// shape of every test that checks one person's page against another's.
//
//   class SyncPagesTest : public peto::testing::SignedInPairTest {};
//   TEST_P(SyncPagesTest, …) { ana_->get("/profile/connections"); … }
//   PETO_BOTH_BACKENDS(SyncPagesTest);
//
// The sessions are opened directly (SignedInClient::with_session), so they do
// not count against the sign-in rate limit. config_.secret_key is set unless a
// derived fixture set its own, so connections can seal their secrets; a
// derived fixture sets other config_ fields before calling SetUp().
#pragma once

#include <memory>

#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"

namespace peto::testing {

class SignedInPairTest : public SiteTest {
 protected:
  void SetUp() override {
    if (config_.secret_key.empty())
      config_.secret_key = "a-test-secret-key-of-more-than-32-characters";
    SiteTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ana_ = std::make_unique<SignedInClient>(
        SignedInClient::with_session(port(), site_->accounts(), "ana@example.com"));
    ben_ = std::make_unique<SignedInClient>(
        SignedInClient::with_session(port(), site_->accounts(), "ben@example.com"));
  }

  std::unique_ptr<SignedInClient> ana_, ben_;
};

}  // namespace peto::testing
