// The multipart reader: fields and file parts read in chunks, a file written
// byte for byte (with lookalike boundaries inside and across chunk edges)
// and hashed, a part over its limit or a truncated body refused.
#include "http/multipart.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "media/uploads.h"
#include "tests/support/backends.h"

namespace peto::web {
namespace {

namespace fs = std::filesystem;
const std::string kBoundary = "xYzBoundary42";
const std::string kType = "multipart/form-data; boundary=\"" + kBoundary + "\"";

std::string body_with(const std::string& file) {
  return "preamble to skip\r\n--" + kBoundary +
         "\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntoken\r\n--" + kBoundary +
         "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"C:\\\\docs\\\\cv "
         "\\\"1\\\".pdf\""
         "\r\nContent-Type: application/pdf\r\n\r\n" +
         file + "\r\n--" + kBoundary +
         "\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMy CV\r\n--" + kBoundary +
         "--\r\n";
}

class MultipartTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& body) {
    fs::path p = dir_.path() / "body";
    std::ofstream(p, std::ios::binary) << body;
    return p;
  }
  testing::TempDir dir_;
};

TEST_F(MultipartTest, FieldsAndAFileReadInChunks) {
  // 200 KB with near-boundaries everywhere, including across 64 KB edges.
  std::string file;
  while (file.size() < 200 * 1024) file += "\r\n--xYzBoundary4\r\n-" + std::string(1, '\0') + "%";
  Form fields;
  std::optional<FileSink> sink;
  Part seen;
  Status s = read_multipart(write(body_with(file)), kType, fields, [&](const Part& p) -> Sink* {
    seen = p;
    sink.emplace(dir_.path() / "out" / "file.part", 1 << 20);
    return &*sink;
  });
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(fields.get("csrf"), "token");
  EXPECT_EQ(fields.get("title"), "My CV");
  EXPECT_EQ(seen.name, "file");
  EXPECT_EQ(seen.filename, "cv \"1\".pdf") << "no folder, quotes unescaped";
  ASSERT_TRUE(sink->finish());
  sink->keep();
  EXPECT_EQ(sink->size(), static_cast<std::int64_t>(file.size()));
  auto facts = media::read_facts((dir_.path() / "out" / "file.part").string());
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->size, static_cast<std::int64_t>(file.size()));
  EXPECT_EQ(sink->sha256(), facts->sha256);
  EXPECT_EQ(sink->head(), file.substr(0, 64 * 1024));
}

TEST_F(MultipartTest, AFileOverItsLimitStopsTheReadingAndIsRemoved) {
  Form fields;
  std::optional<FileSink> sink;
  fs::path out = dir_.path() / "big.part";
  Status s = read_multipart(write(body_with(std::string(5000, 'a'))), kType, fields,
                            [&](const Part&) -> Sink* {
                              sink.emplace(out, 4096);
                              return &*sink;
                            });
  EXPECT_FALSE(s);
  EXPECT_TRUE(sink->too_large());
  sink.reset();
  EXPECT_FALSE(fs::exists(out));
}

// Text fields are kept in memory, so however large the body, they are not
// let grow with it: a body of many fields stops at the limits.
TEST_F(MultipartTest, TextFieldsAreBoundedInCountAndInAll) {
  auto none = [](const Part&) -> Sink* { return nullptr; };
  auto fields_of = [&](int n, std::size_t each) {
    std::string body;
    for (int i = 0; i < n; ++i)
      body += "--" + kBoundary + "\r\nContent-Disposition: form-data; name=\"f" +
              std::to_string(i) + "\"\r\n\r\n" + std::string(each, 'v') + "\r\n";
    return body + "--" + kBoundary + "--\r\n";
  };
  Form many;
  EXPECT_FALSE(read_multipart(write(fields_of(5000, 0)), kType, many, none));
  EXPECT_LE(many.fields().size(), 1000u);
  Form large;
  EXPECT_FALSE(read_multipart(write(fields_of(40, 60 * 1024)), kType, large, none));
  Form fine;
  EXPECT_TRUE(read_multipart(write(fields_of(100, 1000)), kType, fine, none));
  EXPECT_EQ(fine.fields().size(), 100u);
}

TEST_F(MultipartTest, MalformedBodiesAreRefused) {
  Form fields;
  auto none = [](const Part&) -> Sink* { return nullptr; };
  std::string whole = body_with("abc");
  EXPECT_FALSE(read_multipart(write(whole.substr(0, whole.size() / 2)), kType, fields, none))
      << "truncated";
  EXPECT_FALSE(read_multipart(write("no boundary at all"), kType, fields, none));
  EXPECT_FALSE(read_multipart(write(whole), "application/x-www-form-urlencoded", fields, none));
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=abc"), "abc");
  EXPECT_EQ(multipart_boundary("text/plain; boundary=abc"), "");
}

}  // namespace
}  // namespace peto::web
