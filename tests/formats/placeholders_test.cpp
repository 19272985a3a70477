// Letter templates: placeholders filled, braces escaped, every unknown name
// and the place of every syntax error reported, and values made literal
// Markdown.
#include "formats/placeholders.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <variant>
#include <vector>

namespace peto::formats {
namespace {

using Values = std::map<std::string, std::string, std::less<>>;

std::string filled(std::string_view text, const Values& values = {}) {
  auto r = fill_placeholders(text, values);
  if (auto* p = std::get_if<PlaceholderProblem>(&r)) {
    ADD_FAILURE() << "refused: " << p->message;
    return {};
  }
  return std::get<std::string>(r);
}

PlaceholderProblem problem(std::string_view text) {
  auto r = fill_placeholders(text, {{"company", "Acme"}});
  auto checked = check_placeholders(text);
  if (!std::holds_alternative<PlaceholderProblem>(r)) {
    ADD_FAILURE() << "filled: " << std::get<std::string>(r);
    return {};
  }
  const auto& p = std::get<PlaceholderProblem>(r);
  // check_placeholders finds the same problem as fill_placeholders.
  if (!std::holds_alternative<PlaceholderProblem>(checked)) {
    ADD_FAILURE() << "check_placeholders passed " << text;
  } else {
    const auto& c = std::get<PlaceholderProblem>(checked);
    EXPECT_EQ(c.message, p.message);
    EXPECT_EQ(c.unknown, p.unknown);
    EXPECT_EQ(c.line, p.line);
    EXPECT_EQ(c.column, p.column);
  }
  EXPECT_FALSE(p.message.empty());
  return p;
}

// The text CommonMark shows for `md` when it holds no Markdown but
// backslash escapes: a backslash before ASCII punctuation is that character.
// Fails on a character that would mean something unescaped.
std::string shown(std::string_view md) {
  std::string out;
  for (std::size_t i = 0; i < md.size(); ++i) {
    const char c = md[i];
    if (c == '\\' && i + 1 < md.size() && std::ispunct(static_cast<unsigned char>(md[i + 1]))) {
      out.push_back(md[++i]);
      continue;
    }
    if (std::string_view("\\*_[]()<>#`!|~&\r\n").find(c) != std::string_view::npos)
      ADD_FAILURE() << "unescaped '" << c << "' at " << i << " of " << md;
    out.push_back(c);
  }
  return out;
}

TEST(Placeholders, TheFiveAreFixedAndInOrder) {
  EXPECT_EQ(letter_placeholders(),
            (std::vector<std::string_view>{"company", "role", "contact", "listing_url", "date"}));
}

TEST(Placeholders, FillsAllFive) {
  const Values values = {{"company", "Acme"},
                         {"role", "Backend engineer"},
                         {"contact", "Ana Lima"},
                         {"listing_url", "https://acme.example/jobs/7"},
                         {"date", "2027-01-20"}};
  EXPECT_EQ(filled("# {role}\n\nDear {contact},\n\n{company} ({listing_url}), {date}. {company}!",
                   values),
            "# Backend engineer\n\nDear Ana Lima,\n\nAcme (https://acme.example/jobs/7), "
            "2027-01-20. Acme!");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      check_placeholders("{company}{role}{contact}{listing_url}{date}")));
}

TEST(Placeholders, DoubledBracesWriteOneBrace) {
  EXPECT_EQ(filled("{{company}} is {company}; {{ and }} and {{{role}}}",
                   {{"company", "Acme"}, {"role", "Dev"}}),
            "{company} is Acme; { and } and {Dev}");
  EXPECT_EQ(filled("{{}}"), "{}");
  EXPECT_EQ(filled("}}}}{{"), "}}{");
}

TEST(Placeholders, TextWithoutBracesIsUnchanged) {
  const std::string text = "Olá, São Paulo — 😀\r\n\tno braces at all\n";
  EXPECT_EQ(filled(text), text);
  EXPECT_EQ(filled(""), "");
}

TEST(Placeholders, AValueIsNotReadForPlaceholders) {
  EXPECT_EQ(filled("{company}", {{"company", "{role} }{ {{"}, {"role", "no"}}), "{role} }{ {{");
}

TEST(Placeholders, AMissingValueBecomesEmpty) {
  EXPECT_EQ(filled("Dear {contact}, re {role} at {company}.", {{"company", "Acme"}}),
            "Dear , re  at Acme.");
}

