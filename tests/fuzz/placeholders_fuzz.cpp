// Fuzzes letter templates (formats/placeholders.h): the input is the
// template, and also a value for markdown_literal.
//
// Promises checked: fill_placeholders and check_placeholders find the same
// problem or none; a problem has a message, an unknown name is a-z and _
// only, not one of the five, and listed once, and a syntax error's line and
// column lie inside the text; any text with its braces doubled fills back to
// itself; a well-formed template without "{{" or "}}" fills back to itself
// when each value is its own placeholder, and never grows with no values;
// markdown_literal's text is one line and its backslash escapes, read as
// CommonMark reads them, give back the value with line ends as spaces.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>

#include "core/utf8.h"
#include "formats/placeholders.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace peto::formats;
using peto::fuzz::broken;
using Values = std::map<std::string, std::string, std::less<>>;

constexpr std::size_t kMaxTemplateBytes = 64 * 1024;

const Values& fixed_values() {
  static const Values values = {{"company", markdown_literal("*Acme* {role} & Co.")},
                                {"role", markdown_literal("- Backend engineer }}")},
                                {"contact", markdown_literal("Ana\nLima")},
                                {"listing_url", "https://acme.example/jobs/7"},
                                {"date", "2027-01-20"}};
  return values;
}

const Values& own_placeholders() {
  static const Values values = [] {
    Values v;
    for (std::string_view name : letter_placeholders())
      v.emplace(name, "{" + std::string(name) + "}");
    return v;
  }();
  return values;
}

bool same(const PlaceholderProblem& a, const PlaceholderProblem& b) {
  return a.message == b.message && a.unknown == b.unknown && a.line == b.line &&
         a.column == b.column;
}

void check_problem(std::string_view text, const PlaceholderProblem& p) {
  if (p.message.empty()) broken("a problem without a message");
  std::set<std::string> seen;
  for (const auto& name : p.unknown) {
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
      broken("an unknown name that is not a name");
    for (std::string_view known : letter_placeholders())
      if (name == known) broken("a known name reported unknown");
    if (!seen.insert(name).second) broken("an unknown name reported twice");
  }
  if (text.size() > kMaxTemplateBytes) return;
  if (p.line < 1 || p.column < 1) broken("a problem without its place");
  std::size_t line = 1, start = 0;
  for (std::size_t i = 0; i < text.size() && line < p.line; ++i) {
    if (text[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  if (line != p.line) broken("a problem after the last line");
  const std::size_t end = std::min(text.find('\n', start), text.size());
  if (p.column > peto::utf8_length(text.substr(start, end - start)))
    broken("a problem after the end of its line");
}

std::string doubled_braces(std::string_view text) {
  std::string out;
  for (char c : text) {
    out.push_back(c);
    if (c == '{' || c == '}') out.push_back(c);
  }
  return out;
}

void check_fill(std::string_view text) {
  const auto filled = fill_placeholders(text, fixed_values());
  const auto checked = check_placeholders(text);
  const auto* problem = std::get_if<PlaceholderProblem>(&filled);
  const auto* checked_problem = std::get_if<PlaceholderProblem>(&checked);
  if ((problem == nullptr) != (checked_problem == nullptr))
    broken("fill and check disagree on whether the template is good");
  if (problem != nullptr) {
    if (!same(*problem, *checked_problem)) broken("fill and check find different problems");
    check_problem(text, *problem);
  } else {
    const auto bare = fill_placeholders(text, {});
    if (!std::holds_alternative<std::string>(bare)) broken("no values made a template bad");
    if (std::get<std::string>(bare).size() > text.size()) broken("filling with nothing grew");
    const bool escapes =
        text.find("{{") != std::string_view::npos || text.find("}}") != std::string_view::npos;
    const auto own = fill_placeholders(text, own_placeholders());
    if (!escapes && std::get<std::string>(own) != text)
      broken("placeholders filled with themselves changed the text");
  }
  const std::string doubled = doubled_braces(text);
  if (doubled.size() <= kMaxTemplateBytes) {
    const auto back = fill_placeholders(doubled, fixed_values());
    if (!std::holds_alternative<std::string>(back) || std::get<std::string>(back) != text)
      broken("doubled braces did not fill back to the text");
  }
}

// What CommonMark shows for `md`: a backslash before ASCII punctuation is
// that character.
std::string unescaped(std::string_view md) {
  std::string out;
  for (std::size_t i = 0; i < md.size(); ++i) {
    const unsigned char next = i + 1 < md.size() ? md[i + 1] : 0;
    if (md[i] == '\\' && next < 0x80 && std::ispunct(next) != 0) ++i;
    out.push_back(md[i]);
  }
  return out;
}

void check_literal(std::string_view value) {
  const std::string md = markdown_literal(value);
  if (md.find_first_of("\r\n") != std::string::npos) broken("markdown_literal kept a line end");
  std::string want;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '\r' && i + 1 < value.size() && value[i + 1] == '\n') ++i;
    want.push_back(c == '\r' || c == '\n' ? ' ' : c);
  }
  if (unescaped(md) != want) broken("markdown_literal does not show the value");
  for (std::size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '\\') {
      ++i;  // an escape, or a backslash at the end
      continue;
    }
    if (std::string_view("*_[]()<>#`!|~&").find(md[i]) != std::string_view::npos)
      broken("markdown_literal left Markdown punctuation unescaped");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_fill(text);
  check_literal(text);
  return 0;
}
