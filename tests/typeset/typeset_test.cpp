// The typesetter's PDFs read back by poppler and qpdf (what a recipient's
// tools see), and its layout rules checked from Pango's own placements.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/support/backends.h"
#include "typeset/document.h"

namespace peto::typeset {
namespace {

namespace fs = std::filesystem;
using testing::run_command;

Theme theme(const std::string& name) {
  auto loaded = Theme::load(themes_dir() / (name + ".json"));
  EXPECT_TRUE(std::holds_alternative<Theme>(loaded)) << std::get<std::string>(loaded);
  return std::get<Theme>(loaded);
}

struct CvText {
  std::string language, name, headline, experience, role, dates, highlight, education, school;
};

const CvText kEnglish{"en",
                      "Ana Lima",
                      "Backend engineer — Lisbon",
                      "Experience",
                      "Senior engineer, Acme Logistics",
                      "2021 – now",
                      "Cut the nightly settlement run from four hours to twenty minutes",
                      "Education",
                      "MSc Informatics, University of Porto"};
const CvText kGreek{"el",
                    "Ελένη Παπαδοπούλου",
                    "Μηχανικός λογισμικού — Αθήνα",
                    "Εμπειρία",
                    "Ανώτερη μηχανικός, Ακμή Μεταφορές",
                    "2021 – σήμερα",
                    "Μείωσε τον χρόνο της νυχτερινής εκκαθάρισης από τέσσερις ώρες σε είκοσι λεπτά",
                    "Εκπαίδευση",
                    "Μεταπτυχιακό στην Πληροφορική, Πανεπιστήμιο Αθηνών"};
const CvText kArabic{"ar",
                     "ليلى حداد",
                     "مهندسة برمجيات في عمان",
                     "الخبرة",
                     "مهندسة أولى في شركة النقل",
                     "2021 حتى الآن",
                     "خفضت وقت التسوية الليلية من أربع ساعات إلى عشرين دقيقة",
                     "التعليم",
                     "ماجستير في المعلوماتية من جامعة عمان"};

Document cv(const CvText& t, int entries = 2) {
  Document d;
  d.title = t.name + " — CV";
  d.author = t.name;
  d.language = t.language;
  d.blocks.push_back({BlockKind::title, escape(t.name), "", ""});
  d.blocks.push_back({BlockKind::subtitle, escape(t.headline), "", ""});
  d.blocks.push_back({BlockKind::heading, escape(t.experience), "", ""});
  for (int i = 0; i < entries; ++i) {
    d.blocks.push_back({BlockKind::entry, escape(t.role), escape(t.dates), ""});
    for (int h = 0; h < 3; ++h)
      d.blocks.push_back({BlockKind::bullet, escape(t.highlight), "", ""});
  }
  d.blocks.push_back({BlockKind::heading, escape(t.education), "", ""});
  d.blocks.push_back({BlockKind::paragraph, escape(t.school), "", ""});
  return d;
}

class TypesetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("peto-typeset-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const Rendered& r, const std::string& name = "out.pdf") {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << r.pdf;
    return p.string();
  }
  static std::string tool(const std::string& cmd) {
    std::string out;
    EXPECT_EQ(run_command(cmd, &out), 0) << cmd << "\n" << out;
    return out;
  }
  // pdftotext's words, whitespace collapsed.
  static std::string text_of(const std::string& pdf) {
    std::string t = tool("pdftotext -enc UTF-8 '" + pdf + "' -");
    return std::regex_replace(t, std::regex("\\s+"), " ");
  }
  static void expect_in_order(const std::string& text, const std::vector<std::string>& parts) {
    std::size_t at = 0;
    for (const std::string& p : parts) {
      std::size_t found = text.find(p, at);
      ASSERT_NE(found, std::string::npos)
          << "\"" << p << "\" missing after offset " << at << " in:\n"
          << text;
      at = found + p.size();
    }
  }
  static void expect_fonts_embedded(const std::string& pdf) {
    std::string fonts = tool("pdffonts '" + pdf + "'");
    std::istringstream lines(fonts);
    std::string line;
    int rows = 0;
    std::getline(lines, line);  // header
    std::getline(lines, line);  // rule
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      ++rows;
      // name type encoding emb sub uni object ID: emb and sub are "yes".
      EXPECT_TRUE(
          std::regex_search(line, std::regex("\\s+yes\\s+yes\\s+(yes|no)\\s+\\d+\\s+0\\s*$")))
          << line;
    }
    EXPECT_GT(rows, 0) << fonts;
  }

