// `peto verify-media` and `peto prune-media`, the real binary on both
// backends: every upload is checked now and damage recorded, missing,
// changed and stray files are listed, exit 1 when anything is damaged;
// prune lists the files no row names and deletes only those with --remove.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "media/documents.h"
#include "tests/support/domain_fixture.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

using testing::Ran;

class MediaCommandTest : public testing::MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    config_.data_dir = dir().string();
    owner_ = account("ana@example.com");
  }

  Ran peto(const std::string& args) {
    return testing::run_peto(url(), dir().string(), args, dir());
  }

  media::Document document(const std::string& text) {
    media::Documents docs(db(), clock_, config_);
    std::istringstream bytes(text);
    auto m = docs.create_from(owner_, {.title = "Doc", .filename = "d.txt"}, bytes);
    EXPECT_TRUE(std::holds_alternative<media::Document>(m));
    return std::get<media::Document>(m);
  }
  fs::path media() const { return fs::path(config_.media_dir()); }

  Config config_;
  std::int64_t owner_ = 0;
};

TEST_P(MediaCommandTest, VerifyChecksEverythingNowAndListsDamageAndStrays) {
  auto fine = document("fine\n");
  auto changed = document("changed\n");
  auto missing = document("missing\n");
  std::ofstream(media() / changed.file, std::ios::app) << "!";
  fs::remove(media() / missing.file);
  fs::create_directories(media() / "stray");
  std::ofstream(media() / "stray/old.pdf") << "x";

  Ran r = peto("verify-media");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("changed " + changed.file + " (upload " + std::to_string(changed.id) + ")"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("missing " + missing.file), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stray stray/old.pdf"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(fine.file), std::string::npos) << "a sound file is not listed";
  EXPECT_NE(r.out.find("3 uploads checked: 1 missing, 1 changed; 1 stray files"), std::string::npos)
      << r.out;
  auto rows = db().query("SELECT id, damage, verified_at FROM uploads ORDER BY id");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].text(1), "");
  EXPECT_EQ(rows[1].text(1), "changed");
  EXPECT_EQ(rows[2].text(1), "missing");
  for (const auto& row : rows) EXPECT_GT(row.int_at(2), 0) << "every upload was checked";
  EXPECT_TRUE(fs::exists(media() / "stray/old.pdf")) << "verify never deletes";
  std::ifstream in(media() / changed.file);
  std::string body((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(body, "changed\n!") << "nor alters";
}

TEST_P(MediaCommandTest, VerifyOnSoundMediaExitsZero) {
  document("one\n");
  document("two\n");
  Ran r = peto("verify-media");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 uploads checked: 0 missing, 0 changed; 0 stray files"), std::string::npos)
      << r.out;
}

TEST_P(MediaCommandTest, PruneListsStraysAndRemovesThemOnlyWithRemove) {
  auto kept = document("kept\n");
  fs::create_directories(media() / "documents/9");
  std::ofstream(media() / "documents/9/orphan.pdf") << "x";  // brand new: no grace here
  Ran listed = peto("prune-media");
  EXPECT_EQ(listed.code, 0) << listed.out << listed.err;
  EXPECT_NE(listed.out.find("stray documents/9/orphan.pdf"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("1 stray files"), std::string::npos);
  EXPECT_TRUE(fs::exists(media() / "documents/9/orphan.pdf"));

  Ran removed = peto("prune-media --remove");
  EXPECT_EQ(removed.code, 0) << removed.out << removed.err;
  EXPECT_NE(removed.out.find("removed documents/9/orphan.pdf"), std::string::npos);
  EXPECT_FALSE(fs::exists(media() / "documents/9/orphan.pdf"));
  EXPECT_TRUE(fs::exists(media() / kept.file)) << "a file a row names stays";
  EXPECT_EQ(peto("prune-media --bogus").code, 2);
}

PETO_BOTH_BACKENDS(MediaCommandTest);

}  // namespace
}  // namespace peto
