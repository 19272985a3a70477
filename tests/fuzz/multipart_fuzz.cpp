// Fuzzes the multipart/form-data reader of uploads (http/multipart.h). The
// input is a Content-Type line, then the body; its first byte seeds the
// sizes of the pieces the body is handed over in (as reads from the spooled
// file or the socket would), from 1 byte up.
//
// Promises checked: the reading does not depend on how the body is cut into
// pieces (the same fields, files and answer as in one piece), text fields
// are at most 64 KB, and a file part's name holds no folder.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "http/multipart.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using peto::Status;
using peto::fuzz::broken;
using namespace peto::web;

class Collect final : public Sink {
 public:
  explicit Collect(std::string& out) : out_(out) {}
  Status write(std::string_view chunk) override {
    out_.append(chunk);
    return Status::ok();
  }

 private:
  std::string& out_;
};

struct Reading {
  bool ok = false;
  std::string message;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> files;  // "name/filename/type:bytes"
};

Reading read(std::string_view type, std::string_view body, std::uint32_t seed) {
  std::size_t pos = 0;
  std::uint32_t state = seed | 1;
  BodyReader reader = [&](char* out, std::size_t n) {
    std::size_t take = std::min(n, body.size() - pos);
    if (seed != 0) {
      state = state * 1664525u + 1013904223u;  // a small generator: the piece sizes
      std::size_t piece = 1 + (state >> 16) % 300;
      take = std::min(take, piece);
    }
    if (take > 0) std::memcpy(out, body.data() + pos, take);
    pos += take;
    return take;
  };
  Reading r;
  Form fields;
  std::vector<std::string> contents;
  std::vector<std::unique_ptr<Collect>> sinks;
  contents.reserve(1000);
  Status s = read_multipart(reader, type, fields, [&](const Part& p) -> Sink* {
    if (p.filename.find_first_of("/\\") != std::string::npos) broken("a file name keeps a folder");
    if (contents.size() == 1000) return nullptr;
    contents.push_back(p.name + "/" + p.filename + "/" + p.content_type + ":");
    sinks.push_back(std::make_unique<Collect>(contents.back()));
    return sinks.back().get();
  });
  r.ok = s.is_ok();
  r.message = s.message();
  r.fields = fields.fields();
  r.files = std::move(contents);
  for (const auto& [_, value] : r.fields)
    if (value.size() > 64 * 1024) broken("a text field over 64 KB");
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint32_t seed = data[0] + 1u;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t eol = rest.find('\n');
  if (eol == std::string_view::npos) return 0;
  std::string_view type = rest.substr(0, eol);
  std::string_view body = rest.substr(eol + 1);

  Reading whole = read(type, body, 0);
  Reading pieces = read(type, body, seed);
  if (whole.ok != pieces.ok || whole.message != pieces.message)
    broken("the answer depends on how the body is cut");
  if (whole.fields != pieces.fields) broken("the fields depend on how the body is cut");
  if (whole.files != pieces.files) broken("the files depend on how the body is cut");
  return 0;
}