  fs::path dir_;
};

TEST_F(TypesetTest, ShippedThemesLoadAndDiffer) {
  Theme classic = theme("classic");
  Theme modern = theme("modern");
  EXPECT_EQ(classic.name, "classic");
  EXPECT_EQ(classic.paragraph.family, "Noto Serif");
  EXPECT_EQ(modern.paragraph.family, "Noto Sans");
  EXPECT_TRUE(classic.heading.upper);
}

TEST_F(TypesetTest, ThemeProblemsNameTheField) {
  auto load = [&](const std::string& json) {
    fs::path p = dir_ / "t.json";
    std::ofstream(p) << json;
    auto r = Theme::load(p);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string();
  };
  std::string all =
      R"("styles":{"title":{"family":"A"},"subtitle":{"family":"A"},"heading":{"family":"A"},)"
      R"("entry":{"family":"A"},"aside":{"family":"A"},"paragraph":{"family":"A"},)"
      R"("bullet":{"family":"A"},"small":{"family":"A"},"letter":{"family":"A"}})";
  EXPECT_EQ(load("{" + all + "}"), "");
  EXPECT_NE(load("{\"margin_mm\": 90," + all + "}").find("margin_mm must be a number from 5 to 40"),
            std::string::npos);
  std::string bad_colour = std::regex_replace(all, std::regex(R"("small":\{"family":"A"\})"),
                                              R"("small":{"family":"A","colour":"red"})");
  EXPECT_NE(
      load("{" + bad_colour + "}").find("styles.small.colour must be a colour written #rrggbb"),
      std::string::npos);
  EXPECT_NE(load(R"({"styles":{}})").find("styles.title is missing"), std::string::npos);
  EXPECT_NE(load("not json").find("is not a JSON object"), std::string::npos);
  EXPECT_NE(std::get<std::string>(Theme::load(dir_ / "absent.json")).find("cannot be read"),
            std::string::npos);
}

// A letter's paragraphs take the theme's letter style: a size up and more
// air between them than a CV's.
TEST_F(TypesetTest, ALettersParagraphsHaveTheirOwnStyle) {
  Document doc;
  doc.blocks = {{BlockKind::paragraph, "Dear Hiring Manager,", "", ""},
                {BlockKind::paragraph, "I would like to join.", "", ""}};
  const Theme& theme = shipped_theme("classic");
  Rendered cv = render_pdf(doc, theme, PageSize::a4);
  doc.letter = true;
  Rendered letter = render_pdf(doc, theme, PageSize::a4);
  ASSERT_EQ(cv.lines.size(), 2u);
  ASSERT_EQ(letter.lines.size(), 2u);
  EXPECT_GT(letter.lines[0].height, cv.lines[0].height);
  EXPECT_GT(letter.lines[1].y - letter.lines[0].y, cv.lines[1].y - cv.lines[0].y + 6);
}

TEST_F(TypesetTest, EnglishCvIsAValidPdfWithSubsetFontsTextInOrderAndMetadata) {
  Rendered r = render_pdf(cv(kEnglish), theme("classic"), PageSize::a4);
  std::string pdf = write(r);
  EXPECT_NE(tool("qpdf --check '" + pdf + "'").find("No syntax or stream encoding errors"),
            std::string::npos);
  expect_fonts_embedded(pdf);
  std::string info = tool("pdfinfo '" + pdf + "'");
  EXPECT_NE(info.find("Title:           Ana Lima — CV"), std::string::npos) << info;
  EXPECT_NE(info.find("Author:          Ana Lima"), std::string::npos) << info;
  EXPECT_NE(info.find("Pages:           1"), std::string::npos) << info;
  EXPECT_NE(info.find("595.276 x 841.89 pts (A4)"), std::string::npos) << info;
  // Headings are drawn in capitals but keep the text as written.
  expect_in_order(text_of(pdf),
                  {"Ana Lima", "Backend engineer", "Experience", "Senior engineer, Acme Logistics",
                   "2021 – now", "Cut the nightly settlement run", "Education",
                   "MSc Informatics, University of Porto"});
  EXPECT_EQ(r.pages, 1);
}

