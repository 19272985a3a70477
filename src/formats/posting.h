// Reading a job posting out of a web page: the parsers of a capture.
//
//   auto best = formats::parse_posting(html, "https://jobs.example/123");
//   if (best) use(best->posting);   // best->parser says which parser read it
//
// Every parser sees the same page (parsed once with gumbo, a real HTML5
// parser; never regular expressions over HTML) and fills a JobPosting; the
// result that read the most (score) wins. In order of trust:
//   json-ld    schema.org JobPosting in <script type="application/ld+json">
//              (@graph, arrays, nested hiringOrganization, baseSalary ranges,
//              validThrough → closes_on, jobLocation / applicantLocation-
//              Requirements, employmentType; HTML in description → text)
//   microdata  itemtype=".../JobPosting" with itemprop values
//   meta       OpenGraph / <title> / meta description
//   text       a plain-text heuristic over the visible text
// Text pasted without any markup (copied from a page in the browser) is read
// as that page: its first line the heading, each other line a paragraph.
// Each parser has a version; a capture records the name and version that read
// it. Malformed input never throws and never reads past its buffer: a page is
// untrusted bytes (there is a fuzz target).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peto::formats {

struct JobPosting {
  std::string role;             // title
  std::string company;          // hiringOrganization.name
  std::string company_website;  // hiringOrganization.sameAs / url
  std::string location;         // "Lisbon, PT"
  std::string remote;           // "", "onsite", "hybrid", "remote"
  std::optional<std::int64_t> salary_min;
  std::optional<std::int64_t> salary_max;
  std::string currency;       // ISO 4217, upper case
  std::string salary_period;  // "", "year", "month", "day", "hour"
  std::string closes_on;      // YYYY-MM-DD or ""
  std::string
      employment_type;      // "full_time", "part_time", "contract", "temporary", "internship", ""
  std::string description;  // plain text, paragraphs separated by "\n\n", ≤ 40000 chars
  std::string url;          // the posting's own URL (canonical / og:url), else the page's
};

struct ParseResult {
  JobPosting posting;
  std::string parser;  // "json-ld", "microdata", "meta", "text"
  int version = 1;
  int score = 0;  // how many fields it filled, weighted (role and company count most)
};

// The best reading of `html`, or nullopt when nothing looks like a posting
// (no role found by any parser). `page_url` resolves relative URLs.
std::optional<ParseResult> parse_posting(std::string_view html, std::string_view page_url);

// Every parser's reading, best first (for tests and the review screen's
// "read by" line).
std::vector<ParseResult> parse_all(std::string_view html, std::string_view page_url);

}  // namespace peto::formats
