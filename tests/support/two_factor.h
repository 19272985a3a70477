// Two-step sign-in in tests: codes from Debian's oathtool (an authenticator
// no one here wrote), and turning it on for an account in one call.
//
//   std::string code = oathtool_code(secret, clock.now_ms() / 1000);
//   auto codes = turn_on_two_factor(site.two_factor(), id, email, clock);
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/two_factor.h"
#include "tests/support/backends.h"

namespace peto::testing {

// oathtool's TOTP code for `secret` (base32) at Unix second `at_s`; "" after
// a test failure when oathtool does not run.
inline std::string oathtool_code(const std::string& secret, std::int64_t at_s) {
  std::string out;
  EXPECT_EQ(run_command("oathtool --totp -b '" + secret + "' --now '@" + std::to_string(at_s) + "'",
                        &out),
            0)
      << out;
  return out.substr(0, 6);
}

// Enrols and confirms with oathtool's code at the clock's time; the
// recovery codes (empty after a test failure).
inline std::vector<std::string> turn_on_two_factor(domain::TwoFactor& tf, std::int64_t user_id,
                                                   const std::string& email, const Clock& clock) {
  auto enrolment = tf.begin(user_id, email);
  EXPECT_TRUE(enrolment);
  if (!enrolment) return {};
  auto confirmed = tf.confirm(user_id, oathtool_code(enrolment->secret, clock.now_ms() / 1000));
  EXPECT_TRUE(std::holds_alternative<std::vector<std::string>>(confirmed));
  if (!std::holds_alternative<std::vector<std::string>>(confirmed)) return {};
  return std::get<std::vector<std::string>>(confirmed);
}

}  // namespace peto::testing