TEST_F(TypesetTest, GreekCvKeepsItsLettersAndOrder) {
  Rendered r = render_pdf(cv(kGreek), theme("modern"), PageSize::letter);
  std::string pdf = write(r);
  EXPECT_EQ(run_command("qpdf --check '" + pdf + "' >/dev/null"), 0);
  expect_fonts_embedded(pdf);
  EXPECT_NE(tool("pdfinfo '" + pdf + "'").find("612 x 792 pts (letter)"), std::string::npos);
  expect_in_order(text_of(pdf), {"Ελένη Παπαδοπούλου", "Εμπειρία", "Ανώτερη μηχανικός",
                                 "νυχτερινής εκκαθάρισης", "Εκπαίδευση", "Πανεπιστήμιο Αθηνών"});
}

TEST_F(TypesetTest, ArabicCvIsLaidOutFromTheRight) {
  Document doc = cv(kArabic);
  Rendered r = render_pdf(doc, theme("classic"), PageSize::a4);
  std::string pdf = write(r);
  EXPECT_EQ(run_command("qpdf --check '" + pdf + "' >/dev/null"), 0);
  expect_fonts_embedded(pdf);
  // Shaped, and in logical order again when read back. pdftotext guesses
  // word gaps inside joined Arabic letters and wraps each line in bidi
  // embedding marks, so the letters are compared without either. (It also
  // moves a shadda away from its letter when it reorders a line, which is
  // why the fixture spells عمان without one.)
  std::string letters = std::regex_replace(text_of(pdf), std::regex("\\s+|\u202b|\u202c"), "");
  expect_in_order(letters,
                  {"ليلىحداد", "الخبرة", "مهندسةأولى", "التسويةالليلية", "التعليم", "جامعةعمان"});
  double right = r.page_width_pt - r.margin_pt;
  for (const PlacedLine& l : r.lines) {
    if (l.kind == BlockKind::entry) {
      // The entry's text is pushed left of its aside, which sits at the left edge.
      EXPECT_LT(l.x + l.width, right + 0.5);
      continue;
    }
    if (l.kind == BlockKind::bullet) continue;  // indented from the right, past its marker
    EXPECT_NEAR(l.x + l.width, right, 0.5) << "block " << l.block << " is not set from the right";
  }
}

TEST_F(TypesetTest, PagesBreakBetweenLinesAndNeverAfterAHeadingOrOutsideTheMargins) {
  Document doc = cv(kEnglish, 20);
  // A long paragraph runs on to the next page; headings land at every height.
  std::string long_text;
  for (int i = 0; i < 150; ++i)
    long_text += "Built and ran the services that matter to customers. ";
  doc.blocks.push_back({BlockKind::paragraph, escape(long_text), "", ""});
  for (int i = 0; i < 25; ++i) {
    doc.blocks.push_back({BlockKind::heading, escape("Section " + std::to_string(i)), "", ""});
    doc.blocks.push_back({BlockKind::entry, escape("Role " + std::to_string(i)), "2020", ""});
    doc.blocks.push_back({BlockKind::bullet, escape(long_text.substr(0, 40 + 23 * i)), "", ""});
  }
  Rendered r = render_pdf(doc, theme("classic"), PageSize::a4);
  std::string pdf = write(r);
  ASSERT_GE(r.pages, 3);
  EXPECT_NE(tool("pdfinfo '" + pdf + "'").find("Pages:           " + std::to_string(r.pages)),
            std::string::npos);

  int spanning = 0;
  for (std::size_t i = 0; i < r.lines.size(); ++i) {
    const PlacedLine& l = r.lines[i];
    EXPECT_GE(l.x, r.margin_pt - 0.5) << "line " << i;
    EXPECT_LE(l.x + l.width, r.page_width_pt - r.margin_pt + 0.5) << "line " << i;
    EXPECT_GE(l.y, r.margin_pt - 0.5) << "line " << i;
    EXPECT_LE(l.y + l.height, r.page_height_pt - r.margin_pt + 0.5) << "line " << i;
    bool last_of_block = i + 1 == r.lines.size() || r.lines[i + 1].block != l.block;
    if (i + 1 < r.lines.size() && (l.kind == BlockKind::heading || l.kind == BlockKind::title) &&
        last_of_block) {
      EXPECT_EQ(r.lines[i + 1].page, l.page)
          << "a heading left alone at the foot of page " << l.page;
    }
    if (i + 1 < r.lines.size() && r.lines[i + 1].block == l.block && r.lines[i + 1].page != l.page)
      ++spanning;
  }
  EXPECT_GE(spanning, 1) << "the long paragraph should have run on to the next page";
  std::string text = text_of(pdf);
  expect_in_order(text, {"Section 0", "Role 0", "Section 24", "Role 24"});
}

