// parse_all / parse_posting: every parser reads the page once parsed, the
// readings are scored and ranked.
#include "formats/posting.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <new>

#include "core/text.h"
#include "formats/posting_internal.h"

namespace peto::formats {
namespace detail {

void infer_remote(JobPosting& p) {
  if (!p.remote.empty()) return;
  if (contains_nocase(p.location, "hybrid"))
    p.remote = "hybrid";
  else if (contains_nocase(p.location, "remote"))
    p.remote = "remote";
}

int score(const JobPosting& p) {
  int s = 0;
  if (!p.role.empty()) s += 5;
  if (!p.company.empty()) s += 4;
  if (!p.location.empty()) s += 2;
  if (p.salary_min || p.salary_max) s += 2;
  if (!p.closes_on.empty()) s += 1;
  if (!p.description.empty()) s += 2;
  if (!p.employment_type.empty()) s += 1;
  return s;
}

}  // namespace detail

namespace {

struct Parser {
  const char* name;
  int version;
  std::optional<JobPosting> (*read)(const detail::Page&, std::string_view);
};

// In order of trust: a tie goes to the earlier one.
constexpr Parser kParsers[] = {
    {"json-ld", 1, detail::read_json_ld},
    {"microdata", 1, detail::read_microdata},
    {"meta", 1, detail::read_meta},
    {"text", 1, detail::read_text},
};

// Text copied from a page and pasted (no markup at all) as the page it came
// from would hold it: its first line the heading, each other line a
// paragraph. In HTML the line breaks of one text would run together, and the
// text reader finds its "Location: Berlin" lines by them.
std::string page_of_plain_text(std::string_view text) {
  std::string out = "<!doctype html><html><body>";
  bool first = true;
  for (std::string_view line : text::split(text, '\n')) {
    line = text::trim(line);
    if (line.empty()) continue;
    const std::string escaped = text::escape_markup(line);
    out += first ? "<h1>" + escaped + "</h1>" : "<p>" + escaped + "</p>";
    first = false;
  }
  return out + "</body></html>";
}

// Whether `text` has markup: an element HTML knows ("<div", "</p") or a
// doctype or comment. A "<" in a pasted text ("salary < 50k", "<the team>")
// is not markup.
bool has_markup(std::string_view text) {
  for (std::size_t at = text.find('<'); at != std::string_view::npos; at = text.find('<', at + 1)) {
    std::size_t from = at + 1;
    if (from < text.size() && (text[from] == '!' || text[from] == '?')) return true;
    if (from < text.size() && text[from] == '/') ++from;
    std::size_t end = from;
    while (end < text.size() && end - from < 16 &&
           std::isalnum(static_cast<unsigned char>(text[end])))
      ++end;
    if (end > from &&
        gumbo_tagn_enum(text.data() + from, static_cast<unsigned>(end - from)) != GUMBO_TAG_UNKNOWN)
      return true;
  }
  return false;
}

std::vector<ParseResult> read_all(std::string_view html, std::string_view page_url) {
  std::string plain_page;
  if (!has_markup(html)) {
    plain_page = page_of_plain_text(html);
    html = plain_page;
  }
  detail::Page page(html);
  if (!page.root()) return {};
  std::string own_url = detail::find_canonical(page, page_url);
  if (own_url.empty()) own_url = detail::resolve_url(page_url, page_url);

  std::vector<ParseResult> results;
  for (const Parser& parser : kParsers) {
    std::optional<JobPosting> posting = parser.read(page, page_url);
    if (!posting) continue;
    if (posting->url.empty()) posting->url = own_url;
    detail::infer_remote(*posting);
    ParseResult r;
    r.score = detail::score(*posting);
    if (r.score == 0) continue;
    r.posting = std::move(*posting);
    r.parser = parser.name;
    r.version = parser.version;
    results.push_back(std::move(r));
  }
  // A reading with a role first, then the higher score; stable keeps trust order.
  std::stable_sort(results.begin(), results.end(), [](const ParseResult& a, const ParseResult& b) {
    const bool ra = !a.posting.role.empty(), rb = !b.posting.role.empty();
    if (ra != rb) return ra;
    return a.score > b.score;
  });
  return results;
}

}  // namespace

std::vector<ParseResult> parse_all(std::string_view html, std::string_view page_url) {
  try {
    return read_all(html, page_url);
  } catch (const std::bad_alloc&) {
    return {};  // a page too big for memory reads as nothing
  } catch (const std::exception&) {
    return {};  // a parser's bug must not take the capture down with it
  }
}

std::optional<ParseResult> parse_posting(std::string_view html, std::string_view page_url) {
  std::vector<ParseResult> all = parse_all(html, page_url);
  if (all.empty() || all.front().posting.role.empty()) return std::nullopt;
  return std::move(all.front());
}

}  // namespace peto::formats
