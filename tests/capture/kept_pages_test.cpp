// Kept capture pages on both backends: gzipped with their SHA-256 under the
// pages folder, read back only when intact, capped per account, and expired
// for captures not accepted once the clock has moved past the keep days.
#include "capture/kept_pages.h"

#include <gtest/gtest.h>

#include <fstream>

#include "domain/captures.h"
#include "tests/support/domain_fixture.h"

namespace peto::capture {
namespace {

using namespace std::chrono_literals;

class KeptPagesTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    captures_ = std::make_unique<domain::Captures>(records());
  }
  std::int64_t capture(std::int64_t owner, const std::string& url) {
    auto made = captures_->from_html(owner, url, "<h1>Engineer</h1>", "web");
    return std::get<domain::Capture>(made)["id"].get<std::int64_t>();
  }
  KeptPages pages(KeptPages::Limits limits = {}) {
    return KeptPages(db(), clock_, dir() / "pages", limits);
  }
  std::unique_ptr<domain::Captures> captures_;
};

TEST_P(KeptPagesTest, APageIsKeptGzippedAndReadBackIntact) {
  const auto id = capture(owner_, "https://jobs.example/1");
  const std::string html = "<html><body><h1>Ingénieure données</h1>" + std::string(5000, 'x');
  ASSERT_TRUE(pages().keep(owner_, id, html));
  auto file = dir() / "pages" / std::to_string(owner_) / (std::to_string(id) + ".html.gz");
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_LT(std::filesystem::file_size(file), html.size()) << "stored gzipped";
  EXPECT_EQ(pages().read(owner_, id), html);
  EXPECT_EQ((*captures_->get(owner_, id))["page_sha256"], domain::token_hash(html));
  EXPECT_FALSE(pages().read(other_, id)) << "another person's capture";
  EXPECT_FALSE(pages().keep(other_, id, html));

  // A changed file is not handed out as the page that was captured.
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "not gzip";
  EXPECT_FALSE(pages().read(owner_, id));
}

TEST_P(KeptPagesTest, EachAccountHasItsCaps) {
  KeptPages::Limits two;
  two.pages = 2;
  EXPECT_TRUE(pages(two).keep(owner_, capture(owner_, "https://jobs.example/1"), "a"));
  EXPECT_TRUE(pages(two).keep(owner_, capture(owner_, "https://jobs.example/2"), "b"));
  EXPECT_FALSE(pages(two).keep(owner_, capture(owner_, "https://jobs.example/3"), "c"));
  EXPECT_TRUE(pages(two).keep(other_, capture(other_, "https://jobs.example/1"), "d"))
      << "the cap is per account";
  KeptPages::Limits tiny;
  tiny.bytes = 10;
  EXPECT_FALSE(pages(tiny).keep(other_, capture(other_, "https://jobs.example/9"),
                                std::string(1000, 'z') + "unrepeatable 1f3e9a"));
}

TEST_P(KeptPagesTest, PagesOfCapturesNotAcceptedExpire) {
  const auto waiting = capture(owner_, "https://jobs.example/1");
  const auto accepted = capture(owner_, "https://jobs.example/2");
  ASSERT_TRUE(pages().keep(owner_, waiting, "<p>waiting</p>"));
  ASSERT_TRUE(pages().keep(owner_, accepted, "<p>accepted</p>"));
  domain::Input reviewed;
  reviewed.values = {{"role", "Engineer"}, {"company", "Acme"}};
  ASSERT_TRUE(
      std::holds_alternative<domain::Record>(captures_->accept(owner_, accepted, reviewed, false)));

  clock_.advance(29 * 24h);
  EXPECT_EQ(pages().expire(30), 0);
  EXPECT_EQ(pages().expire(0), 0) << "0 keeps everything";
  clock_.advance(2 * 24h);
  EXPECT_EQ(pages().expire(30), 1);
  EXPECT_FALSE(pages().read(owner_, waiting));
  EXPECT_FALSE(std::filesystem::exists(dir() / "pages" / std::to_string(owner_) /
                                       (std::to_string(waiting) + ".html.gz")));
  EXPECT_TRUE((*captures_->get(owner_, waiting))["page_sha256"].is_null());
  EXPECT_EQ(pages().read(owner_, accepted), "<p>accepted</p>") << "kept with its listing";
}

PETO_BOTH_BACKENDS(KeptPagesTest);

}  // namespace
}  // namespace peto::capture
