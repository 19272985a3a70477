// `peto export` and `peto import`, the real binary against a real database on
// both backends: a round trip, exit 2 with one line and nothing written for
// an unknown account, a refused archive or an account with records without
// --force.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "app/app.h"
#include "tests/support/domain_fixture.h"

namespace peto {
namespace {

using testing::Ran;

class TransferCommandTest : public testing::MigratedTest {
 protected:
  Ran peto(const std::string& args) {
    return testing::run_peto(url(), dir().string(), args, dir());
  }
  std::int64_t rows(const std::string& table) {
    return db().query("SELECT COUNT(*) FROM " + table)[0].int_at(0);
  }
  // The last line of stderr: the one that says what went wrong.
  static std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    auto nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
  }
};

TEST_P(TransferCommandTest, ExportThenImportIntoAnotherAccount) {
  std::int64_t ana = account("ana@example.com");
  account("ben@example.com");
  app::load_demo(db(), clock_, ana);
  std::string zip = (dir() / "ana.zip").string();

  Ran out = peto("export --user ana@example.com --out '" + zip + "'");
  ASSERT_EQ(out.code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("exported "), std::string::npos) << out.out;
  EXPECT_NE(out.err.find("records…"), std::string::npos) << out.err;

  std::int64_t listings = rows("listings");
  Ran in = peto("import '" + zip + "' --user ben@example.com");
  ASSERT_EQ(in.code, 0) << in.out << in.err;
  EXPECT_EQ(rows("listings"), 2 * listings);

  // Ben has records now: without --force nothing more is written.
  Ran again = peto("import '" + zip + "' --user ben@example.com");
  EXPECT_EQ(again.code, 2) << again.err;
  EXPECT_NE(last_line(again.err).find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(rows("listings"), 2 * listings);

  Ran forced = peto("import '" + zip + "' --user ben@example.com --force");
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(rows("listings"), 3 * listings);
}

TEST_P(TransferCommandTest, BadInputIsExitTwoWithNothingWritten) {
  account("ana@example.com");
  std::string zip = (dir() / "ana.zip").string();
  Ran unknown = peto("export --user nobody@example.com --out '" + zip + "'");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("nobody@example.com"), std::string::npos);

  std::ofstream(dir() / "junk.zip") << "not a zip at all";
  std::int64_t before = rows("companies") + rows("uploads");
  Ran junk = peto("import '" + (dir() / "junk.zip").string() + "' --user ana@example.com");
  EXPECT_EQ(junk.code, 2);
  EXPECT_NE(last_line(junk.err).find("not a zip archive"), std::string::npos) << junk.err;
  EXPECT_NE(last_line(junk.err).find("nothing was changed"), std::string::npos) << junk.err;
  EXPECT_EQ(rows("companies") + rows("uploads"), before);

  Ran nobody = peto("import '" + (dir() / "junk.zip").string() + "' --user nobody@example.com");
  EXPECT_EQ(nobody.code, 2);
}

PETO_BOTH_BACKENDS(TransferCommandTest);

}  // namespace
}  // namespace peto
