// The page and its text: gumbo parsing within bounds, HTML rendered as plain
// text, and the cleaning every output string goes through.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "core/text.h"
#include "core/utf8.h"
#include "formats/posting_internal.h"

namespace peto::formats::detail {
namespace {

bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Elements that do not deepen the tree: void ones, and ones an HTML parser
// closes by itself when the next sibling starts.
bool flat_element(std::string_view name) {
  return one_of(name,
                {"area",  "base",     "br",      "col",      "embed",    "hr",  "img",    "input",
                 "link",  "meta",     "param",   "source",   "track",    "wbr", "keygen", "p",
                 "li",    "dt",       "dd",      "option",   "optgroup", "tr",  "td",     "th",
                 "thead", "tbody",    "tfoot",   "colgroup", "rb",       "rt",  "rp",     "rtc",
                 "image", "basefont", "bgsound", "frame",    "menuitem"});
}

bool raw_text_element(std::string_view name) {
  return one_of(name, {"script", "style", "textarea", "title", "xmp", "iframe", "noembed",
                       "noframes", "plaintext"});
}

// Position of "</name" (ASCII case-insensitive) at or after `from`, or npos.
std::size_t find_end_tag(std::string_view html, std::string_view name, std::size_t from) {
  for (std::size_t i = html.find("</", from); i != std::string_view::npos;
       i = html.find("</", i + 2)) {
    if (html.size() - i - 2 < name.size()) return std::string_view::npos;
    bool same = true;
    for (std::size_t k = 0; k < name.size() && same; ++k)
      same = std::tolower(static_cast<unsigned char>(html[i + 2 + k])) == name[k];
    if (same) return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::string_view bounded_html(std::string_view html) {
  const std::size_t n = std::min(html.size(), kMaxHtmlBytes);
  html = html.substr(0, n);
  int depth = 0;
  std::size_t i = 0;
  while (i < n) {
    i = html.find('<', i);
    if (i == std::string_view::npos || i + 1 >= n) break;
    if (html.compare(i, 4, "<!--") == 0) {
      std::size_t end = html.find("-->", i + 4);
      if (end == std::string_view::npos) break;
      i = end + 3;
      continue;
    }
    const bool closing = html[i + 1] == '/';
    std::size_t k = i + (closing ? 2 : 1);
    if (k >= n || !std::isalpha(static_cast<unsigned char>(html[k]))) {
      ++i;
      continue;
    }
    std::string name;
    while (k < n && name.size() < 32 &&
           (std::isalnum(static_cast<unsigned char>(html[k])) || html[k] == '-' || html[k] == ':'))
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(html[k++])));
    const std::size_t gt = html.find('>', k);
    if (gt == std::string_view::npos) break;
    if (closing) {
      if (!flat_element(name) && depth > 0) --depth;
      i = gt + 1;
      continue;
    }
    if (raw_text_element(name)) {
      std::size_t end = find_end_tag(html, name, gt + 1);
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    const bool self_closed = html[gt - 1] == '/';
    if (!self_closed && !flat_element(name)) {
      if (depth + 1 > kMaxTagDepth) return html.substr(0, i);
      ++depth;
    }
    i = gt + 1;
  }
  return html;
}

Page::Page(std::string_view html) {
  html = bounded_html(html);
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;  // the errors are not read; do not collect them
  output_ = gumbo_parse_with_options(&options, html.data(), html.size());
}

Page::~Page() {
  if (output_) gumbo_destroy_output(&kGumboDefaultOptions, output_);
}

const char* attr(const GumboNode* node, const char* name) {
  if (!node || node->type != GUMBO_NODE_ELEMENT) return nullptr;
  const GumboAttribute* a = gumbo_get_attribute(&node->v.element.attributes, name);
  return a ? a->value : nullptr;
}

bool has_tag(const GumboNode* node, GumboTag tag) {
  return node && node->type == GUMBO_NODE_ELEMENT && node->v.element.tag == tag;
}

bool contains_nocase(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return true;
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

// --- cleaning -------------------------------------------------------------

namespace {

bool is_space_cp(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v' ||
         cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0x85;
}

bool is_control_cp(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFEFF || cp == 0xFFFD;
}

// Cuts `out` (valid UTF-8 of `count` code points) so that with "…" it holds
// at most `max` code points, preferring a word boundary near the end.
void cut_with_ellipsis(std::string& out, std::size_t max) {
  std::size_t keep = max - 1, count = 0, at = 0;
  while (at < out.size() && count < keep) {
    char32_t cp;
    std::size_t len = decode_utf8(out, at, cp);
    at += len ? len : 1;
    ++count;
  }
  out.resize(at);
  std::size_t space = out.find_last_of(" \n");
  if (space != std::string::npos && out.size() - space < 200) out.resize(space);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  out += "\xE2\x80\xA6";
}

}  // namespace

std::string clean_field(std::string_view s, std::size_t max) {
  std::string out;
  std::size_t count = 0;
  bool pending_space = false;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    std::size_t len = decode_utf8(s, i, cp);
    if (len == 0) {
      ++i;
      continue;
    }
    std::string_view bytes = s.substr(i, len);
    i += len;
    if (is_space_cp(cp)) {
      pending_space = !out.empty();
      continue;
    }
    if (is_control_cp(cp)) continue;
    if (count + (pending_space ? 2 : 1) > max) {
      cut_with_ellipsis(out, max);
      return out;
    }
    if (pending_space) out += ' ', ++count, pending_space = false;
    out += bytes;
    ++count;
  }
  return out;
}

std::string clean_description(std::string_view s) {
  std::string out;
  std::size_t blank = 0;  // blank lines since the last text
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::string line = clean_field(s.substr(start, end - start), kMaxDescription + 1);
    start = end + 1;
    if (line.empty()) {
      ++blank;
      continue;
    }
    if (!out.empty()) out += blank ? "\n\n" : "\n";
    blank = 0;
    out += line;
    if (out.size() > kMaxDescription * 4) break;
  }
  if (utf8_length(out) > kMaxDescription) cut_with_ellipsis(out, kMaxDescription);
  return out;
}

// --- rendering --------------------------------------------------------------

namespace {

bool is_chrome(const GumboNode* node);

constexpr std::size_t kMaxRenderBytes = kMaxDescription * 8;

struct Renderer {
  std::string out;
  int pre = 0;
  bool skip_chrome = false;  // leave out navigation, footers and cookie banners

