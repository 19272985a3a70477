#include "core/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace peto {
namespace {

TEST(JsonDepth, CountsArraysAndObjectsOutsideStrings) {
  EXPECT_EQ(json_nesting_depth(""), 0);
  EXPECT_EQ(json_nesting_depth("7"), 0);
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": 2}]})"), 3);
  EXPECT_EQ(json_nesting_depth(R"({"a": "[[[{{{"})"), 1) << "brackets in strings do not count";
  EXPECT_EQ(json_nesting_depth(R"({"a": "\"[[["})"), 1) << "an escaped quote does not end it";
  EXPECT_EQ(json_nesting_depth("[][][]"), 1);
}

TEST(JsonDepth, StopsCountingPastTheLimit) {
  std::string deep(100000, '[');
  EXPECT_GT(json_nesting_depth(deep, 32), 32);
  EXPECT_LE(json_nesting_depth(deep, 32), 33);
  EXPECT_EQ(json_nesting_depth(deep), 100000);
}

}  // namespace
}  // namespace peto
