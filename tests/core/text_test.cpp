// The text helpers: header lists split as they are written, trimming and
// ASCII case.
#include "core/text.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace peto::text {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(TextTest, SplitKeepsEveryPieceInOrderUntrimmed) {
  EXPECT_EQ(split("gzip, chunked", ','), (Pieces{"gzip", " chunked"}));
  EXPECT_EQ(split("a,,b", ','), (Pieces{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (Pieces{""}));
  EXPECT_EQ(split(",", ','), (Pieces{"", ""}));
  EXPECT_EQ(split("for=192.0.2.7;proto=https", ';'), (Pieces{"for=192.0.2.7", "proto=https"}));
}

TEST(TextTest, TrimAndCaseAreAsciiOnly) {
  EXPECT_EQ(trim(" \t chunked \r\n"), "chunked");
  EXPECT_EQ(lower("ChUnKeD"), "chunked");
  EXPECT_EQ(lower("ÉTÉ"), "ÉtÉ") << "UTF-8 left as it was";
  EXPECT_TRUE(iequals("Transfer-Encoding", "transfer-encoding"));
  EXPECT_FALSE(iequals("chunked", "chunke"));
}

}  // namespace
}  // namespace peto::text
