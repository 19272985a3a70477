// What peto writes on disk is for the account it runs as alone: the real
// binary makes its data folder 0700 and its database 0600, and closes a data
// folder an older install left open.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/support/backends.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

TEST(PrivateFilesTest, AFreshDataFolderAndDatabaseAreTheOwnersAlone) {
  testing::TempDir tmp;
  const fs::path data = tmp.path() / "data";
  auto r = testing::run_peto("sqlite://" + (data / "peto.db").string(), data.string(), "migrate",
                             tmp.path());
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(mode_of(data), 0700u);
  EXPECT_EQ(mode_of(data / "peto.db"), 0600u);
  for (const auto& entry : fs::directory_iterator(data))
    EXPECT_EQ(mode_of(entry.path()) & 077, 0u) << entry.path();
}

TEST(PrivateFilesTest, ADataFolderOpenToOthersIsClosedAtStart) {
  testing::TempDir tmp;
  const fs::path data = tmp.path() / "data";
  fs::create_directories(data);
  fs::permissions(data, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  ASSERT_EQ(mode_of(data), 0755u);
  auto r = testing::run_peto("sqlite://" + (data / "peto.db").string(), data.string(), "migrate",
                             tmp.path());
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(mode_of(data), 0700u);
  EXPECT_EQ(mode_of(data / "peto.db"), 0600u);
}

}  // namespace
}  // namespace peto
