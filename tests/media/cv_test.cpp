// A CV record and career entries as the typesetter's blocks.
#include "media/cv.h"

#include <gtest/gtest.h>

namespace peto::media {
namespace {

using nlohmann::json;
using typeset::BlockKind;

json cv() {
  return {{"name", "Backend"},     {"full_name", "Ana Lima"},    {"headline", "Backend engineer"},
          {"town", "Lisbon"},      {"street", "Rua Augusta 10"}, {"email", "ana@example.org"},
          {"language", "en"},      {"theme", "classic"},         {"page_size", "a4"},
          {"entry_order", "date"}, {"with_references", "no"},    {"with_street", "no"}};
}

json entry(const std::string& section, const std::string& title, json more = json::object()) {
  json e = {{"section", section}, {"title", title}};
  e.update(more);
  return e;
}

std::string text_of(const json& c, const std::vector<json>& entries) {
  return typeset::render_text(cv_document(c, entries));
}

TEST(Cv, SectionsInOrderNewestFirstWithHighlightsAsBullets) {
  std::vector<json> entries = {
      entry("skill", "SQL", {{"organisation", "Data"}, {"level", "advanced"}}),
      entry("experience", "Engineer",
            {{"organisation", "Old Co"}, {"started_on", "2015-01-01"}, {"ended_on", "2018-06-30"}}),
      entry("education", "MSc Informatics",
            {{"organisation", "University of Porto"},
             {"level", "EQF 7"},
             {"ended_on", "2014-07-01"},
             {"started_on", "2012-09-01"}}),
      entry("experience", "Senior engineer",
            {{"organisation", "Acme"},
             {"started_on", "2021-03-01"},
             {"highlights", "- Cut the *nightly* run\n\n* Shipped <b>ledger</b>\nMentored two"}}),
      entry("skill", "Python", {{"organisation", "Data"}}),
      entry("skill", "Go", {{"organisation", "Languages"}}),
      entry("language", "Portuguese", {{"level", "C2"}}),
  };
  EXPECT_EQ(text_of(cv(), entries),
            "Ana Lima\n"
            "Backend engineer\n"
            "Lisbon · ana@example.org\n"
            "\nEXPERIENCE\n"
            "\nSenior engineer, Acme — 03/2021 – now\n"
            "- Cut the nightly run\n"
            "- Shipped <b>ledger</b>\n"
            "- Mentored two\n"
            "\nEngineer, Old Co — 01/2015 – 06/2018\n"
            "\nEDUCATION\n"
            "\nMSc Informatics, University of Porto — EQF 7 · 09/2012 – 07/2014\n"
            "\nSKILLS\n"
            "\nData: SQL (advanced), Python\n"
            "\nLanguages: Go\n"
            "\nLANGUAGES\n"
            "\nPortuguese — C2\n");
  typeset::Document doc = cv_document(cv(), entries);
  EXPECT_EQ(doc.title, "Ana Lima — Backend");
  EXPECT_EQ(doc.author, "Ana Lima");
  EXPECT_EQ(doc.blocks[4].markup, "<b>Senior engineer</b>, Acme");
  EXPECT_EQ(doc.blocks[5].kind, BlockKind::bullet);
  EXPECT_EQ(doc.blocks[5].markup, "Cut the <i>nightly</i> run");
}

TEST(Cv, ByHandFollowsThePositions) {
  json c = cv();
  c["entry_order"] = "hand";
  std::vector<json> entries = {
      entry("experience", "Second", {{"position", 2}, {"started_on", "2022-01-01"}}),
      entry("experience", "First", {{"position", 1}, {"started_on", "2010-01-01"}})};
  std::string text = text_of(c, entries);
  EXPECT_LT(text.find("First"), text.find("Second")) << text;
}

TEST(Cv, EntriesGoIntoTheCvsTheyName) {
  std::vector<json> entries = {entry("project", "Everywhere"),
                               entry("project", "Backend only", {{"cvs", " backend , Data"}}),
                               entry("project", "Data only", {{"cvs", "data"}})};
  std::string text = text_of(cv(), entries);
  EXPECT_NE(text.find("Everywhere"), std::string::npos);
  EXPECT_NE(text.find("Backend only"), std::string::npos);
  EXPECT_EQ(text.find("Data only"), std::string::npos) << text;
  EXPECT_TRUE(entry_in_cv(entries[0], "anything"));
  EXPECT_FALSE(entry_in_cv(entries[1], "Backend CV"));
}

TEST(Cv, TheStreetAndReferencesOnlyWhenAsked) {
  std::vector<json> entries = {
      entry("reference", "Rui Costa",
            {{"organisation", "Acme"}, {"url", "mailto:rui@acme.example"}}),
      entry("link", "GitHub", {{"url", "https://github.com/ana"}})};
  std::string text = text_of(cv(), entries);
  EXPECT_EQ(text.find("Rua Augusta"), std::string::npos);
  EXPECT_EQ(text.find("Rui Costa"), std::string::npos);
  EXPECT_NE(text.find("References are available on request."), std::string::npos);
  EXPECT_NE(text.find("Lisbon · ana@example.org · https://github.com/ana"), std::string::npos)
      << text;

  json c = cv();
  c["with_street"] = "yes";
  c["with_references"] = "yes";
  text = text_of(c, entries);
  EXPECT_NE(text.find("Rua Augusta 10, Lisbon"), std::string::npos) << text;
  EXPECT_NE(text.find("Rui Costa, Acme, mailto:rui@acme.example"), std::string::npos) << text;
}

TEST(Cv, PageSizeThemeAndDirection) {
  json c = cv();
  EXPECT_EQ(cv_page_size(c), typeset::PageSize::a4);
  EXPECT_EQ(cv_theme(c), "classic");
  c["page_size"] = "letter";
  c["theme"] = "modern";
  c["language"] = "ar";
  EXPECT_EQ(cv_page_size(c), typeset::PageSize::letter);
  EXPECT_EQ(cv_theme(c), "modern");
  EXPECT_EQ(cv_document(c, {}).language, "ar");
  c["theme"] = "../../etc/passwd";
  EXPECT_EQ(cv_theme(c), "classic") << "a theme is one of the shipped names, never a path";
}

TEST(Cv, AHighlightInBracketsGoesOnlyIntoTheCvsItNames) {
  std::vector<json> entries = {
      entry("experience", "Engineer",
            {{"highlights",
              "- [data, ML] Built the feature store\n- [frontend] Ran the design system\n"
              "- Led a team of four"}})};
  json data = cv();
  data["name"] = "data";
  std::string text = text_of(data, entries);
  EXPECT_NE(text.find("- Built the feature store\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("design system"), std::string::npos) << text;
  EXPECT_NE(text.find("- Led a team of four"), std::string::npos) << text;
  std::string backend = text_of(cv(), entries);
  EXPECT_EQ(backend.find("feature store"), std::string::npos) << backend;
  EXPECT_NE(backend.find("- Led a team of four"), std::string::npos) << backend;
}

}  // namespace
}  // namespace peto::media
