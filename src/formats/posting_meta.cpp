// The meta parser: OpenGraph tags, <title>, the meta description and the
// canonical link; the role and company come from splitting the title.
#include <algorithm>
#include <array>

#include "core/text.h"
#include "formats/posting_internal.h"

namespace peto::formats::detail {
namespace {

struct Head {
  std::string title;  // <title>
  std::string og_title;
  std::string site_name;    // og:site_name
  std::string description;  // og:description, else meta description
  std::string og_url;
  std::string canonical;  // link rel=canonical
};

Head read_head(const Page& page) {
  Head h;
  std::string meta_description;
  walk_elements(page.root(), [&](const GumboNode* el, int) {
    const GumboTag tag = el->v.element.tag;
    if (tag == GUMBO_TAG_TITLE && h.title.empty()) {
      h.title = clean_field(node_text(el));
    } else if (tag == GUMBO_TAG_META) {
      const char* key = attr(el, "property");
      if (!key) key = attr(el, "name");
      const char* content = attr(el, "content");
      if (!key || !content) return false;
      const std::string k = text::lower(key);
      auto set = [&](std::string& field) {
        if (field.empty()) field = content;
      };
      if (k == "og:title") set(h.og_title);
      if (k == "og:site_name") set(h.site_name);
      if (k == "og:description") set(h.description);
      if (k == "og:url") set(h.og_url);
      if (k == "description") set(meta_description);
    } else if (tag == GUMBO_TAG_LINK) {
      const char* rel = attr(el, "rel");
      const char* href = attr(el, "href");
      if (rel && href && text::lower(rel) == "canonical" && h.canonical.empty()) h.canonical = href;
    }
    // The head's tags, and the ones that pages put in the body by mistake;
    // not the text of scripts and styles.
    return tag != GUMBO_TAG_SCRIPT && tag != GUMBO_TAG_STYLE && tag != GUMBO_TAG_SVG;
  });
  if (h.description.empty()) h.description = meta_description;
  return h;
}

// Names of job boards and applicant tracking systems: a title segment or
// site name that is one of them is not the employer.
bool is_board(std::string_view name) {
  static constexpr std::array<std::string_view, 24> boards = {"linkedin",
                                                              "indeed",
                                                              "stepstone",
                                                              "glassdoor",
                                                              "welcome to the jungle",
                                                              "greenhouse",
                                                              "lever",
                                                              "workday",
                                                              "smartrecruiters",
                                                              "personio",
                                                              "eures",
                                                              "monster",
                                                              "xing",
                                                              "otta",
                                                              "workable",
                                                              "jobs.ch",
                                                              "totaljobs",
                                                              "reed.co.uk",
                                                              "ziprecruiter",
                                                              "wellfound",
                                                              "recruitee",
                                                              "join.com",
                                                              "teamtailor",
                                                              "bamboohr"};
  const std::string n = text::lower(name);
  return std::any_of(boards.begin(), boards.end(),
                     [&](std::string_view b) { return n.find(b) != std::string::npos; });
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  for (std::size_t at = 0;;) {
    std::size_t next = s.find(sep, at);
    out.push_back(clean_field(s.substr(at, next == std::string_view::npos ? s.npos : next - at)));
    if (next == std::string_view::npos || out.size() >= 10) break;
    at = next + sep.size();
  }
  std::erase_if(out, [](const std::string& p) { return p.empty(); });
  return out;
}

// "Acme Careers" → "Acme".
std::string strip_careers(std::string name) {
  for (std::string_view tail : {" Careers", " Jobs", " Karriere", " Career", " Recrutement"})
    if (name.size() > tail.size() && name.ends_with(tail)) name.resize(name.size() - tail.size());
  return name;
}

bool same_name(std::string_view a, std::string_view b) {
  return !a.empty() && text::lower(a) == text::lower(b);
}

}  // namespace

std::string find_canonical(const Page& page, std::string_view page_url) {
  const Head h = read_head(page);
  std::string url = resolve_url(page_url, h.canonical);
  return url.empty() ? resolve_url(page_url, h.og_url) : url;
}

TitleParts split_title(std::string_view title, std::string_view site_name) {
  TitleParts out;
  // "Role | Company | Board": the first segment is the posting, the others
  // may name the company.
  std::vector<std::string> segments = split(clean_field(title), " | ");
  if (segments.empty()) return out;
  std::string main = segments.front();
  std::string extra;
  for (std::size_t i = 1; i < segments.size() && extra.empty(); ++i)
    if (!is_board(segments[i])) extra = strip_careers(segments[i]);

  for (std::string_view prefix : {"Job Application for ", "Job application for ", "Apply for "})
    if (main.starts_with(prefix)) main.erase(0, prefix.size()), out.says_job = true;

  // "Acme hiring Senior Engineer in Berlin, Germany" (LinkedIn).
  if (std::size_t hiring = main.find(" hiring "); hiring != std::string::npos) {
    out.company = main.substr(0, hiring);
    std::string rest = main.substr(hiring + 8);
    if (std::size_t in = rest.rfind(" in "); in != std::string::npos) {
      out.location = rest.substr(in + 4);
      rest.resize(in);
    }
    out.role = rest;
    out.says_job = true;
    return out;
  }
  // "Senior Engineer at Acme" (Greenhouse), "Ingénieur chez Acme".
  for (std::string_view at : {" at ", " chez ", " bei "}) {
    if (std::size_t pos = main.rfind(at); pos != std::string::npos && pos > 0) {
      out.role = main.substr(0, pos);
      out.company = main.substr(pos + at.size());
      out.says_job = true;
      return out;
    }
  }
  // "Role - Company - City", or "Company - Role" when the site says so (Lever).
  std::vector<std::string> parts = split(main, " - ");
  if (parts.size() == 1) parts = split(main, " \xE2\x80\x93 ");
  std::erase_if(parts, [](const std::string& p) { return is_board(p); });
  if (parts.empty()) return out;
  if (parts.size() >= 2 && same_name(parts.front(), site_name)) {
    out.company = parts[0];
    out.role = parts[1];
  } else {
    out.role = parts[0];
    if (parts.size() >= 2) out.company = parts[1];
    if (parts.size() >= 3) out.location = parts[2];
  }
  if (out.company.empty()) out.company = extra;
  if (out.company.empty() && !is_board(site_name))
    out.company = strip_careers(std::string(site_name));
  return out;
}

// Words in a title or description that say the page is about a job.
bool job_words(std::string_view text) {
  for (std::string_view word :
       {"job", "hiring", "career", "karriere", "position", "vacanc", "stelle", "(m/w/d)", "(m/f/d)",
        "(f/h)", "(h/f)", "emploi", "apply", "bewerb", "recrut", "recruit"})
    if (contains_nocase(text, word)) return true;
  return false;
}

std::optional<JobPosting> read_meta(const Page& page, std::string_view page_url) {
  const Head h = read_head(page);
  const std::string site = clean_field(h.site_name);
  const std::string& title = h.og_title.empty() ? h.title : h.og_title;
  TitleParts parts = split_title(title, site);
  if (parts.role.empty() && h.description.empty()) return std::nullopt;
  // A page's title and description alone say little: without a sign of a
  // job this is any page (a blog post, a product page).
  if (!parts.says_job && !is_board(site) && !job_words(title) && !job_words(h.description))
    return std::nullopt;
  JobPosting p;
  p.role = clean_field(parts.role);
  p.company = clean_field(parts.company);
  p.location = clean_field(parts.location);
  p.description = clean_description(h.description);
  p.url = resolve_url(page_url, h.canonical);
  if (p.url.empty()) p.url = resolve_url(page_url, h.og_url);
  return p;
}

}  // namespace peto::formats::detail
