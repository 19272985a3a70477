// Fuzzes the parsers of a captured job page: any bytes must come back as
// clean readings (or none) without a crash, a leak or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/posting.h"

namespace {

// The guarantees of posting.h that the sanitizers cannot see.
void check(const peto::formats::JobPosting& p) {
  auto valid = [](std::string_view s, bool newlines) {
    for (unsigned char c : s)
      if ((c < 0x20 && !(newlines && c == '\n')) || c == 0x7F) return false;
    return true;
  };
  for (std::string_view f : {std::string_view(p.role), std::string_view(p.company),
                             std::string_view(p.location), std::string_view(p.url)})
    if (!valid(f, false) || f.size() > 4 * 500) std::abort();
  if (!valid(p.description, true) || p.description.size() > 4 * 40000) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  for (const auto& result : peto::formats::parse_all(html, "https://jobs.example/1"))
    check(result.posting);
  return 0;
}
