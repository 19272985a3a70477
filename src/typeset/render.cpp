// A Document on Cairo's PDF surface through Pango: each block laid out once
// at the column's width, then placed line by line so that a long paragraph
// runs on to the next page and a heading never stays behind alone.
#include <cairo-pdf.h>
#include <pango/pangocairo.h>

#include <algorithm>
#include <array>
#include <memory>

#include "typeset/document.h"

namespace peto::typeset {
namespace {

constexpr double kPointsPerMm = 72.0 / 25.4;
constexpr double kAsideGapPt = 12;
constexpr double kRuleGapPt = 2;

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
struct Unref {
  void operator()(gpointer object) const { g_object_unref(object); }
};
using LayoutPtr = std::unique_ptr<PangoLayout, Unref>;
using ContextPtr = std::unique_ptr<PangoContext, Unref>;
using FontPtr =
    std::unique_ptr<PangoFontDescription, Freer<PangoFontDescription, pango_font_description_free>>;
using CairoPtr = std::unique_ptr<cairo_t, Freer<cairo_t, cairo_destroy>>;
using SurfacePtr = std::unique_ptr<cairo_surface_t, Freer<cairo_surface_t, cairo_surface_destroy>>;
using OptionsPtr =
    std::unique_ptr<cairo_font_options_t, Freer<cairo_font_options_t, cairo_font_options_destroy>>;

LayoutPtr new_layout(PangoContext* context) { return LayoutPtr(pango_layout_new(context)); }

bool keeps_with_next(BlockKind kind) {
  return kind == BlockKind::title || kind == BlockKind::heading || kind == BlockKind::entry;
}

struct Rgb {
  double r = 0, g = 0, b = 0;
};
Rgb rgb(const std::string& hex) {
  if (hex.size() != 7) return {};
  auto part = [&](std::size_t at) { return std::stoi(hex.substr(at, 2), nullptr, 16) / 255.0; };
  return {part(1), part(3), part(5)};
}

// One block, laid out: its text, and for an entry the aside, for a bullet
// the marker; x offsets are from the left margin.
struct Laid {
  LayoutPtr text, side;
  const Style* style = nullptr;
  const Style* side_style = nullptr;
  double text_x = 0, side_x = 0;
  double height = 0;      // the text's logical height
  double first_line = 0;  // the first line's height
  double space_before = 0, space_after = 0;
};

class Typesetter {
 public:
  Typesetter(const Document& doc, const Theme& theme, PageSize size) : doc_(doc), theme_(theme) {
    out_.page_width_pt = size == PageSize::a4 ? 595.276 : 612.0;
    out_.page_height_pt = size == PageSize::a4 ? 841.89 : 792.0;
    out_.margin_pt = theme.margin_mm * kPointsPerMm;
    rtl_ = right_to_left(doc.language);
  }

