// A letter template filled in for an application, as typeset blocks.
#include "media/letter.h"

#include "core/i18n.h"
#include "core/timezone.h"
#include "media/cv.h"

namespace peto::media {
namespace {

using nlohmann::json;
using typeset::Block;
using typeset::BlockKind;
using typeset::escape;

std::string say(const std::string& language, const std::string& key) {
  return Catalogue::shared().text(language, key);
}

}  // namespace

std::optional<LetterValues> letter_values(store::Conn& conn, std::int64_t owner,
                                          std::int64_t application_id, const std::string& language,
                                          Millis now) {
  auto rows = conn.query(
      "SELECT l.role, l.url, c.name AS company, k.name AS contact, u.time_zone"
      " FROM applications a JOIN listings l ON l.id = a.listing_id"
      " JOIN users u ON u.id = a.owner_id"
      " LEFT JOIN companies c ON c.id = l.company_id"
      " LEFT JOIN contacts k ON k.id = a.contact_id"
      " WHERE a.id = ? AND a.owner_id = ?",
      {application_id, owner});
  if (rows.empty()) return std::nullopt;
  const store::Row& r = rows[0];
  std::string zone = r.text("time_zone");
  if (zone.empty()) zone = "UTC";
  std::string contact = r.text("contact");
  if (contact.empty()) contact = say(language, "letter_no_contact");
  using formats::markdown_literal;
  return LetterValues{
      {"company", markdown_literal(r.text("company"))},
      {"role", markdown_literal(r.text("role"))},
      {"contact", markdown_literal(contact)},
      {"listing_url", markdown_literal(r.text("url"))},
      {"date", markdown_literal(typeset::long_date(local_date(now, zone), language))}};
}

LetterValues example_letter_values(const std::string& language, const std::string& today) {
  using formats::markdown_literal;
  return {{"company", markdown_literal(say(language, "letter_example_company"))},
          {"role", markdown_literal(say(language, "letter_example_role"))},
          {"contact", markdown_literal(say(language, "letter_example_contact"))},
          {"listing_url", markdown_literal("https://jobs.example.com/1234")},
          {"date", markdown_literal(typeset::long_date(today, language))}};
}

std::variant<typeset::Document, formats::PlaceholderProblem> letter_document(
    const json& letter, const json& cv, const LetterValues& values) {
  auto body = formats::fill_placeholders(text_field(letter, "body"), values);
  if (auto* problem = std::get_if<formats::PlaceholderProblem>(&body)) return *problem;
  auto regarding = formats::fill_placeholders(text_field(letter, "regarding"), values);
  if (auto* problem = std::get_if<formats::PlaceholderProblem>(&regarding)) return *problem;

  typeset::Document doc;
  doc.letter = true;
  doc.language = letter_language(letter);
  doc.author = text_field(cv, "full_name");
  doc.title = text_field(letter, "name");
  auto& b = doc.blocks;
  if (!doc.author.empty()) {
    b.push_back({BlockKind::title, escape(doc.author), "", ""});
    std::string line;
    for (const auto& c : cv_contact(cv)) line += (line.empty() ? "" : " · ") + c;
    if (!line.empty()) b.push_back({BlockKind::subtitle, escape(line), "", ""});
  }
  // The addressee on the left, the date on the right of the same line. The
  // values are Markdown literals: read back as one paragraph of plain text.
  auto plain = [](const std::string& markdown) {
    auto blocks = typeset::blocks_from_markdown(markdown);
    return blocks.empty() ? std::string() : blocks.front().markup;
  };
  auto company = values.find("company");
  auto date = values.find("date");
  b.push_back({BlockKind::entry,
               company == values.end() ? "" : "<b>" + plain(company->second) + "</b>",
               date == values.end() ? "" : plain(date->second), ""});
  if (std::string line = plain(std::get<std::string>(regarding)); !line.empty())
    b.push_back({BlockKind::paragraph, "<b>" + line + "</b>", "", ""});
  for (Block& p : typeset::blocks_from_markdown(std::get<std::string>(body)))
    b.push_back(std::move(p));
  return doc;
}

json letter_sender(domain::Records& records, std::int64_t owner, const json& letter) {
  auto id = letter.find("cv_id");
  if (id == letter.end() || !id->is_number_integer()) return nullptr;
  auto cv = records.get(owner, domain::kind("cvs"), id->get<std::int64_t>());
  return cv ? *cv : json();
}

std::string letter_language(const json& letter) {
  std::string language = text_field(letter, "language");
  return language.empty() ? "en" : language;
}

typeset::PageSize letter_page_size(const json& letter) {
  return text_field(letter, "page_size") == "letter" ? typeset::PageSize::letter
                                                     : typeset::PageSize::a4;
}

std::string letter_theme(const json& letter) {
  return text_field(letter, "theme") == "modern" ? "modern" : "classic";
}

std::string letter_document_kind(const json& letter) {
  std::string purpose = text_field(letter, "purpose");
  if (purpose == "cover") return "cover_letter";
  if (purpose == "motivation") return "motivation_letter";
  return "letter";
}

}  // namespace peto::media
