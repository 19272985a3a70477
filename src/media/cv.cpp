// A CV record and career entries as typeset blocks.
#include "media/cv.h"

#include <algorithm>
#include <map>

#include "core/i18n.h"
#include "core/text.h"

namespace peto::media {
namespace {

using nlohmann::json;
using typeset::Block;
using typeset::BlockKind;
using typeset::escape;

class Writer {
 public:
  explicit Writer(const json& cv) : cv_(cv), language_(text_field(cv, "language")) {
    if (language_.empty()) language_ = "en";
  }

  std::string text(const std::string& key) const {
    return Catalogue::shared().text(language_, key);
  }

  // "03/2021 – 06/2023", "03/2021 – now", "2019" for a day alone.
  std::string dates(const json& e) const {
    auto month = [](const std::string& day) {
      return day.size() >= 7 ? day.substr(5, 2) + "/" + day.substr(0, 4) : day;
    };
    std::string from = text_field(e, "started_on"), to = text_field(e, "ended_on");
    if (from.empty() && to.empty()) return "";
    if (from.empty()) return month(to);
    return month(from) + " – " + (to.empty() ? text("cv_now") : month(to));
  }

  // "Level, dates · place" beside an entry.
  std::string aside(const json& e, bool with_level) const {
    std::vector<std::string> parts;
    if (with_level && !text_field(e, "level").empty()) parts.push_back(text_field(e, "level"));
    if (!dates(e).empty()) parts.push_back(dates(e));
    if (!text_field(e, "place").empty()) parts.push_back(text_field(e, "place"));
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
    return escape(out);
  }

  // An entry's highlights: one bullet a line, each line's Markdown inline.
  void highlights(const json& e, std::vector<Block>& out) const {
    std::string all = text_field(e, "highlights");
    std::size_t at = 0;
    while (at <= all.size()) {
      std::size_t end = all.find('\n', at);
      if (end == std::string::npos) end = all.size();
      std::string line = all.substr(at, end - at);
      at = end + 1;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      std::size_t skip = line.find_first_not_of(" \t");
      if (skip == std::string::npos) continue;
      line = line.substr(skip);
      for (const char* mark : {"- ", "* ", "+ ", "• "})
        if (line.starts_with(mark)) line = line.substr(std::string_view(mark).size());
      // "[data, ml] Built the feature store": only in the CVs it names.
      if (line.starts_with('[')) {
        std::size_t close = line.find(']');
        if (close != std::string::npos) {
          if (!names_cv(line.substr(1, close - 1), text_field(cv_, "name"))) continue;
          line = std::string(text::trim(std::string_view(line).substr(close + 1)));
        }
      }
      for (const Block& b : typeset::blocks_from_markdown(line))
        out.push_back({BlockKind::bullet, b.markup, "", ""});
    }
  }

  typeset::Document run(std::vector<json> entries) {
    typeset::Document doc;
    std::string name = text_field(cv_, "full_name");
    doc.title = name + " — " + text_field(cv_, "name");
    doc.author = name;
    doc.language = language_;
    sort(entries);
    for (const json& e : entries)
      if (entry_in_cv(e, text_field(cv_, "name")))
        sections_[text_field(e, "section")].push_back(&e);
    auto& b = doc.blocks;
    b.push_back({BlockKind::title, escape(name), "", ""});
    if (!text_field(cv_, "headline").empty())
      b.push_back({BlockKind::subtitle, escape(text_field(cv_, "headline")), "", ""});
    contact_line(b);
    for (const Block& p : typeset::blocks_from_markdown(text_field(cv_, "summary"))) b.push_back(p);
    for (const char* section : {"experience", "education", "project"}) dated(section, b);
    skills(b);
    for (const char* section : {"certification", "language"}) listed(section, b);
    references(b);
    return doc;
  }

 private:
  // Newest first (ongoing, then the latest end, then the latest start), or
  // by position when the CV says so.
  void sort(std::vector<json>& entries) const {
    bool by_hand = text_field(cv_, "entry_order") == "hand";
    std::stable_sort(entries.begin(), entries.end(), [&](const json& x, const json& y) {
      if (by_hand) return x.value("position", 0) < y.value("position", 0);
      std::string xe = text_field(x, "ended_on"), ye = text_field(y, "ended_on");
      if (xe.empty() != ye.empty()) return xe.empty();
      if (xe != ye) return xe > ye;
      return text_field(x, "started_on") > text_field(y, "started_on");
    });
  }

  // Town (the street first when asked), e-mail, phone, website, links.
  void contact_line(std::vector<Block>& b) {
    std::vector<std::string> contact = cv_contact(cv_);
    for (const json* e : sections_["link"])
      contact.push_back(text_field(*e, "url").empty() ? text_field(*e, "title")
                                                      : text_field(*e, "url"));
    std::string line;
    for (const auto& c : contact) line += (line.empty() ? "" : " · ") + c;
    if (!line.empty()) b.push_back({BlockKind::subtitle, escape(line), "", ""});
  }

  // A section's heading, when it has entries.
  bool heading(const std::string& section, std::vector<Block>& b) {
    if (sections_[section].empty()) return false;
    b.push_back({BlockKind::heading, escape(text("cv_heading_" + section)), "", ""});
    return true;
  }

