// The pieces the parsers of a capture share (private to src/capture/; tests
// include it to check each piece alone).
//
// A Page is the HTML parsed once by gumbo. Every walk over its tree stops at
// kMaxWalkDepth, and the bytes handed to gumbo are first cut (bounded_html) so
// that the tree itself is never deeper than gumbo can free without running
// out of stack: gumbo 0.10 frees its tree recursively.
//
// Every string these functions return is valid UTF-8 without control
// characters (description keeps "\n"), cut to kMaxField / kMaxDescription
// code points.
#pragma once

#include <gumbo.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "formats/posting.h"

namespace peto::formats::detail {

inline constexpr std::size_t kMaxField = 500;           // code points
inline constexpr std::size_t kMaxDescription = 40000;   // code points
inline constexpr std::size_t kMaxHtmlBytes = 5u << 20;  // the rest of a page is not read
inline constexpr int kMaxTagDepth = 256;                // estimated, see bounded_html
inline constexpr int kMaxWalkDepth = 200;               // element depth any walk goes to
inline constexpr int kMaxJsonDepth = 64;                // nesting of one JSON-LD script

// The prefix of `html` that is parsed: at most kMaxHtmlBytes, and cut before
// the start tag that would open element kMaxTagDepth (estimated without a
// tokenizer: void elements, self-closed tags, elements that close themselves
// like <p> and <li>, comments and script/style bodies do not count).
std::string_view bounded_html(std::string_view html);

// The document, parsed once. Not copyable.
class Page {
 public:
  explicit Page(std::string_view html);
  ~Page();
  Page(const Page&) = delete;
  Page& operator=(const Page&) = delete;

  const GumboNode* root() const { return output_ ? output_->root : nullptr; }

 private:
  GumboOutput* output_ = nullptr;
};

// --- text ---------------------------------------------------------------

// One line: valid UTF-8, control characters dropped, whitespace collapsed,
// trimmed, cut to `max` code points.
std::string clean_field(std::string_view s, std::size_t max = kMaxField);
// Several paragraphs: as clean_field per line, blank lines collapsed to one
// ("\n\n" between paragraphs), cut to kMaxDescription code points.
std::string clean_description(std::string_view s);
// Text of a fragment of HTML: block elements, <br> and <li> become line
// breaks, entities decoded. Text that is escaped HTML ("&lt;p&gt;…") is
// decoded a second time.
std::string html_to_text(std::string_view html);
// The text under `node` rendered the same way (not cleaned); `skip_chrome`
// leaves out <nav>, <footer>, dialogs, buttons and cookie banners.
std::string node_text(const GumboNode* node, bool skip_chrome = false);
// Text of a short value that may hold entities or tags (titles in JSON-LD).
std::string inline_text(std::string_view s);

// Calls `visit(element, depth)` on every element under `node`, in document
// order, down to kMaxWalkDepth; `visit` returns false to skip the element's
// children. <template> contents are not visited.
template <class Visit>
void walk_elements(const GumboNode* node, Visit&& visit, int depth = 0) {
  if (!node || depth > kMaxWalkDepth) return;
  const GumboVector* kids = nullptr;
  if (node->type == GUMBO_NODE_DOCUMENT) {
    kids = &node->v.document.children;
  } else if (node->type == GUMBO_NODE_ELEMENT) {
    if (!visit(node, depth)) return;
    kids = &node->v.element.children;
  } else {
    return;
  }
  for (unsigned i = 0; i < kids->length; ++i)
    walk_elements(static_cast<const GumboNode*>(kids->data[i]), visit, depth + 1);
}

const char* attr(const GumboNode* node, const char* name);  // nullptr when absent
bool has_tag(const GumboNode* node, GumboTag tag);
bool contains_nocase(std::string_view hay, std::string_view needle);

// --- values -------------------------------------------------------------

// "2024-06-30", "2024-06-30T23:59:00+02:00", "30.06.2024", "30 June 2024",
// "June 30, 2024" → "2024-06-30"; "" when not a valid date.
std::string parse_date(std::string_view input);

struct Salary {
  std::optional<std::int64_t> min;
  std::optional<std::int64_t> max;
  std::string currency;  // ISO 4217 or ""
  std::string period;    // "year", "month", "day", "hour" or ""
};
// A salary in free text: "€50,000 – €60,000", "50k-60k EUR", "£45,000 per
// annum", "EUR 4.000/Monat". Without `need_currency` a bare number range
// counts (the value of a "Salary:" label). nullopt when none.
std::optional<Salary> parse_salary(std::string_view input, bool need_currency);
// One amount: "50,000", "50.000", "50000.00", "65k" → 50000, 50000, 50000, 65000.
std::optional<std::int64_t> parse_amount(std::string_view s);
std::string currency_code(std::string_view s);     // "€" or "eur" → "EUR"; "" unknown
std::string salary_period(std::string_view unit);  // "YEAR", "per annum" → "year"
std::string employment_type(std::string_view s);   // "FULL_TIME" → "full_time"

// `ref` resolved against `base`; only http(s) results, else "".
std::string resolve_url(std::string_view base, std::string_view ref);

// The page's own URL: <link rel=canonical>, else og:url, resolved; "" if none.
std::string find_canonical(const Page& page, std::string_view page_url);

// --- parsers ------------------------------------------------------------

// The schema.org JobPosting `obj` (JSON-LD, or microdata turned into the same
// shape) as a JobPosting. `description_is_html` is false for microdata, whose
// description is already text.
JobPosting from_schema(const nlohmann::json& obj, std::string_view page_url,
                       bool description_is_html);

std::optional<JobPosting> read_json_ld(const Page& page, std::string_view page_url);
std::optional<JobPosting> read_microdata(const Page& page, std::string_view page_url);
std::optional<JobPosting> read_meta(const Page& page, std::string_view page_url);
std::optional<JobPosting> read_text(const Page& page, std::string_view page_url);

// "Role at Company", "Role - Company | Board", "Company hiring Role in Place".
struct TitleParts {
  std::string role;
  std::string company;
  std::string location;
  bool says_job = false;  // the title's shape names a job ("… at …", "… hiring …")
};
TitleParts split_title(std::string_view title, std::string_view site_name);

// Fills `remote` from the location's words when nothing said it.
void infer_remote(JobPosting& p);
int score(const JobPosting& p);

}  // namespace peto::formats::detail