TEST_F(TypesetTest, ABlankDocumentIsOneBlankPage) {
  Rendered r = render_pdf(Document{}, theme("modern"), PageSize::a4);
  EXPECT_EQ(r.pages, 1);
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(run_command("qpdf --check '" + write(r) + "' >/dev/null"), 0);
}

TEST_F(TypesetTest, BrokenMarkupIsShownAsTheTextItIs) {
  Document doc;
  doc.blocks.push_back({BlockKind::paragraph, "<b>unclosed & <i>odd", "", ""});
  Rendered r = render_pdf(doc, theme("classic"), PageSize::a4);
  EXPECT_NE(text_of(write(r)).find("<b>unclosed & <i>odd"), std::string::npos);
}

TEST(TypesetMarkdown, ParagraphsListsEmphasisAndLinks) {
  auto blocks = blocks_from_markdown(
      "Dear *Acme* team,\n\nI **built** `ledger`:\n\n- fast\n- tested\n\n1. one\n2. two\n\n"
      "## Why\n\nSee [my work](https://example.org/ana) and <script>x</script>.\n");
  ASSERT_EQ(blocks.size(), 8U);
  EXPECT_EQ(blocks[0].markup, "Dear <i>Acme</i> team,");
  EXPECT_EQ(blocks[1].markup, "I <b>built</b> <tt>ledger</tt>:");
  EXPECT_EQ(blocks[2].kind, BlockKind::bullet);
  EXPECT_EQ(blocks[2].marker, "");
  EXPECT_EQ(blocks[3].markup, "tested");
  EXPECT_EQ(blocks[4].marker, "1.");
  EXPECT_EQ(blocks[5].marker, "2.");
  EXPECT_EQ(blocks[6].kind, BlockKind::heading);
  EXPECT_EQ(blocks[7].markup,
            "See <u>my work</u> (https://example.org/ana) and &lt;script&gt;x&lt;/script&gt;.");
}

TEST(TypesetText, PlainTextForForms) {
  Document doc = cv(kEnglish, 1);
  EXPECT_EQ(render_text(doc),
            "Ana Lima\n"
            "Backend engineer — Lisbon\n"
            "\nEXPERIENCE\n"
            "\nSenior engineer, Acme Logistics — 2021 – now\n"
            "- Cut the nightly settlement run from four hours to twenty minutes\n"
            "- Cut the nightly settlement run from four hours to twenty minutes\n"
            "- Cut the nightly settlement run from four hours to twenty minutes\n"
            "\nEDUCATION\n"
            "\nMSc Informatics, University of Porto\n");
}

TEST(TypesetText, RightToLeftLanguages) {
  EXPECT_TRUE(right_to_left("ar"));
  EXPECT_TRUE(right_to_left("he-IL"));
  EXPECT_TRUE(right_to_left("fa_IR"));
  EXPECT_FALSE(right_to_left("en"));
  EXPECT_FALSE(right_to_left("arn"));  // Mapudungun
  EXPECT_FALSE(right_to_left(""));
}

}  // namespace
}  // namespace peto::typeset
