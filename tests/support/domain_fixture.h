// Fixtures for the domain tests on both backends (TEST_P + PETO_BOTH_BACKENDS).
//
//   MigratedTest    a fresh database with every migration applied, cheap
//                   password hashing, a FakeClock and account(email).
//   TwoOwnersTest   that plus Records and two accounts: owner_ (ana) and
//                   other_ (ben).
//
// A derived SetUp calls the base SetUp first and returns when
// IsSkipped() || HasFatalFailure().
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "app/app.h"
#include "core/clock.h"
#include "domain/accounts.h"
#include "domain/records.h"
#include "store/migrate.h"
#include "tests/support/backends.h"
#include "tests/support/factory.h"

namespace peto::testing {

class MigratedTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    domain::set_password_cost(domain::PasswordCost::test);
    ASSERT_TRUE(store::Migrator(db(), app::migrations()).apply());
  }

  // Creates a (non-admin unless it is the first) account with the password
  // Factory::kPassword; returns its id.
  std::int64_t account(const std::string& email) { return Factory(db(), clock_).account(email); }

  FakeClock clock_;  // 2027-01-15T08:00:00Z
};

class TwoOwnersTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    records_ = std::make_unique<domain::Records>(db(), clock_);
    owner_ = account("ana@example.com");
    other_ = account("ben@example.com");
  }

  domain::Records& records() { return *records_; }
  std::int64_t count(const std::string& table) {
    return db().query("SELECT COUNT(*) FROM " + table)[0].int_at(0);
  }

  std::unique_ptr<domain::Records> records_;
  std::int64_t owner_ = 0;
  std::int64_t other_ = 0;
};

}  // namespace peto::testing
