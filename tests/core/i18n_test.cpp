// The message catalogue: fallback, language choice, and that every key the
// templates use exists in English.
#include "core/i18n.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/backends.h"

namespace peto::web {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = PETO_SOURCE_DIR;

TEST(CatalogueTest, EveryTemplateKeyIsInTheEnglishCatalogue) {
  Catalogue catalogue(kSource / "locales");
  ASSERT_TRUE(catalogue.load());
  const auto& en = catalogue.messages("en");
  std::regex key_use(R"(\{\{\s*[#^/]?\s*t\.([A-Za-z0-9_]+)\s*\}\})");
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "templates")) {
    if (entry.path().extension() != ".mustache") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), key_use), end; it != end; ++it) {
      std::string key = (*it)[1];
      EXPECT_TRUE(en.contains(key)) << entry.path().filename() << " uses t." << key;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(CatalogueTest, EveryLanguageOnlyHasEnglishKeys) {
  Catalogue catalogue(kSource / "locales");
  ASSERT_TRUE(catalogue.load());
  std::set<std::string> english;
  for (const auto& [k, v] : catalogue.messages("en").items()) english.insert(k);
  for (const auto& lang : catalogue.languages()) {
    for (const auto& [k, v] : catalogue.messages(lang).items()) {
      EXPECT_TRUE(english.count(k)) << lang << " has " << k << ", which English lacks";
    }
  }
}

TEST(CatalogueTest, FallsBackToEnglishThenToTheKey) {
  peto::testing::TempDir dir;
  fs::create_directories(dir.path() / "en");
  fs::create_directories(dir.path() / "fr");
  std::ofstream(dir.path() / "en" / "a.json") << R"({"hello": "Hello", "bye": "Bye"})";
  std::ofstream(dir.path() / "en" / "b.json") << R"({"yes": "Yes"})";
  std::ofstream(dir.path() / "fr" / "a.json") << R"({"hello": "Bonjour"})";
  Catalogue c(dir.path());
  ASSERT_TRUE(c.load());
  EXPECT_EQ(c.languages(), (std::vector<std::string>{"en", "fr"}));
  EXPECT_EQ(c.text("fr", "hello"), "Bonjour");
  EXPECT_EQ(c.text("fr", "bye"), "Bye");
  EXPECT_EQ(c.text("fr", "yes"), "Yes");
  EXPECT_EQ(c.text("de", "hello"), "Hello");
  EXPECT_EQ(c.text("fr", "Plain English."), "Plain English.");
  EXPECT_EQ(c.messages("fr").value("bye", ""), "Bye");
}

TEST(CatalogueTest, BadFilesAreReported) {
  peto::testing::TempDir dir;
  Catalogue none(dir.path());
  EXPECT_FALSE(none.load());
  fs::create_directories(dir.path() / "en");
  std::ofstream(dir.path() / "en" / "a.json") << R"({"n": 3})";
  Catalogue bad(dir.path());
  Status s = bad.load();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("a.json"), std::string::npos) << s.message();
}

TEST(CatalogueTest, ChoosesTheProfileThenAcceptLanguage) {
  Catalogue c(kSource / "locales");
  ASSERT_TRUE(c.load());
  std::string fr_first = "fr-FR,fr;q=0.9,en;q=0.8";
  std::string en_first = "de-DE, en;q=0.7, fr;q=0.5";
  std::string low_fr = "en;q=0.2, fr;q=0.8";
  std::string refused = "fr;q=0";
  EXPECT_EQ(c.choose("fr", nullptr), "fr");
  EXPECT_EQ(c.choose("fr", &en_first), "fr");
  EXPECT_EQ(c.choose("", &fr_first), "fr");
  EXPECT_EQ(c.choose("", &en_first), "en");
  EXPECT_EQ(c.choose("", &low_fr), "fr");
  EXPECT_EQ(c.choose("", &refused), "en");
  EXPECT_EQ(c.choose("xx", nullptr), "en");
  EXPECT_EQ(c.choose("", nullptr), "en");
}

}  // namespace
}  // namespace peto::web
