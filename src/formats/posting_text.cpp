// The text parser, for pages without structured data: the first <h1> is the
// role, labelled lines ("Location: Berlin", or a label with its value on the
// next line as in <dl> and tables) fill the rest, and a currency range
// anywhere in the text is the salary.
#include <algorithm>
#include <array>

#include "core/text.h"
#include "formats/posting_internal.h"

namespace peto::formats::detail {
namespace {

enum class Field { company, location, salary, closes, employment, remote };

struct Label {
  std::string_view text;  // lower case
  Field field;
};

constexpr std::array<Label, 41> kLabels = {{
    {"company", Field::company},
    {"employer", Field::company},
    {"organisation", Field::company},
    {"organization", Field::company},
    {"hiring company", Field::company},
    {"unternehmen", Field::company},
    {"arbeitgeber", Field::company},
    {"entreprise", Field::company},
    {"location", Field::location},
    {"job location", Field::location},
    {"work location", Field::location},
    {"place of work", Field::location},
    {"standort", Field::location},
    {"arbeitsort", Field::location},
    {"einsatzort", Field::location},
    {"lieu", Field::location},
    {"localisation", Field::location},
    {"salary", Field::salary},
    {"salary range", Field::salary},
    {"compensation", Field::salary},
    {"pay", Field::salary},
    {"gehalt", Field::salary},
    {"verg\xC3\xBCtung", Field::salary},
    {"salaire", Field::salary},
    {"r\xC3\xA9mun\xC3\xA9ration", Field::salary},
    {"closing date", Field::closes},
    {"apply by", Field::closes},
    {"deadline", Field::closes},
    {"application deadline", Field::closes},
    {"bewerbungsfrist", Field::closes},
    {"bewerbungsschluss", Field::closes},
    {"date limite", Field::closes},
    {"employment type", Field::employment},
    {"job type", Field::employment},
    {"contract type", Field::employment},
    {"type of contract", Field::employment},
    {"anstellungsart", Field::employment},
    {"type de contrat", Field::employment},
    {"work model", Field::remote},
    {"workplace type", Field::remote},
    {"remote", Field::remote},
}};

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= text.size() && out.size() < 5000;) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string line = clean_field(text.substr(at, std::min<std::size_t>(end - at, 4000)));
    if (!line.empty()) out.push_back(std::move(line));
    at = end + 1;
  }
  return out;
}

// The label `line` starts with and the value after it ("Location: Berlin"),
// or the value on the next line when the line is the label alone.
std::optional<std::pair<Field, std::string>> labelled(const std::vector<std::string>& lines,
                                                      std::size_t i) {
  const std::string lower = text::lower(lines[i]);
  const Label* best = nullptr;
  std::string value;
  for (const Label& label : kLabels) {
    if (!lower.starts_with(label.text)) continue;
    if (best && best->text.size() >= label.text.size()) continue;
    std::string_view rest = std::string_view(lines[i]).substr(label.text.size());
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    const bool colon = !rest.empty() && rest.front() == ':';
    if (colon) rest.remove_prefix(1);
    if (!colon && !rest.empty()) continue;  // "Salary and benefits are…" is prose
    std::string v = clean_field(rest);
    if (v.empty() && i + 1 < lines.size() && lines[i + 1].size() < 200) v = lines[i + 1];
    if (v.empty()) continue;
    best = &label;
    value = std::move(v);
  }
  if (!best) return std::nullopt;
  return std::make_pair(best->field, value);
}

bool looks_like_job(std::string_view text) {
  for (std::string_view word :
       {"apply", "responsibilities", "requirements", "qualifications", "bewerben", "bewerbung",
        "aufgaben", "postuler", "candidature", "job description", "your role", "what you"})
    if (contains_nocase(text, word)) return true;
  return false;
}

const GumboNode* find_first(const Page& page, GumboTag tag) {
  const GumboNode* found = nullptr;
  walk_elements(page.root(), [&](const GumboNode* el, int) {
    if (!found && has_tag(el, tag)) found = el;
    return found == nullptr;
  });
  return found;
}

// Job boards mark the company and the place with class names
// ("company-name", data-testid="inlineHeader-companyLocation"): the first
// short element so named.
std::string marked(const Page& page, std::string_view word) {
  std::string found;
  walk_elements(page.root(), [&](const GumboNode* el, int) {
    if (!found.empty()) return false;
    const GumboTag tag = el->v.element.tag;
    if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE || tag == GUMBO_TAG_HEAD ||
        tag == GUMBO_TAG_NAV || tag == GUMBO_TAG_FOOTER)
      return false;
    for (const char* name : {"class", "id", "data-testid", "data-at", "data-automation-id"}) {
      const char* v = attr(el, name);
      if (!v || !contains_nocase(v, word)) continue;
      std::string text = clean_field(node_text(el));
      if (text.starts_with("at ")) text.erase(0, 3);
      if (!text.empty() && text.size() < 120) found = std::move(text);
      break;
    }
    return found.empty();
  });
  return found;
}

}  // namespace

std::optional<JobPosting> read_text(const Page& page, std::string_view /*page_url*/) {
  const GumboNode* h1 = find_first(page, GUMBO_TAG_H1);
  const GumboNode* body = find_first(page, GUMBO_TAG_BODY);
  if (!body) return std::nullopt;
  const std::string text = node_text(body, true);
  const std::vector<std::string> lines = lines_of(text);

  JobPosting p;
  bool signal = false;  // something on the page says it is a job
  std::string salary_text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto found = labelled(lines, i);
    if (!found) continue;
    auto& [field, value] = *found;
    auto set = [&](std::string& target, std::string v) {
      if (target.empty() && !v.empty()) target = std::move(v), signal = true;
    };
    switch (field) {
      case Field::company:
        set(p.company, value);
        break;
      case Field::location:
        set(p.location, value);
        break;
      case Field::salary:
        set(salary_text, value);
        break;
      case Field::closes:
        set(p.closes_on, parse_date(value));
        break;
      case Field::employment:
        set(p.employment_type, employment_type(value));
        break;
      case Field::remote:
        if (contains_nocase(value, "hybrid"))
          set(p.remote, "hybrid");
        else if (contains_nocase(value, "remote"))
          set(p.remote, "remote");
        else if (contains_nocase(value, "site") || contains_nocase(value, "office"))
          set(p.remote, "onsite");
        break;
    }
  }
  std::optional<Salary> salary;
  if (!salary_text.empty()) salary = parse_salary(salary_text, false);
  if (!salary) salary = parse_salary(text.substr(0, 200000), true);
  if (salary) {
    p.salary_min = salary->min;
    p.salary_max = salary->max;
    p.currency = salary->currency;
    p.salary_period = salary->period;
    signal = true;
  }
  if (!signal && !looks_like_job(text)) return std::nullopt;

  if (h1) p.role = clean_field(node_text(h1));
  if (p.company.empty()) p.company = marked(page, "companyname");
  if (p.company.empty()) p.company = marked(page, "company-name");
  if (p.location.empty()) p.location = marked(page, "companylocation");
  if (p.location.empty()) p.location = marked(page, "job-location");
  const GumboNode* main = find_first(page, GUMBO_TAG_ARTICLE);
  if (!main) main = find_first(page, GUMBO_TAG_MAIN);
  p.description = clean_description(main ? node_text(main, true) : text);
  if (p.role.empty() && p.company.empty() && !p.salary_min) return std::nullopt;
  return p;
}

}  // namespace peto::formats::detail
