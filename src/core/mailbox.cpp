#include "core/mailbox.h"

#include <cstring>

namespace peto {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// `"Peto \"Bot\""` → `Peto "Bot"`; an unquoted name as it is.
std::optional<std::string> unquoted(std::string_view name) {
  if (name.size() < 2 || name.front() != '"' || name.back() != '"') return std::string(name);
  name = name.substr(1, name.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '\\') {
      if (++i == name.size()) return std::nullopt;
    } else if (name[i] == '"') {
      return std::nullopt;
    }
    out += name[i];
  }
  return out;
}

}  // namespace

bool plausible_address(std::string_view a) {
  auto at = a.rfind('@');
  if (a.size() > 254 || at == std::string_view::npos || at == 0 || at + 1 == a.size()) return false;
  for (char ch : a) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= 32 || c == 127 || std::strchr("<>()[],;:\\\"", ch) != nullptr) return false;
  }
  return true;
}

std::optional<Mailbox> parse_mailbox(std::string_view text) {
  for (char ch : text)
    if (static_cast<unsigned char>(ch) < 32 || ch == 127) return std::nullopt;
  text = trim(text);
  Mailbox m;
  if (text.ends_with('>')) {
    auto open = text.rfind('<');
    if (open == std::string_view::npos) return std::nullopt;
    std::string_view name = trim(text.substr(0, open));
    if (name.find_first_of("<>") != std::string_view::npos || name.size() > 200)
      return std::nullopt;
    auto plain = unquoted(name);
    if (!plain) return std::nullopt;
    m.name = *plain;
    m.address = std::string(trim(text.substr(open + 1, text.size() - open - 2)));
  } else {
    m.address = std::string(text);
  }
  if (!plausible_address(m.address)) return std::nullopt;
  return m;
}

}  // namespace peto
