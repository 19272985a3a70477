// stored_path: a path read from the database leads to a file inside its
// folder or to nothing.
#include "core/stored_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/backends.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

TEST(StoredPathTest, APathPetoWroteLeadsToItsFile) {
  testing::TempDir tmp;
  const fs::path media = tmp.path() / "media";
  fs::create_directories(media / "documents" / "7");
  EXPECT_EQ(stored_path(media, "documents/7/ab12.pdf"), (media / "documents/7/ab12.pdf").string());
  EXPECT_EQ(stored_path(media, "not-yet-there.html.gz"), (media / "not-yet-there.html.gz").string())
      << "a file that does not exist yet may still be named";
}

TEST(StoredPathTest, AnythingLeadingOutOfTheFolderIsNothing) {
  testing::TempDir tmp;
  const fs::path media = tmp.path() / "media";
  fs::create_directories(media / "documents");
  std::ofstream(tmp.path() / "secret.txt") << "top secret";
  fs::create_directory_symlink(tmp.path(), media / "documents" / "out");
  for (const char* hostile :
       {"../secret.txt", "documents/../../secret.txt", "/etc/passwd", "documents//x.pdf", "./x",
        "documents/./x", "", "documents\\..\\..\\secret.txt", "documents/out/secret.txt",
        "documents/out", "x\n"})
    EXPECT_EQ(stored_path(media, hostile), "") << hostile;
}

}  // namespace
}  // namespace peto
