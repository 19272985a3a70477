// A CV's page: the preview in the page and the PDF and text downloads, made
// from the CV record and the person's career entries (media/cv.h).
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "media/cv.h"
#include "pages/record_pages_internal.h"
#include "typeset/document.h"

namespace peto::web {
namespace {

using nlohmann::json;

// Pango markup as HTML: the builders write only <b>, <i>, <u> and <tt>
// around escaped text, and <tt> is <code> in HTML.
std::string html_of(std::string markup) {
  for (auto [from, to] : {std::pair{"<tt>", "<code>"}, std::pair{"</tt>", "</code>"}})
    for (std::size_t at = markup.find(from); at != std::string::npos; at = markup.find(from, at))
      markup.replace(at, std::string_view(from).size(), to);
  return markup;
}

std::optional<json> cv_of(RecordPages& p, const Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return std::nullopt;
  return p.records.get(v.account.id, domain::kind("cvs"), *id);
}

// "Ana Lima — backend.pdf": the name as printed and the CV's name.
std::string file_name(const json& cv, const char* extension) {
  return cv.value("full_name", std::string()) + " — " + cv.value("name", std::string()) + extension;
}

}  // namespace

// The document as the page's preview: the blocks in HTML, headings h2.
std::string preview_html(const typeset::Document& doc) {
  std::string out;
  bool in_list = false;
  for (const typeset::Block& b : doc.blocks) {
    bool bullet = b.kind == typeset::BlockKind::bullet;
    if (in_list && !bullet) out += "</ul>";
    if (bullet && !in_list) out += "<ul class=\"cv-preview__list\">";
    in_list = bullet;
    std::string html = html_of(b.markup);
    switch (b.kind) {
      case typeset::BlockKind::title:
        out += "<p class=\"cv-preview__title\">" + html + "</p>";
        break;
      case typeset::BlockKind::subtitle:
        out += "<p class=\"cv-preview__subtitle\">" + html + "</p>";
        break;
      case typeset::BlockKind::heading:
        out += "<h2 class=\"cv-preview__heading\">" + html + "</h2>";
        break;
      case typeset::BlockKind::entry:
        out += "<p class=\"cv-preview__entry\"><span>" + html +
               "</span> <span class=\"cv-preview__aside\">" + html_of(b.aside) + "</span></p>";
        break;
      case typeset::BlockKind::bullet:
        out += "<li>" + html + "</li>";
        break;
      case typeset::BlockKind::small:
        out += "<p class=\"cv-preview__small\">" + html + "</p>";
        break;
      case typeset::BlockKind::paragraph:
        out += "<p>" + html + "</p>";
        break;
    }
  }
  if (in_list) out += "</ul>";
  return out;
}

json cv_section(RecordPages& p, const Visitor& v, std::int64_t id, const json& cv) {
  typeset::Document doc = media::cv_document(cv, media::career_entries(p.records, v.account.id));
  std::string href = "/cvs/" + std::to_string(id);
  return {{"pdf_href", href + "/cv.pdf"},
          {"text_href", href + "/cv.txt"},
          {"lang", doc.language},
          {"dir", typeset::right_to_left(doc.language) ? "rtl" : "ltr"},
          {"preview", preview_html(doc)}};
}

Response cv_pdf(RecordPages& p, Request& r, const Visitor& v) {
  auto cv = cv_of(p, r, v);
  if (!cv) return p.site.not_found(r, v);
  typeset::Rendered out =
      typeset::render_pdf(media::cv_document(*cv, media::career_entries(p.records, v.account.id)),
                          typeset::shipped_theme(media::cv_theme(*cv)), media::cv_page_size(*cv));
  Response res;
  res.status = 200;
  res.body = std::move(out.pdf);
  res.set_header("Content-Type", "application/pdf");
  res.set_header("Content-Disposition", content_disposition("inline", file_name(*cv, ".pdf")));
  return res;
}

Response cv_text(RecordPages& p, Request& r, const Visitor& v) {
  auto cv = cv_of(p, r, v);
  if (!cv) return p.site.not_found(r, v);
  Response res;
  res.status = 200;
  res.body =
      typeset::render_text(media::cv_document(*cv, media::career_entries(p.records, v.account.id)));
  res.set_header("Content-Type", "text/plain; charset=utf-8");
  res.set_header("Content-Disposition", content_disposition("inline", file_name(*cv, ".txt")));
  return res;
}

}  // namespace peto::web
