// What the fuzz targets (tests/fuzz, clang only) check, on their seeds, in the
// ordinary test build: the multipart reader gives the same reading however
// the body is cut into pieces, and a Multi-Status answer yields exactly the
// members directly inside the collection (read_multistatus, which the
// dav_multistatus target fuzzes); a letter template's checks agree with its
// filling and doubled braces fill back to the text (placeholders).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "formats/placeholders.h"
#include "http/multipart.h"
#include "http/server_internal.h"
#include "sync/dav.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path corpus(const std::string& target) {
  return fs::path(PETO_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target;
}

struct Reading {
  std::string status;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string files;
};

Reading read(std::string_view type, std::string_view body, std::size_t piece) {
  std::size_t pos = 0;
  web::BodyReader reader = [&](char* out, std::size_t n) {
    std::size_t take = std::min({n, piece, body.size() - pos});
    if (take > 0) std::memcpy(out, body.data() + pos, take);
    pos += take;
    return take;
  };
  struct Append final : web::Sink {
    explicit Append(std::string& o) : out(o) {}
    Status write(std::string_view chunk) override {
      out.append(chunk);
      return Status::ok();
    }
    std::string& out;
  };
  Reading r;
  Append sink(r.files);
  web::Form fields;
  Status s = web::read_multipart(reader, type, fields, [&](const web::Part& p) -> web::Sink* {
    r.files += "|" + p.name + "/" + p.filename + ":";
    return &sink;
  });
  r.status = s.is_ok() ? "ok" : s.message();
  r.fields = fields.fields();
  return r;
}

// Seeds: a seed byte, the Content-Type line, the body (tests/fuzz/multipart_fuzz.cpp).
TEST(FuzzSeeds, MultipartReadingDoesNotDependOnThePieces) {
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(corpus("multipart"))) {
    std::string input = slurp(entry.path());
    std::size_t eol = input.find('\n');
    ASSERT_NE(eol, std::string::npos) << entry.path();
    std::string_view type = std::string_view(input).substr(1, eol - 1);
    std::string_view body = std::string_view(input).substr(eol + 1);
    Reading whole = read(type, body, body.size() + 1);
    for (std::size_t piece : {1, 2, 3, 7, 64}) {
      Reading cut = read(type, body, piece);
      EXPECT_EQ(cut.status, whole.status) << entry.path() << " in pieces of " << piece;
      EXPECT_EQ(cut.fields, whole.fields) << entry.path() << " in pieces of " << piece;
      EXPECT_EQ(cut.files, whole.files) << entry.path() << " in pieces of " << piece;
    }
    ++seeds;
  }
  EXPECT_GE(seeds, 3);
}

TEST(FuzzSeeds, UploadSeedReadsItsFieldsAndFile) {
  std::string input = slurp(corpus("multipart") / "upload");
  std::size_t eol = input.find('\n');
  Reading r =
      read(std::string_view(input).substr(1, eol - 1), std::string_view(input).substr(eol + 1), 5);
  EXPECT_EQ(r.status, "ok");
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_EQ(r.fields[1], std::make_pair(std::string("title"), std::string("My CV; v2")));
  // The lookalike boundary inside the file is data; the folder goes.
  EXPECT_EQ(r.files, "|file/cv.pdf:%PDF-1.4\r\n--AaB03\r\n");
}

TEST(FuzzSeeds, PropfindKeepsOnlyMembersDirectlyInside) {
  std::string body = slurp(corpus("dav_multistatus") / "propfind").substr(1);
  auto page = sync::read_multistatus(body, "https://dav.example/cal/work/", "/cal/work/", false);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->listing.members.size(), 2u);
  EXPECT_EQ(page->listing.members[0].href, "/cal/work/a.ics");
  EXPECT_EQ(page->listing.members[0].etag, "\"e1\"");
  EXPECT_EQ(page->listing.members[1].href, "/cal/work/b%20c.ics");
  EXPECT_TRUE(page->listing.removed.empty());
  EXPECT_FALSE(page->truncated);
}

TEST(FuzzSeeds, ReportReadsRemovedMembersTheTokenAndA507) {
  std::string body = slurp(corpus("dav_multistatus") / "report").substr(1);
  auto page = sync::read_multistatus(body, "https://dav.example/cal/work/", "/cal/work/", true);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->listing.members.size(), 1u);
  EXPECT_EQ(page->listing.members[0].href, "/cal/work/new.ics");
  EXPECT_EQ(page->listing.removed, std::vector<std::string>{"/cal/work/gone.ics"});
  EXPECT_EQ(page->listing.sync_token, "http://s/2");
  EXPECT_TRUE(page->truncated);
}

