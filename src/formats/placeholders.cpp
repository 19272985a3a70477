#include "formats/placeholders.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "core/utf8.h"

namespace peto::formats {
namespace {

constexpr std::size_t kMaxTemplateBytes = 64 * 1024;
// How much of a wrong name a message repeats.
constexpr std::size_t kMaxEchoBytes = 40;

using Values = std::map<std::string, std::string, std::less<>>;

struct Position {
  std::size_t line = 1;
  std::size_t column = 1;
};

// The 1-based line and column (in characters) of byte `at` of `text`.
Position position_of(std::string_view text, std::size_t at) {
  Position p;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      line_start = i + 1;
    }
  }
  p.column = utf8_length(text.substr(line_start, at - line_start)) + 1;
  return p;
}

bool is_name(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
}

bool is_known(std::string_view name) {
  const auto& known = letter_placeholders();
  return std::find(known.begin(), known.end(), name) != known.end();
}

std::string braced_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out.append("{").append(name).append("}");
  }
  return out;
}

std::string known_list() { return braced_list(letter_placeholders()); }

PlaceholderProblem syntax_problem(std::string_view text, std::size_t at, std::string_view what,
                                  std::string_view rest) {
  const Position p = position_of(text, at);
  PlaceholderProblem problem;
  problem.line = p.line;
  problem.column = p.column;
  problem.message = "\"" + std::string(what) + "\" at line " + std::to_string(p.line) +
                    ", column " + std::to_string(p.column) + " " + std::string(rest);
  return problem;
}

// The problem with the placeholder `{inside}` at byte `at`, whose name is
// not a name.
PlaceholderProblem bad_name(std::string_view text, std::size_t at, std::string_view inside) {
  if (inside.empty())
    return syntax_problem(text, at, "{}", "names no placeholder (write {{}} for braces)");
  std::string shown = utf8_cut(inside, kMaxEchoBytes);
  if (shown.size() < inside.size()) shown += "…";
  return syntax_problem(text, at, "{" + shown + "}",
                        "is not a placeholder: names are lowercase letters a-z and _ (known: " +
                            known_list() + "; write {{ for a brace)");
}

PlaceholderProblem unknown_problem(std::vector<std::string> unknown, Position first) {
  std::vector<std::string_view> names(unknown.begin(), unknown.end());
  PlaceholderProblem problem;
  problem.message =
      std::string(unknown.size() == 1 ? "unknown placeholder " : "unknown placeholders ") +
      braced_list(names) + "; known: " + known_list();
  problem.unknown = std::move(unknown);
  problem.line = first.line;
  problem.column = first.column;
  return problem;
}

// Reads `text` through, appending the filled text to `out` when there is
// one (values from `values`); the first syntax error, or every unknown name.
std::optional<PlaceholderProblem> walk(std::string_view text, const Values& values,
                                       std::string* out) {
  if (text.size() > kMaxTemplateBytes) {
    PlaceholderProblem problem;
    problem.message = "the template is " + std::to_string(text.size()) +
                      " bytes; a letter template may be at most 64 KiB (65536 bytes)";
    return problem;
  }
  std::vector<std::string> unknown;
  std::set<std::string, std::less<>> seen;
  std::size_t first_unknown = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t brace = text.find_first_of("{}", i);
    if (out != nullptr) out->append(text.substr(i, brace - i));
    if (brace == std::string_view::npos) break;
    const char c = text[brace];
    if (brace + 1 < text.size() && text[brace + 1] == c) {  // {{ or }}
      if (out != nullptr) out->push_back(c);
      i = brace + 2;
      continue;
    }
    if (c == '}') return syntax_problem(text, brace, "}", "has no \"{\" (write }} for a brace)");
    const std::size_t close = text.find_first_of("}\n", brace + 1);
    if (close == std::string_view::npos || text[close] != '}')
      return syntax_problem(text, brace, "{", "is not closed (write {{ for a brace)");
    const std::string_view name = text.substr(brace + 1, close - brace - 1);
    if (!is_name(name)) return bad_name(text, brace, name);
    if (!is_known(name)) {
      if (unknown.empty()) first_unknown = brace;
      if (seen.insert(std::string(name)).second) unknown.emplace_back(name);
    } else if (out != nullptr) {
      if (auto v = values.find(name); v != values.end()) out->append(v->second);
    }
    i = close + 1;
  }
  if (!unknown.empty())
    return unknown_problem(std::move(unknown), position_of(text, first_unknown));
  return std::nullopt;
}

bool always_escaped(char c) {
  static constexpr std::string_view kPunctuation = "\\*_[]()<>#`!|~&";
  return kPunctuation.find(c) != std::string_view::npos;
}

}  // namespace

const std::vector<std::string_view>& letter_placeholders() {
  static const std::vector<std::string_view> names = {"company", "role", "contact", "listing_url",
                                                      "date"};
  return names;
}

std::variant<std::string, PlaceholderProblem> fill_placeholders(std::string_view text,
                                                                const Values& values) {
  std::string out;
  if (text.size() <= kMaxTemplateBytes) out.reserve(text.size());
  if (auto problem = walk(text, values, &out)) return std::move(*problem);
  return out;
}

std::variant<std::monostate, PlaceholderProblem> check_placeholders(std::string_view text) {
  static const Values none;
  if (auto problem = walk(text, none, nullptr)) return std::move(*problem);
  return std::monostate{};
}

std::string markdown_literal(std::string_view value) {
  // Where the text starts on its line (spaces, tabs and the line ends that
  // become spaces go before it), and where a leading number ends.
  const std::size_t lead = std::min(value.find_first_not_of(" \t\r\n"), value.size());
  std::size_t digits_end = lead;
  while (digits_end < value.size() && value[digits_end] >= '0' && value[digits_end] <= '9')
    ++digits_end;
  std::string out;
  out.reserve(value.size() + value.size() / 8 + 2);
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < value.size() && value[i + 1] == '\n') ++i;
      out.push_back(' ');
      continue;
    }
    const bool leading_marker = i == lead && (c == '-' || c == '+' || c == '=');
    const bool number_dot = c == '.' && i == digits_end && digits_end > lead;
    if (always_escaped(c) || leading_marker || number_dot) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace peto::formats
