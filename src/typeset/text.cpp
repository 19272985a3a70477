// The document as plain text, and Markdown as blocks (cmark's tree walked
// into Pango markup).
#include <cmark.h>
#include <glib.h>
#include <pango/pango.h>

#include <memory>

#include "typeset/document.h"

namespace peto::typeset {
namespace {

// The text of a block's markup; markup that does not parse is its own text.
std::string plain(const std::string& markup) {
  char* text = nullptr;
  if (!pango_parse_markup(markup.c_str(), -1, 0, nullptr, &text, nullptr, nullptr)) return markup;
  std::string out(text);
  g_free(text);
  return out;
}

std::string upper(const std::string& text) {
  gchar* up = g_utf8_strup(text.c_str(), static_cast<gssize>(text.size()));
  std::string out(up);
  g_free(up);
  return out;
}

struct NodeFree {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};

std::string literal(cmark_node* n) {
  const char* l = cmark_node_get_literal(n);
  return l ? std::string(l) : std::string();
}

// Inline children of `node` as markup.
std::string inlines(cmark_node* node) {
  std::string out;
  for (cmark_node* c = cmark_node_first_child(node); c != nullptr; c = cmark_node_next(c)) {
    switch (cmark_node_get_type(c)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_HTML_INLINE:
        out += escape(literal(c));
        break;
      case CMARK_NODE_SOFTBREAK:
        out += ' ';
        break;
      case CMARK_NODE_LINEBREAK:
        out += '\n';
        break;
      case CMARK_NODE_CODE:
        out += "<tt>" + escape(literal(c)) + "</tt>";
        break;
      case CMARK_NODE_EMPH:
        out += "<i>" + inlines(c) + "</i>";
        break;
      case CMARK_NODE_STRONG:
        out += "<b>" + inlines(c) + "</b>";
        break;
      case CMARK_NODE_LINK: {
        std::string label = inlines(c);
        const char* url = cmark_node_get_url(c);
        std::string href = url ? url : "";
        out += "<u>" + label + "</u>";
        if (!href.empty() && plain(label) != href) out += " (" + escape(href) + ")";
        break;
      }
      default:  // an image: its description
        out += inlines(c);
        break;
    }
  }
  return out;
}

void blocks_of(cmark_node* node, std::vector<Block>& out) {
  for (cmark_node* c = cmark_node_first_child(node); c != nullptr; c = cmark_node_next(c)) {
    switch (cmark_node_get_type(c)) {
      case CMARK_NODE_PARAGRAPH:
        out.push_back({BlockKind::paragraph, inlines(c), "", ""});
        break;
      case CMARK_NODE_HEADING:
        out.push_back({BlockKind::heading, inlines(c), "", ""});
        break;
      case CMARK_NODE_BLOCK_QUOTE: {
        std::vector<Block> inner;
        blocks_of(c, inner);
        for (Block& b : inner) b.markup = "<i>" + b.markup + "</i>";
        out.insert(out.end(), inner.begin(), inner.end());
        break;
      }
      case CMARK_NODE_CODE_BLOCK:
      case CMARK_NODE_HTML_BLOCK: {
        std::string text = literal(c);
        while (!text.empty() && text.back() == '\n') text.pop_back();
        out.push_back({BlockKind::paragraph,
                       cmark_node_get_type(c) == CMARK_NODE_CODE_BLOCK
                           ? "<tt>" + escape(text) + "</tt>"
                           : escape(text),
                       "", ""});
        break;
      }
      case CMARK_NODE_LIST: {
        bool numbered = cmark_node_get_list_type(c) == CMARK_ORDERED_LIST;
        int number = cmark_node_get_list_start(c);
        for (cmark_node* item = cmark_node_first_child(c); item != nullptr;
             item = cmark_node_next(item)) {
          std::vector<Block> inner;
          blocks_of(item, inner);
          std::string markup;
          for (const Block& b : inner) markup += (markup.empty() ? "" : " ") + b.markup;
          out.push_back(
              {BlockKind::bullet, markup, "", numbered ? std::to_string(number++) + "." : ""});
        }
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

std::vector<Block> blocks_from_markdown(std::string_view markdown) {
  std::unique_ptr<cmark_node, NodeFree> doc(
      cmark_parse_document(markdown.data(), markdown.size(), CMARK_OPT_DEFAULT));
  std::vector<Block> out;
  if (doc) blocks_of(doc.get(), out);
  return out;
}

std::string render_text(const Document& doc) {
  std::string out;
  BlockKind previous = BlockKind::title;
  for (std::size_t i = 0; i < doc.blocks.size(); ++i) {
    const Block& b = doc.blocks[i];
    std::string text = plain(b.markup);
    bool list = b.kind == BlockKind::bullet;
    // A blank line before a heading, an entry, a paragraph and a list; none
    // inside a list or between the title lines.
    bool blank = i > 0 && !(list && previous == BlockKind::bullet) &&
                 !(b.kind == BlockKind::subtitle) && !(list && previous == BlockKind::entry);
    if (blank) out += '\n';
    switch (b.kind) {
      case BlockKind::heading:
        out += upper(text);
        break;
      case BlockKind::bullet:
        out += (b.marker.empty() ? "-" : b.marker) + " " + text;
        break;
      case BlockKind::entry:
        out += text;
        if (!b.aside.empty()) out += " — " + plain(b.aside);
        break;
      default:
        out += text;
        break;
    }
    out += '\n';
    previous = b.kind;
  }
  return out;
}

}  // namespace peto::typeset