TEST(FuzzSeeds, EscapesOutOfTheCollectionAndDoctypesAreNotKept) {
  std::string card = slurp(corpus("dav_multistatus") / "carddav").substr(1);
  auto page = sync::read_multistatus(card, "https://dav.example:8443/dav/ana/contacts%20book/",
                                     "/dav/ana/contacts%20book/", false);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->listing.members.size(), 1u);  // "%2E%2E" is not a member
  EXPECT_EQ(page->listing.members[0].href, "/dav/ana/contacts%20book/%41na.vcf");
  std::string doctype = slurp(corpus("dav_multistatus") / "error_doctype").substr(1);
  EXPECT_FALSE(
      sync::read_multistatus(doctype, "https://dav.example/cal/work/", "/cal/work/", false));
}

// The request_framing target's seeds: what the server decides on each header.
TEST(FuzzSeeds, RequestFramingSeedsAreDecidedOnTheirHeaders) {
  auto refusal_of = [](const std::string& seed) {
    namespace http = boost::beast::http;
    std::string bytes = slurp(corpus("request_framing") / seed);
    http::request_parser<http::empty_body> parser;
    boost::beast::error_code ec;
    parser.put(boost::asio::buffer(bytes), ec);
    if (!parser.is_header_done()) return -1;  // Beast refused it itself: 400
    return web::server_detail::framing_refusal(parser.get());
  };
  EXPECT_EQ(refusal_of("te_gzip_chunked"), 501);
  EXPECT_EQ(refusal_of("http10_chunked"), 400);
  int both = refusal_of("te_and_length");
  EXPECT_TRUE(both == 400 || both == -1) << both;
  EXPECT_EQ(refusal_of("invite_xff"), 0);
  EXPECT_EQ(refusal_of("feed_forwarded"), 0);
}

// The placeholders target's seeds: the whole seed is the template.
TEST(FuzzSeeds, PlaceholderChecksAgreeWithFillingAndBracesDoubledFillBack) {
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(corpus("placeholders"))) {
    const std::string text = slurp(entry.path());
    const auto filled = formats::fill_placeholders(text, {{"company", "Acme"}});
    const auto checked = formats::check_placeholders(text);
    EXPECT_EQ(filled.index(), checked.index()) << entry.path();
    if (const auto* p = std::get_if<formats::PlaceholderProblem>(&filled)) {
      EXPECT_FALSE(p->message.empty()) << entry.path();
      if (const auto* c = std::get_if<formats::PlaceholderProblem>(&checked)) {
        EXPECT_EQ(c->message, p->message) << entry.path();
      }
    }
    std::string doubled;
    for (char c : text) doubled.append(c == '{' || c == '}' ? 2 : 1, c);
    const auto back = formats::fill_placeholders(doubled, {});
    ASSERT_TRUE(std::holds_alternative<std::string>(back)) << entry.path();
    EXPECT_EQ(std::get<std::string>(back), text) << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 5);
}

TEST(FuzzSeeds, PlaceholderSeedsAreReadAsTheirNamesSay) {
  auto problem_in = [](const std::string& seed) {
    auto r = formats::check_placeholders(slurp(corpus("placeholders") / seed));
    const auto* p = std::get_if<formats::PlaceholderProblem>(&r);
    return p != nullptr ? *p : formats::PlaceholderProblem{};
  };
  EXPECT_TRUE(problem_in("letter").message.empty());
  EXPECT_TRUE(problem_in("escapes").message.empty());
  EXPECT_TRUE(problem_in("markdown").message.empty());
  EXPECT_TRUE(problem_in("invalid_utf8").message.empty());
  EXPECT_EQ(problem_in("unknown").unknown, (std::vector<std::string>{"salary", "team", "bonus_x"}));
  const auto unclosed = problem_in("unclosed");
  EXPECT_EQ(unclosed.line, 1u);
  EXPECT_EQ(unclosed.column, 9u);  // after "Olá — 😀 ": characters, not bytes
  EXPECT_EQ(problem_in("lone_close").column, 17u);
  EXPECT_EQ(problem_in("empty_braces").column, 3u);
  EXPECT_EQ(problem_in("uppercase").column, 6u);
}

}  // namespace
}  // namespace peto