  Rendered run() {
    SurfacePtr surface(cairo_pdf_surface_create_for_stream(
        &Typesetter::write, &out_.pdf, out_.page_width_pt, out_.page_height_pt));
    cairo_pdf_surface_restrict_to_version(surface.get(), CAIRO_PDF_VERSION_1_5);
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, doc_.title.c_str());
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_AUTHOR, doc_.author.c_str());
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "peto");
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_SUBJECT,
                                   doc_.language.c_str());
    cr_.reset(cairo_create(surface.get()));
    context_.reset(pango_cairo_create_context(cr_.get()));
    // One user unit is one point, and a 10 pt font is 10 units tall.
    pango_cairo_context_set_resolution(context_.get(), 72);
    OptionsPtr options(cairo_font_options_create());
    cairo_font_options_set_hint_metrics(options.get(), CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(options.get(), CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(context_.get(), options.get());
    pango_context_set_language(
        context_.get(),
        pango_language_from_string(doc_.language.empty() ? "en" : doc_.language.c_str()));
    pango_context_set_base_dir(context_.get(), rtl_ ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR);

    std::vector<Laid> laid;
    laid.reserve(doc_.blocks.size());
    for (const Block& b : doc_.blocks) laid.push_back(lay_out(b));

    top_ = out_.margin_pt;
    bottom_ = out_.page_height_pt - out_.margin_pt;
    cursor_ = top_;
    for (std::size_t i = 0; i < laid.size(); ++i) place(laid, i);
    cairo_show_page(cr_.get());
    out_.pages = page_ + 1;
    cr_.reset();
    cairo_surface_finish(surface.get());
    return std::move(out_);
  }

 private:
  static cairo_status_t write(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  }

  double column() const { return out_.page_width_pt - 2 * out_.margin_pt; }

  LayoutPtr layout(const std::string& markup, const Style& style, double width) {
    LayoutPtr l = new_layout(context_.get());
    FontPtr font(pango_font_description_new());
    pango_font_description_set_family(font.get(), style.family.c_str());
    pango_font_description_set_size(font.get(), static_cast<int>(style.size_pt * PANGO_SCALE));
    pango_font_description_set_weight(font.get(),
                                      style.bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_font_description_set_style(font.get(),
                                     style.italic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL);
    pango_layout_set_font_description(l.get(), font.get());
    // The document's direction, not each paragraph's first letter, decides
    // (a Latin name in an Arabic CV stays on the right).
    pango_layout_set_auto_dir(l.get(), FALSE);
    pango_layout_set_alignment(l.get(), rtl_ ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT);
    pango_layout_set_wrap(l.get(), PANGO_WRAP_WORD_CHAR);
    pango_layout_set_line_spacing(l.get(), static_cast<float>(theme_.line_spacing));
    if (width > 0) pango_layout_set_width(l.get(), static_cast<int>(width * PANGO_SCALE));
    // Markup that does not parse is shown as the text it is.
    if (pango_parse_markup(markup.c_str(), -1, 0, nullptr, nullptr, nullptr, nullptr))
      pango_layout_set_markup(l.get(), markup.c_str(), -1);
    else
      pango_layout_set_text(l.get(), markup.c_str(), -1);
    if (style.upper) {
      PangoAttrList* attrs = pango_layout_get_attributes(l.get());
      PangoAttrList* own = attrs ? pango_attr_list_ref(attrs) : pango_attr_list_new();
      pango_attr_list_insert_before(own,
                                    pango_attr_text_transform_new(PANGO_TEXT_TRANSFORM_UPPERCASE));
      pango_layout_set_attributes(l.get(), own);
      pango_attr_list_unref(own);
    }
    return l;
  }

  static double logical_width(PangoLayout* l) {
    PangoRectangle logical;
    pango_layout_get_extents(l, nullptr, &logical);
    return static_cast<double>(logical.width) / PANGO_SCALE;
  }

  Laid lay_out(const Block& b) {
    Laid out;
    bool letter_paragraph = doc_.letter && b.kind == BlockKind::paragraph;
    out.style = letter_paragraph ? &theme_.letter : &theme_.style(b.kind);
    out.space_before = out.style->space_before_pt;
    out.space_after = out.style->space_after_pt;
    if (b.kind == BlockKind::heading && !theme_.rule_colour.empty()) out.space_after += kRuleGapPt;
    double width = column();
    if (b.kind == BlockKind::entry && !b.aside.empty()) {
      out.side = layout(b.aside, theme_.aside, -1);
      out.side_style = &theme_.aside;
      double side = std::min(logical_width(out.side.get()), column() / 2);
      width -= side + kAsideGapPt;
      out.side_x = rtl_ ? 0 : column() - side;
      out.text_x = rtl_ ? side + kAsideGapPt : 0;
    } else if (b.kind == BlockKind::bullet) {
      out.side = layout(escape(b.marker.empty() ? theme_.bullet_mark : b.marker), *out.style, -1);
      out.side_style = out.style;
      double indent = std::max(theme_.bullet_indent_pt, logical_width(out.side.get()) + 4);
      width -= indent;
      out.text_x = rtl_ ? 0 : indent;
      out.side_x = rtl_ ? column() - logical_width(out.side.get()) : 0;
    }
    out.text = layout(b.markup, *out.style, width);
    PangoRectangle logical;
    pango_layout_get_extents(out.text.get(), nullptr, &logical);
    out.height = static_cast<double>(logical.height) / PANGO_SCALE;
    PangoLayoutIter* it = pango_layout_get_iter(out.text.get());
    pango_layout_iter_get_line_extents(it, nullptr, &logical);
    out.first_line = static_cast<double>(logical.height) / PANGO_SCALE;
    pango_layout_iter_free(it);
    return out;
  }

  void new_page() {
    cairo_show_page(cr_.get());
    ++page_;
    cursor_ = top_;
  }

  // What must fit before block `i` starts on this page: a run of headings and
  // entries with the first line of what follows them.
  double kept_height(const std::vector<Laid>& laid, std::size_t i) const {
    double need = 0;
    std::size_t j = i;
    for (; j < laid.size() && keeps_with_next(doc_.blocks[j].kind); ++j)
      need += (j == i ? 0 : laid[j].space_before) + laid[j].height + laid[j].space_after;
    if (j == i) return laid[i].first_line;
    if (j < laid.size()) need += laid[j].space_before + laid[j].first_line;
    return need;
  }

  void place(const std::vector<Laid>& laid, std::size_t i) {
    const Laid& b = laid[i];
    const Block& block = doc_.blocks[i];
    if (cursor_ > top_) cursor_ += b.space_before;
    if (cursor_ > top_ && cursor_ + kept_height(laid, i) > bottom_) new_page();

    Rgb colour = rgb(b.style->colour);
    double left = out_.margin_pt;
    PangoLayoutIter* it = pango_layout_get_iter(b.text.get());
    double chunk_start = 0;  // the layout's y at the top of this page's part
    double last_bottom = 0;
    bool first = true;
    do {
      PangoRectangle logical;
      pango_layout_iter_get_line_extents(it, nullptr, &logical);
      double line_top = static_cast<double>(logical.y) / PANGO_SCALE;
      double line_height = static_cast<double>(logical.height) / PANGO_SCALE;
      if (first) chunk_start = line_top;
      double y = cursor_ + line_top - chunk_start;
      if (y + line_height > bottom_ && cursor_ + (line_top - chunk_start) > top_) {
        new_page();
        chunk_start = line_top;
        y = cursor_;
      }
      double baseline =
          y + (static_cast<double>(pango_layout_iter_get_baseline(it)) / PANGO_SCALE - line_top);
      double x = left + b.text_x + static_cast<double>(logical.x) / PANGO_SCALE;
      cairo_set_source_rgb(cr_.get(), colour.r, colour.g, colour.b);
      cairo_move_to(cr_.get(), x, baseline);
      pango_cairo_show_layout_line(cr_.get(), pango_layout_iter_get_line_readonly(it));
      out_.lines.push_back({page_, block.kind, i, x, y,
                            static_cast<double>(logical.width) / PANGO_SCALE, line_height});
      if (first && b.side) show_side(b, left, baseline);
      first = false;
      last_bottom = line_top + line_height;
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
    cursor_ += last_bottom - chunk_start;

    if (block.kind == BlockKind::heading && !theme_.rule_colour.empty()) {
      Rgb rule = rgb(theme_.rule_colour);
      cairo_set_source_rgb(cr_.get(), rule.r, rule.g, rule.b);
      cairo_set_line_width(cr_.get(), 0.6);
      cairo_move_to(cr_.get(), left, cursor_ + kRuleGapPt);
      cairo_line_to(cr_.get(), left + column(), cursor_ + kRuleGapPt);
      cairo_stroke(cr_.get());
    }
    cursor_ += b.space_after;
  }

  // The aside or the bullet, its baseline on the text's first.
  void show_side(const Laid& b, double left, double baseline) {
    Rgb colour = rgb(b.side_style->colour);
    PangoLayoutLine* line = pango_layout_get_line_readonly(b.side.get(), 0);
    if (line == nullptr) return;
    cairo_set_source_rgb(cr_.get(), colour.r, colour.g, colour.b);
    cairo_move_to(cr_.get(), left + b.side_x, baseline);
    pango_cairo_show_layout_line(cr_.get(), line);
  }

  const Document& doc_;
  const Theme& theme_;
  Rendered out_;
  bool rtl_ = false;
  CairoPtr cr_;
  ContextPtr context_;
  int page_ = 0;
  double top_ = 0, bottom_ = 0, cursor_ = 0;
};

}  // namespace

bool right_to_left(std::string_view language) {
  std::string_view primary = language.substr(0, language.find_first_of("-_"));
  static constexpr std::array<std::string_view, 9> kRtl = {"ar", "he", "fa", "ur", "ps",
                                                           "sd", "yi", "dv", "ckb"};
  return std::find(kRtl.begin(), kRtl.end(), primary) != kRtl.end();
}

std::string escape(std::string_view text) {
  gchar* escaped = g_markup_escape_text(text.data(), static_cast<gssize>(text.size()));
  std::string out(escaped);
  g_free(escaped);
  return out;
}

Rendered render_pdf(const Document& doc, const Theme& theme, PageSize size) {
  return Typesetter(doc, theme, size).run();
}

}  // namespace peto::typeset
