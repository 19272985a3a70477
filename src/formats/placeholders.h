// Letter templates: Markdown text with placeholders for the application a
// letter is written for, filled in when the letter is made.
//
//   std::map<std::string, std::string, std::less<>> values = {
//       {"company", markdown_literal(company)}, {"role", markdown_literal(role)}};
//   auto filled = fill_placeholders("Dear {contact},\n\nThe {role} role at {company}…", values);
//   if (auto* problem = std::get_if<PlaceholderProblem>(&filled)) show(problem->message);
//
// The placeholders are the five of letter_placeholders(), written `{company}`;
// `{{` and `}}` write a literal `{` and `}`. Anything else between braces is
// an error: a `{` not closed by a `}` on the same line, an empty `{}`, a name
// with characters other than a-z and _ (`{Company}`), or a `}` that is not
// `}}`. Line and column (1-based, the column in characters) are those of the
// brace that is wrong; lines end at "\n".
//
// A known placeholder with no value in `values` becomes empty text. Values
// are put in as they are, never read for placeholders again: a caller that
// puts text a person typed into a template passes it through
// markdown_literal() first, so that a company called "*Acme*" stays that
// text and does not become emphasis, a link or a heading.
//
// Limits: at most 64 KiB of template text. Text that is not UTF-8 is copied
// through untouched (a column then counts the bytes that do not continue a
// sequence). Never throws but for out-of-memory; pure functions, safe from
// any thread.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace peto::formats {

// Why a template cannot be used; `message` says so in words for the person
// who wrote it. When the template is well formed but names placeholders that
// do not exist, `unknown` holds each of those names once (without braces,
// in order of first appearance) and line/column point at the first of them.
// Otherwise `unknown` is empty and line/column point at the first brace
// that is wrong (both 0 when the template is too long).
struct PlaceholderProblem {
  std::string message;
  std::vector<std::string> unknown;
  std::size_t line = 0;
  std::size_t column = 0;
};

// The placeholders a letter template may use, without braces: company,
// role, contact, listing_url, date (in that order).
const std::vector<std::string_view>& letter_placeholders();

// `text` with each placeholder replaced by its value in `values` (keyed by
// name, without braces) and `{{`/`}}` by a brace; or the problem.
std::variant<std::string, PlaceholderProblem> fill_placeholders(
    std::string_view text, const std::map<std::string, std::string, std::less<>>& values);

// The same checks as fill_placeholders(), without filling: for a template
// about to be saved.
std::variant<std::monostate, PlaceholderProblem> check_placeholders(std::string_view text);

// `value` as Markdown that shows exactly that text, on one line: a
// backslash before each of \ * _ [ ] ( ) < > # ` ! | ~ & (CommonMark reads
// a backslash before ASCII punctuation as that character), before a
// leading - + or = (lists, rules, headings) and before the dot of a leading
// number ("1." starts a list); "\r\n", "\r" and "\n" each become a space.
// Leading spaces are kept.
std::string markdown_literal(std::string_view value);

}  // namespace peto::formats