TEST(Placeholders, ValuesForOtherNamesDoNotMakeThemKnown) {
  auto r = fill_placeholders("{salary}", {{"salary", "lots"}});
  ASSERT_TRUE(std::holds_alternative<PlaceholderProblem>(r));
  EXPECT_EQ(std::get<PlaceholderProblem>(r).unknown, std::vector<std::string>{"salary"});
}

TEST(Placeholders, EveryUnknownNameIsReportedOnceInOrder) {
  const auto p =
      problem("Hi {contact},\n{salary} for {team} in {company}; {salary}, {team}, {bonus_x}");
  EXPECT_EQ(p.unknown, (std::vector<std::string>{"salary", "team", "bonus_x"}));
  EXPECT_EQ(p.message,
            "unknown placeholders {salary}, {team}, {bonus_x}; known: {company}, {role}, "
            "{contact}, {listing_url}, {date}");
  EXPECT_EQ(p.line, 2u);  // the first unknown one
  EXPECT_EQ(p.column, 1u);
}

TEST(Placeholders, OneUnknownNameIsSaidInTheSingular) {
  const auto p = problem("{company} {team}");
  EXPECT_EQ(p.message,
            "unknown placeholder {team}; known: {company}, {role}, {contact}, {listing_url}, "
            "{date}");
  EXPECT_EQ(p.column, 11u);
}

TEST(Placeholders, AnUnclosedBraceIsReportedWhereItIs) {
  const auto p = problem("Dear {contact},\n\nThanks\nfor {the interview\n}");
  EXPECT_TRUE(p.unknown.empty());
  EXPECT_EQ(p.line, 4u);
  EXPECT_EQ(p.column, 5u);
  EXPECT_EQ(p.message, "\"{\" at line 4, column 5 is not closed (write {{ for a brace)");
  EXPECT_EQ(problem("text {").column, 6u);
}

TEST(Placeholders, ColumnsCountCharactersNotBytes) {
  // "Olá — 😀 " is 8 characters and 14 bytes.
  const auto p = problem("first\nOlá — 😀 {company");
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.column, 9u);
  EXPECT_EQ(p.message, "\"{\" at line 2, column 9 is not closed (write {{ for a brace)");
  EXPECT_EQ(problem("é}").column, 2u);
  EXPECT_EQ(problem("日本語 {x}").column, 5u);  // unknown: the first one's place
}

TEST(Placeholders, ASyntaxErrorComesFirstAndAlone) {
  const auto p = problem("{salary} then {oops");
  EXPECT_TRUE(p.unknown.empty());
  EXPECT_EQ(p.column, 15u);
}

TEST(Placeholders, EmptyBracesAreRefused) {
  const auto p = problem("a {} b");
  EXPECT_EQ(p.line, 1u);
  EXPECT_EQ(p.column, 3u);
  EXPECT_EQ(p.message, "\"{}\" at line 1, column 3 names no placeholder (write {{}} for braces)");
}

TEST(Placeholders, ALoneClosingBraceIsRefused) {
  const auto p = problem("{company} }\n");
  EXPECT_EQ(p.line, 1u);
  EXPECT_EQ(p.column, 11u);
  EXPECT_EQ(p.message, "\"}\" at line 1, column 11 has no \"{\" (write }} for a brace)");
  EXPECT_EQ(problem("}}}").column, 3u);  // "}}" then a lone one
}

TEST(Placeholders, NamesAreLowercaseLettersAndUnderscores) {
  const auto upper = problem("Dear {Company}");
  EXPECT_EQ(upper.column, 6u);
  EXPECT_TRUE(upper.unknown.empty());
  EXPECT_EQ(upper.message.rfind("\"{Company}\" at line 1, column 6 is not a placeholder", 0), 0u)
      << upper.message;
  for (const char* bad : {"{COMPANY}", "{company }", "{ company}", "{role2}", "{listing-url}",
                          "{a{b}", "{café}", "{\xff}"})
    EXPECT_TRUE(problem(bad).unknown.empty()) << bad;
}

TEST(Placeholders, ALongWrongNameIsShortenedInTheMessage) {
  const auto p = problem("{" + std::string(500, 'X') + "}");
  EXPECT_LT(p.message.size(), 300u);
  EXPECT_NE(p.message.find("…}"), std::string::npos) << p.message;
}

