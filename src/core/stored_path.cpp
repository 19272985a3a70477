#include "core/stored_path.h"

#include <algorithm>
#include <system_error>

namespace peto {

namespace fs = std::filesystem;

bool is_plain_relative_path(std::string_view path) {
  if (path.empty() || path.size() > 1000 || path.front() == '/') return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = std::min(path.find('/', start), path.size());
    std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    for (unsigned char c : segment)
      if (c < 0x20 || c == 0x7f || c == '\\') return false;
    start = end + 1;
  }
  return true;
}

std::string stored_path(const fs::path& folder, std::string_view relative) {
  if (!is_plain_relative_path(relative)) return "";
  const fs::path joined = folder / fs::path(relative);
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(folder, ec);
  if (ec) return "";
  const fs::path resolved = fs::weakly_canonical(joined, ec);
  if (ec) return "";
  auto [in_root, in_file] =
      std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (in_root != root.end() || in_file == resolved.end()) return "";
  return joined.string();
}

}  // namespace peto
