// Fuzzes the reading of a WebDAV Multi-Status answer (sync/dav.h,
// read_multistatus: expat in namespace mode, then the members picked out of
// it), as a CalDAV or CardDAV server's answer to PROPFIND or to a
// sync-collection REPORT. The first byte picks the collection's address and
// whether removed members are read (a REPORT); the rest is the body.
//
// Promise checked: every member and removed href peto keeps is an absolute
// path directly inside the collection, compared decoded (peto reads, writes
// and deletes nothing else with the person's credentials).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sync/dav.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using peto::fuzz::broken;

struct Collection {
  const char* url;
  const char* path;
  const char* decoded_dir;
};
constexpr Collection kCollections[] = {
    {"https://dav.example/cal/work/", "/cal/work/", "/cal/work/"},
    {"https://dav.example:8443/dav/ana/contacts%20book/", "/dav/ana/contacts%20book/",
     "/dav/ana/contacts book/"},
    {"http://127.0.0.1/", "/", "/"},
};

std::optional<std::string> decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
      return std::nullopt;
    out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
    i += 2;
  }
  return out;
}

void inside(const std::string& href, const Collection& c) {
  auto path = decoded(href);
  if (!path) broken("a kept href has a broken escape");
  std::string_view dir = c.decoded_dir;
  if (!std::string_view(*path).starts_with(dir)) broken("a kept href is outside the collection");
  std::string_view name = std::string_view(*path).substr(dir.size());
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != std::string_view::npos)
    broken("a kept href is not directly inside the collection");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Collection& c = kCollections[data[0] % std::size(kCollections)];
  const bool report = (data[0] / std::size(kCollections)) % 2 == 1;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto page = peto::sync::read_multistatus(body, c.url, c.path, report);
  if (!page) return 0;
  for (const auto& m : page->listing.members) inside(m.href, c);
  for (const auto& h : page->listing.removed) {
    if (!report) broken("removed hrefs from a PROPFIND");
    inside(h, c);
  }
  return 0;
}