TEST(Placeholders, InvalidUtf8IsCopiedThrough) {
  const std::string text = "\xff\xfe {company} \xc3 \xe2\x82";
  EXPECT_EQ(filled(text, {{"company", "Acme"}}), "\xff\xfe Acme \xc3 \xe2\x82");
  // Each byte that does not continue a sequence counts as a character.
  EXPECT_EQ(problem("\xff\xc3\x28 {").column, 5u);
  EXPECT_EQ(problem("\xe2\x82\x82\x82 }").column, 3u);
}

TEST(Placeholders, TemplatesOver64KiBAreRefused) {
  const std::string most(64 * 1024, 'a');
  EXPECT_EQ(filled(most), most);
  const auto p = problem(most + "a");
  EXPECT_NE(p.message.find("64 KiB"), std::string::npos) << p.message;
  EXPECT_EQ(p.line, 0u);
  EXPECT_TRUE(p.unknown.empty());
}

TEST(Placeholders, MarkdownLiteralEscapesWhatWouldBeMarkdown) {
  EXPECT_EQ(markdown_literal("*Acme*"), "\\*Acme\\*");
  EXPECT_EQ(markdown_literal("Acme_Corp [beta](x) <b>"), "Acme\\_Corp \\[beta\\]\\(x\\) \\<b\\>");
  EXPECT_EQ(markdown_literal("# C#, `F#`! a|b ~x~ \\n & co"),
            "\\# C\\#, \\`F\\#\\`\\! a\\|b \\~x\\~ \\\\n \\& co");
  EXPECT_EQ(markdown_literal("- item"), "\\- item");
  EXPECT_EQ(markdown_literal("+ item"), "\\+ item");
  EXPECT_EQ(markdown_literal("  === "), "  \\=== ");
  EXPECT_EQ(markdown_literal("1. Acme"), "1\\. Acme");
  EXPECT_EQ(markdown_literal("2024. A year"), "2024\\. A year");
  // Not at the start: nothing to escape.
  EXPECT_EQ(markdown_literal("Smith-Jones + Co. 3. 1.5"), "Smith-Jones + Co. 3. 1.5");
  EXPECT_EQ(markdown_literal("Acme GmbH"), "Acme GmbH");
  EXPECT_EQ(markdown_literal("São Paulo 😀 \xff"), "São Paulo 😀 \xff");
}

TEST(Placeholders, MarkdownLiteralIsOneLine) {
  EXPECT_EQ(markdown_literal("a\nb\r\nc\rd\n\n"), "a b c d  ");
  EXPECT_EQ(markdown_literal("Acme\n# Heading\n- list"), "Acme \\# Heading - list");
  EXPECT_EQ(markdown_literal("\n- x"), " \\- x");
}

TEST(Placeholders, MarkdownLiteralShowsExactlyTheValue) {
  const std::vector<std::string> values = {"*Acme*",
                                           "__init__",
                                           "[x](javascript:alert(1))",
                                           "<script>alert(1)</script>",
                                           "\\*",
                                           "\\",
                                           "a\\",
                                           "``code``",
                                           "![img](u)",
                                           "| a | b |",
                                           "~~gone~~",
                                           "&amp; &#42;",
                                           "- - -",
                                           "+",
                                           "1.",
                                           "10) ten",
                                           "=",
                                           "  -x",
                                           "\t7. seven",
                                           "a\nb\r\nc\rd",
                                           "",
                                           "plain",
                                           "Olá — 😀",
                                           "\xff\\\xfe*"};
  for (const auto& v : values) {
    std::string want = v;
    for (std::size_t at; (at = want.find("\r\n")) != std::string::npos;) want.replace(at, 2, " ");
    for (char& c : want)
      if (c == '\r' || c == '\n') c = ' ';
    EXPECT_EQ(shown(markdown_literal(v)), want) << v;
  }
}

TEST(Placeholders, ALiteralValueFilledInStaysLiteral) {
  const std::string out = filled(
      "Dear {contact},\n\n{company}",
      {{"contact", markdown_literal("*Ana*")}, {"company", markdown_literal("# Acme {role}")}});
  EXPECT_EQ(out, "Dear \\*Ana\\*,\n\n\\# Acme {role}");
}

}  // namespace
}  // namespace peto::formats