  void trim_spaces() {
    while (!out.empty() && out.back() == ' ') out.pop_back();
  }
  // Ends the current line and leaves `n` line breaks (1 or 2) before the next text.
  void lines(int n) {
    trim_spaces();
    if (out.empty()) return;
    int have = 0;
    for (auto it = out.rbegin(); it != out.rend() && *it == '\n' && have < 2; ++it) ++have;
    for (; have < n; ++have) out += '\n';
  }
  void text(std::string_view t) {
    for (char c : t) {
      if (!pre && ascii_space(c)) {
        if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += ' ';
      } else {
        out += c;
      }
    }
  }

  void render(const GumboNode* node, int depth) {
    if (depth > kMaxWalkDepth || out.size() > kMaxRenderBytes) return;
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        text(node->v.text.text);
        return;
      case GUMBO_NODE_ELEMENT:
        element(node, depth);
        return;
      case GUMBO_NODE_DOCUMENT:
        children(&node->v.document.children, depth);
        return;
      default:
        return;
    }
  }

  void children(const GumboVector* kids, int depth) {
    for (unsigned i = 0; i < kids->length; ++i)
      render(static_cast<const GumboNode*>(kids->data[i]), depth + 1);
  }

  void element(const GumboNode* node, int depth) {
    const GumboTag tag = node->v.element.tag;
    switch (tag) {
      case GUMBO_TAG_SCRIPT:
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_NOSCRIPT:
      case GUMBO_TAG_TEMPLATE:
      case GUMBO_TAG_HEAD:
      case GUMBO_TAG_SVG:
      case GUMBO_TAG_IFRAME:
      case GUMBO_TAG_OBJECT:
      case GUMBO_TAG_SELECT:
      case GUMBO_TAG_TEXTAREA:
        return;
      default:
        break;
    }
    if (attr(node, "hidden")) return;
    if (skip_chrome && is_chrome(node)) return;
    if (tag == GUMBO_TAG_BR) {
      trim_spaces();
      out += '\n';
      return;
    }
    int breaks = 0;
    switch (tag) {
      case GUMBO_TAG_P:
      case GUMBO_TAG_H1:
      case GUMBO_TAG_H2:
      case GUMBO_TAG_H3:
      case GUMBO_TAG_H4:
      case GUMBO_TAG_H5:
      case GUMBO_TAG_H6:
      case GUMBO_TAG_UL:
      case GUMBO_TAG_OL:
      case GUMBO_TAG_DL:
      case GUMBO_TAG_TABLE:
      case GUMBO_TAG_BLOCKQUOTE:
      case GUMBO_TAG_PRE:
      case GUMBO_TAG_SECTION:
      case GUMBO_TAG_ARTICLE:
      case GUMBO_TAG_HEADER:
      case GUMBO_TAG_FOOTER:
      case GUMBO_TAG_NAV:
      case GUMBO_TAG_ASIDE:
      case GUMBO_TAG_MAIN:
      case GUMBO_TAG_FORM:
      case GUMBO_TAG_FIGURE:
      case GUMBO_TAG_HR:
        breaks = 2;
        break;
      case GUMBO_TAG_DIV:
      case GUMBO_TAG_LI:
      case GUMBO_TAG_DT:
      case GUMBO_TAG_DD:
      case GUMBO_TAG_TR:
      case GUMBO_TAG_ADDRESS:
      case GUMBO_TAG_CAPTION:
      case GUMBO_TAG_FIGCAPTION:
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_HTML:
        breaks = 1;
        break;
      default:
        break;
    }
    if (breaks) lines(breaks);
    if (tag == GUMBO_TAG_LI) out += "- ";
    if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) text(" ");
    if (tag == GUMBO_TAG_PRE) ++pre;
    children(&node->v.element.children, depth);
    if (tag == GUMBO_TAG_PRE) --pre;
    if (breaks) lines(breaks);
  }
};

bool is_chrome(const GumboNode* node) {
  switch (node->v.element.tag) {
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_BUTTON:
      return true;
    default:
      break;
  }
  for (const char* name : {"id", "class", "aria-label"}) {
    const char* v = attr(node, name);
    if (v && (contains_nocase(v, "cookie") || contains_nocase(v, "consent") ||
              contains_nocase(v, "gdpr")))
      return true;
  }
  return false;
}

// Does rendered text still look like HTML (it was escaped twice)?
bool looks_like_html(std::string_view text) {
  static constexpr std::array<std::string_view, 10> tags = {
      "<p>", "<p ", "<br", "<li>", "<ul>", "<div", "</p>", "<strong>", "<b>", "<h"};
  for (std::string_view t : tags)
    if (contains_nocase(text, t)) return true;
  return false;
}

std::string render_fragment(std::string_view html) {
  Page page(html);
  Renderer r;
  if (page.root()) r.render(page.root(), 0);
  return std::move(r.out);
}

}  // namespace

std::string node_text(const GumboNode* node, bool skip_chrome) {
  Renderer r;
  r.skip_chrome = skip_chrome;
  if (node) r.render(node, 0);
  return std::move(r.out);
}

std::string html_to_text(std::string_view html) {
  std::string text = render_fragment(html);
  if (looks_like_html(text)) text = render_fragment(text);
  return clean_description(text);
}

std::string inline_text(std::string_view s) {
  if (s.find('&') == std::string_view::npos && s.find('<') == std::string_view::npos)
    return clean_field(s);
  return clean_field(render_fragment(s.substr(0, kMaxField * 8)));
}

}  // namespace peto::formats::detail
