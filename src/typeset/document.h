// Typesetting: a CV or a letter as a list of blocks, laid out with Pango
// (HarfBuzz shaping, font fallback, bidirectional text, line breaking) on
// Cairo's PDF surface, which embeds each font as a subset.
//
//   Document doc{.title = "Ana Lima — CV", .author = "Ana Lima", .language = "pt"};
//   doc.blocks.push_back({BlockKind::title, escape("Ana Lima")});
//   doc.blocks.push_back({BlockKind::heading, escape("Experience")});
//   doc.blocks.push_back({BlockKind::entry, "<b>Engineer</b>, Acme", "2021 – now"});
//   auto theme = Theme::load(themes_dir() / "classic.json");   // or why not
//   Rendered out = render_pdf(doc, std::get<Theme>(theme), PageSize::a4);
//
// A block's text is Pango markup (<b>, <i>, <u>, <tt>, <span>…): text that comes
// from a person goes through escape() or blocks_from_markdown(). Pages break
// between lines, never after a heading: a title, a heading or an entry line
// moves to the next page with the first line of what follows it. A document
// in a right-to-left language (ar, he, fa, ur…) is laid out from the right.
// Every placed line is reported (Rendered::lines) so that the layout rules
// can be checked from Pango's own results rather than from the PDF.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace peto::typeset {

enum class BlockKind {
  title,      // the person's name or the letter's first line
  subtitle,   // a headline or contact line under the title
  heading,    // a section: Experience, Education…
  entry,      // an entry's line, with `aside` (dates, place) at the far edge
  paragraph,  // running text
  bullet,     // one item of a list
  small,      // fine print: references on request, a footer line
};

struct Block {
  BlockKind kind = BlockKind::paragraph;
  std::string markup;  // Pango markup
  std::string aside;   // entry only: Pango markup set at the line's far edge
  std::string marker;  // bullet only: "1." for a numbered item; empty: the theme's bullet
};

struct Document {
  std::string title;     // PDF metadata
  std::string author;    // PDF metadata
  std::string language;  // BCP 47 ("en", "pt-PT", "ar"): shaping, line breaks, direction
  std::vector<Block> blocks = {};
  bool letter = false;  // paragraphs in the theme's letter style
};

enum class PageSize { a4, letter };

// A theme is data (themes/*.json): fonts, sizes, colours, spacing, margins.
struct Style {
  std::string family;  // a fontconfig family; characters it lacks fall back
  double size_pt = 10;
  bool bold = false;
  bool italic = false;
  bool upper = false;  // set in capitals (headings)
  std::string colour = "#000000";
  double space_before_pt = 0;  // above the block
  double space_after_pt = 0;   // below the block
};

struct Theme {
  std::string name;
  Style title, subtitle, heading, entry, aside, paragraph, bullet, small;
  Style letter;  // a letter's paragraphs: a size up, and air between them
  double margin_mm = 18;
  double line_spacing = 1.0;  // a multiple of the font's own line height
  double bullet_indent_pt = 12;
  std::string bullet_mark = "•";  // before each bullet without its own marker
  std::string rule_colour;        // a thin rule under each heading; empty: none

  const Style& style(BlockKind kind) const;
  // The theme in `path`, or why it cannot be read (field named).
  static std::variant<Theme, std::string> load(const std::filesystem::path& path);
};

// themes/ beside the templates: PETO_ASSETS_DIR or the source tree.
std::filesystem::path themes_dir();
// The theme `name` ("classic", "modern") from themes_dir(), read once per
// process. The themes ship with peto: one that cannot be read is a broken
// install, so this throws std::runtime_error saying why. Thread-safe.
const Theme& shipped_theme(const std::string& name);

// One laid-out line, in points from the page's top-left corner.
struct PlacedLine {
  int page = 0;  // from 0
  BlockKind kind = BlockKind::paragraph;
  std::size_t block = 0;  // index in Document::blocks
  double x = 0, y = 0, width = 0, height = 0;
};

struct Rendered {
  std::string pdf;
  int pages = 0;
  double page_width_pt = 0, page_height_pt = 0, margin_pt = 0;
  std::vector<PlacedLine> lines;
};

// The document as a PDF. Never throws; an empty document is one blank page.
Rendered render_pdf(const Document& doc, const Theme& theme, PageSize size);

// The document as plain text (for forms that take text): markup removed,
// headings in capitals, bullets as "- ", an entry's aside after " — ".
std::string render_text(const Document& doc);

// `text` safe inside markup.
std::string escape(std::string_view text);

// Markdown (CommonMark, through cmark) as blocks: paragraphs, bullet and
// numbered lists (one level), emphasis, strong, code and links; headings
// become `heading` blocks. Raw HTML is shown as text, never interpreted.
std::vector<Block> blocks_from_markdown(std::string_view markdown);

// A day ("2026-12-07") written out as a letter dates it in `language`
// ("7 December 2026", "7 décembre 2026", "٧ ديسمبر ٢٠٢٦"), by ICU; the day
// itself when it is not one.
std::string long_date(std::string_view yyyy_mm_dd, const std::string& language);
// The same in the shape of an ICU skeleton: "yMMMM" a month ("November
// 2026", "novembre 2026"), "MMMd" a day of the month ("Nov 2", "2 nov.").
std::string date_as(std::string_view yyyy_mm_dd, const std::string& language, const char* skeleton);

// Whether `language` is written right to left (ar, he, fa, ur, ps, sd, yi, dv, ckb).
bool right_to_left(std::string_view language);

}  // namespace peto::typeset