  // Experience, education, projects: an entry line with its dates, then highlights.
  void dated(const std::string& section, std::vector<Block>& b) {
    if (!heading(section, b)) return;
    for (const json* e : sections_[section]) {
      std::string markup = "<b>" + escape(text_field(*e, "title")) + "</b>";
      if (!text_field(*e, "organisation").empty())
        markup += ", " + escape(text_field(*e, "organisation"));
      b.push_back({BlockKind::entry, markup, aside(*e, section == "education"), ""});
      highlights(*e, b);
      if (section == "project" && !text_field(*e, "url").empty())
        b.push_back({BlockKind::small, escape(text_field(*e, "url")), "", ""});
    }
  }

  // Skills: one line a group, in order of first mention.
  void skills(std::vector<Block>& b) {
    if (!heading("skill", b)) return;
    std::vector<std::pair<std::string, std::string>> groups;
    for (const json* e : sections_["skill"]) {
      std::string item = escape(text_field(*e, "title"));
      if (!text_field(*e, "level").empty()) item += " (" + escape(text_field(*e, "level")) + ")";
      std::string group = text_field(*e, "organisation");
      auto it =
          std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.first == group; });
      if (it == groups.end())
        groups.emplace_back(group, item);
      else
        it->second += ", " + item;
    }
    for (const auto& [group, items] : groups)
      b.push_back({BlockKind::paragraph,
                   group.empty() ? items : "<b>" + escape(group) + "</b>: " + items, "", ""});
  }

  // Certifications, languages: one line each.
  void listed(const std::string& section, std::vector<Block>& b) {
    if (!heading(section, b)) return;
    for (const json* e : sections_[section]) {
      std::string markup = "<b>" + escape(text_field(*e, "title")) + "</b>";
      for (const char* f : {"organisation", "level"})
        if (!text_field(*e, f).empty()) markup += " — " + escape(text_field(*e, f));
      if (!dates(*e).empty()) markup += " (" + escape(dates(*e)) + ")";
      b.push_back({BlockKind::paragraph, markup, "", ""});
    }
  }

  // References: printed when the CV says so, else "available on request".
  void references(std::vector<Block>& b) {
    if (!heading("reference", b)) return;
    if (text_field(cv_, "with_references") != "yes") {
      b.push_back({BlockKind::paragraph, escape(text("cv_references_on_request")), "", ""});
      return;
    }
    for (const json* e : sections_["reference"]) {
      std::string markup = "<b>" + escape(text_field(*e, "title")) + "</b>";
      for (const char* f : {"organisation", "place", "url"})
        if (!text_field(*e, f).empty()) markup += ", " + escape(text_field(*e, f));
      b.push_back({BlockKind::paragraph, markup, "", ""});
      highlights(*e, b);
    }
  }

  const json& cv_;
  std::string language_;
  std::map<std::string, std::vector<const json*>> sections_;
};

}  // namespace

std::string text_field(const json& record, const char* field) {
  if (!record.is_object()) return "";
  auto it = record.find(field);
  return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> cv_contact(const json& cv) {
  std::vector<std::string> contact;
  std::string town = text_field(cv, "town");
  if (text_field(cv, "with_street") == "yes" && !text_field(cv, "street").empty())
    town = text_field(cv, "street") + (town.empty() ? "" : ", " + town);
  for (const std::string& c :
       {town, text_field(cv, "email"), text_field(cv, "phone"), text_field(cv, "website")})
    if (!c.empty()) contact.push_back(c);
  return contact;
}

bool entry_in_cv(const json& entry, const std::string& cv_name) {
  return names_cv(text_field(entry, "cvs"), cv_name);
}

bool names_cv(std::string_view names, const std::string& cv_name) {
  if (names.find_first_not_of(", ") == std::string_view::npos) return true;
  std::string_view wanted = text::trim(cv_name);
  std::size_t at = 0;
  while (at <= names.size()) {
    std::size_t end = names.find(',', at);
    if (end == std::string::npos) end = names.size();
    if (text::iequals(text::trim(names.substr(at, end - at)), wanted)) return true;
    at = end + 1;
  }
  return false;
}

std::vector<json> career_entries(domain::Records& records, std::int64_t owner) {
  std::vector<json> all;
  domain::ListQuery q;
  q.limit = 200;
  const domain::Kind& k = domain::kind("career");
  for (;;) {
    domain::Page page = records.list(owner, k, q);
    for (auto& e : page.items) all.push_back(std::move(e));
    if (!page.next_cursor) break;
    q.before_id = page.next_cursor;
  }
  return all;
}

typeset::Document cv_document(const json& cv, const std::vector<json>& entries) {
  return Writer(cv).run(entries);
}

typeset::PageSize cv_page_size(const json& cv) {
  return text_field(cv, "page_size") == "letter" ? typeset::PageSize::letter
                                                 : typeset::PageSize::a4;
}

std::string cv_theme(const json& cv) {
  return text_field(cv, "theme") == "modern" ? "modern" : "classic";
}

}  // namespace peto::media
