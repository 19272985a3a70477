// Quick add reads what one field holds: a link, a pasted page, or a line
// with a role, a company, a place and the day it was sent, counted back from
// the person's own day; a day it cannot read is handed back, never guessed.
#include "domain/quick_add.h"

#include <gtest/gtest.h>

namespace peto::domain {
namespace {

const std::string kToday = "2026-12-04";  // a Friday

QuickAdd read(std::string_view text) { return read_quick_add(text, kToday); }

TEST(QuickAddTest, NothingButSpaceIsEmpty) {
  EXPECT_EQ(read("  \n\t ").kind, QuickAdd::Kind::empty);
}

TEST(QuickAddTest, ALinkAloneIsALink) {
  QuickAdd q = read("  https://jobs.example.org/42?ref=x \n");
  EXPECT_EQ(q.kind, QuickAdd::Kind::link);
  EXPECT_EQ(q.url, "https://jobs.example.org/42?ref=x");
}

TEST(QuickAddTest, APastedPageNamesItsOwnAddress) {
  QuickAdd q = read(
      "<html><head><link rel=\"stylesheet\" href=\"https://cdn.example.org/a.css\">"
      "<link rel=\"canonical\" "
      "href=\"https://jobs.example.org/7\"></head><body>Role</body></html>");
  EXPECT_EQ(q.kind, QuickAdd::Kind::page);
  EXPECT_EQ(q.url, "https://jobs.example.org/7");

  q = read("Data engineer\nAcme GmbH\nApply at https://acme.example/jobs/9 today");
  EXPECT_EQ(q.kind, QuickAdd::Kind::page);
  EXPECT_EQ(q.url, "https://acme.example/jobs/9");

  EXPECT_EQ(read("Line one\nline two").url, "");
}

TEST(QuickAddTest, ALineGivesRoleCompanyPlaceAndTheDay) {
  QuickAdd q = read("Data engineer at Acme, Berlin, applied yesterday");
  EXPECT_EQ(q.kind, QuickAdd::Kind::line);
  EXPECT_EQ(q.role, "Data engineer");
  EXPECT_EQ(q.company, "Acme");
  EXPECT_EQ(q.location, "Berlin");
  EXPECT_TRUE(q.applied);
  EXPECT_EQ(q.applied_on, "2026-12-03");
  EXPECT_EQ(q.unread, "");
}

TEST(QuickAddTest, TheCompanyAfterAtSignDashOrTheSecondPart) {
  for (const char* line :
       {"Backend developer @ Globex", "Backend developer @Globex", "Backend developer - Globex",
        "Backend developer – Globex", "Backend developer, Globex"}) {
    QuickAdd q = read(line);
    EXPECT_EQ(q.role, "Backend developer") << line;
    EXPECT_EQ(q.company, "Globex") << line;
    EXPECT_EQ(q.location, "") << line;
    EXPECT_FALSE(q.applied) << line;
  }
  QuickAdd q = read("Full-stack developer, Initech, Lisbon, Portugal");
  EXPECT_EQ(q.role, "Full-stack developer");
  EXPECT_EQ(q.company, "Initech");
  EXPECT_EQ(q.location, "Lisbon, Portugal");
}

TEST(QuickAddTest, ALinkInTheLineIsTheListings) {
  QuickAdd q = read("SRE at Hooli https://hooli.example/jobs/3, remote");
  EXPECT_EQ(q.kind, QuickAdd::Kind::line);
  EXPECT_EQ(q.url, "https://hooli.example/jobs/3");
  EXPECT_EQ(q.company, "Hooli");
  EXPECT_EQ(q.location, "remote");
}

TEST(QuickAddTest, DaysCountedBackFromThePersonsDay) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"applied", "2026-12-04"},
      {"applied today", "2026-12-04"},
      {"applied yesterday", "2026-12-03"},
      {"Applied 3 days ago", "2026-12-01"},
      {"applied two weeks ago", "2026-11-20"},
      {"applied a week ago", "2026-11-27"},
      {"applied last week", "2026-11-27"},
      {"applied friday", "2026-12-04"},
      {"applied last friday", "2026-11-27"},
      {"applied on Monday", "2026-11-30"},
      {"applied tue", "2026-12-01"},
      {"applied 30 Nov", "2026-11-30"},
      {"applied on 2nd November 2025", "2025-11-02"},
      {"applied Dec 24", "2025-12-24"},  // not yet this year: last year's
      {"applied november 30, 2026", "2026-11-30"},
      {"applied 2026-10-02", "2026-10-02"},
  };
  for (const auto& [words, day] : cases) {
    QuickAdd q = read("Analyst at Acme, " + words);
    EXPECT_TRUE(q.applied) << words;
    EXPECT_EQ(q.applied_on, day) << words;
    EXPECT_EQ(q.unread, "") << words;
  }
}

TEST(QuickAddTest, ADayItCannotReadIsHandedBack) {
  for (const char* words : {"soon-ish", "31 feb", "2026-13-01", "the day after my birthday"}) {
    QuickAdd q = read(std::string("Analyst at Acme, applied ") + words);
    EXPECT_TRUE(q.applied) << words;
    EXPECT_EQ(q.applied_on, "") << words;
    EXPECT_EQ(q.unread, words) << words;
  }
}

TEST(QuickAddTest, AppliedWithinThePartOfTheRole) {
  QuickAdd q = read("Data engineer at Acme applied 2 days ago");
  EXPECT_EQ(q.role, "Data engineer");
  EXPECT_EQ(q.company, "Acme");
  EXPECT_EQ(q.applied_on, "2026-12-02");
  // A role that begins with the word is a role ("Applied scientist").
  q = read("Applied scientist at Initech");
  EXPECT_FALSE(q.applied);
  EXPECT_EQ(q.role, "Applied scientist");
  for (const char* line : {"Applied scientist at Initech, applied yesterday",
                           "Applied scientist at Initech applied yesterday"}) {
    q = read(line);
    EXPECT_TRUE(q.applied) << line;
    EXPECT_EQ(q.role, "Applied scientist") << line;
    EXPECT_EQ(q.company, "Initech") << line;
    EXPECT_EQ(q.applied_on, "2026-12-03") << line;
  }
}

}  // namespace
}  // namespace peto::domain
