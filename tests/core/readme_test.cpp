// The README's configuration table must list every variable peto reads.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/config.h"

namespace peto {
namespace {

TEST(Readme, ListsEveryVariableWithItsDefault) {
  std::ifstream in(std::string(PETO_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& v : config_variables()) {
    std::string row = "| `" + std::string(v.name) + "` |";
    auto at = text.str().find(row);
    ASSERT_NE(at, std::string::npos) << v.name << " is missing from the README table";
    std::string line = text.str().substr(at, text.str().find('\n', at) - at);
    EXPECT_NE(line.find(v.default_text), std::string::npos)
        << v.name << ": README row does not show the default " << v.default_text;
  }
}

}  // namespace
}  // namespace peto
