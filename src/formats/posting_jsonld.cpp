// The json-ld parser: schema.org JobPosting objects in
// <script type="application/ld+json">, and the mapping of a JobPosting
// object (shared with microdata) onto peto's JobPosting.
#include <algorithm>
#include <cmath>

#include "core/json_depth.h"
#include "core/text.h"
#include "formats/posting_internal.h"

namespace peto::formats::detail {
namespace {

using nlohmann::json;

constexpr int kMaxScripts = 50;
constexpr std::size_t kMaxPostings = 20;
constexpr std::size_t kMaxLocations = 20;

const json* member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

// The first element of an array, or the value itself.
const json* first(const json* v) {
  if (v && v->is_array()) return v->empty() ? nullptr : &(*v)[0];
  return v;
}

// A value as text: a string, a number, the name of an object, the first
// element of an array.
std::string text_of(const json* v, int depth = 0) {
  if (!v || depth > 4) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return std::to_string(v->get<std::int64_t>());
  if (v->is_number_unsigned()) return std::to_string(v->get<std::uint64_t>());
  if (v->is_number_float()) return v->dump();
  if (v->is_array()) return text_of(first(v), depth + 1);
  if (v->is_object()) return text_of(member(*v, "name"), depth + 1);
  return "";
}

bool is_type(const json& obj, std::string_view type) {
  const json* t = member(obj, "@type");
  if (!t) return false;
  auto matches = [&](const json& v) {
    if (!v.is_string()) return false;
    const std::string& s = v.get_ref<const std::string&>();
    return s.size() >= type.size() && s.compare(s.size() - type.size(), type.size(), type) == 0;
  };
  if (t->is_array()) return std::any_of(t->begin(), t->end(), matches);
  return matches(*t);
}

std::optional<std::int64_t> amount(const json* v) {
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < 0 || d > 1e12) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(d));
  }
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (auto a = parse_amount(s)) return a;
    if (auto salary = parse_salary(s, false)) return salary->min;
  }
  return std::nullopt;
}

std::optional<std::int64_t> plausible(std::optional<std::int64_t> v) {
  if (v && (*v <= 0 || *v >= 100'000'000)) return std::nullopt;
  return v;
}

void read_salary(const json& obj, JobPosting& p) {
  const json* base = first(member(obj, "baseSalary"));
  if (!base) base = first(member(obj, "estimatedSalary"));
  if (!base) return;
  Salary s;
  if (base->is_string()) {
    if (auto parsed = parse_salary(base->get_ref<const std::string&>(), false)) s = *parsed;
  } else if (base->is_number()) {
    s.min = s.max = amount(base);
  } else if (base->is_object()) {
    s.currency = currency_code(text_of(member(*base, "currency")));
    std::string unit = text_of(member(*base, "unitText"));
    const json* value = first(member(*base, "value"));
    if (value && value->is_object()) {
      s.min = amount(member(*value, "minValue"));
      s.max = amount(member(*value, "maxValue"));
      if (!s.min && !s.max) s.min = s.max = amount(member(*value, "value"));
      if (s.currency.empty()) s.currency = currency_code(text_of(member(*value, "currency")));
      if (const json* u = member(*value, "unitText")) unit = text_of(u);
    } else if (value && value->is_string()) {
      if (auto parsed = parse_salary(value->get_ref<const std::string&>(), false)) {
        s.min = parsed->min, s.max = parsed->max;
        if (s.currency.empty()) s.currency = parsed->currency;
        if (unit.empty()) unit = parsed->period;
      }
    } else {
      s.min = s.max = amount(value);
    }
    s.period = salary_period(unit);
  }
  if (s.currency.empty()) s.currency = currency_code(text_of(member(obj, "salaryCurrency")));
  s.min = plausible(s.min);
  s.max = plausible(s.max);
  if (s.min && s.max && *s.max < *s.min) s.max.reset();
  if (!s.min && !s.max) return;
  p.salary_min = s.min;
  p.salary_max = s.max;
  p.currency = s.currency;
  p.salary_period = s.period;
}

// "Lisbon, Lisboa, PT" from a Place, a PostalAddress or a plain string.
std::string place_text(const json* place) {
  if (!place) return "";
  if (place->is_string()) return inline_text(place->get_ref<const std::string&>());
  if (!place->is_object()) return "";
  const json* address = first(member(*place, "address"));
  if (!address) address = place;  // a PostalAddress given directly
  if (address->is_string()) return inline_text(address->get_ref<const std::string&>());
  std::vector<std::string> parts;
  for (const char* key : {"addressLocality", "addressRegion", "addressCountry"}) {
    std::string part = inline_text(text_of(member(*address, key)));
    if (!part.empty() && std::find(parts.begin(), parts.end(), part) == parts.end())
      parts.push_back(std::move(part));
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  if (out.empty()) out = inline_text(text_of(member(*place, "name")));
  return out;
}

// Every place of `v` (one or an array), joined with "; ".
std::string places_text(const json* v) {
  std::vector<std::string> places;
  auto add = [&](const json* place) {
    std::string t = place_text(place);
    if (!t.empty() && std::find(places.begin(), places.end(), t) == places.end())
      places.push_back(std::move(t));
  };
  if (v && v->is_array()) {
    for (std::size_t i = 0; i < v->size() && i < kMaxLocations; ++i) add(&(*v)[i]);
  } else {
    add(v);
  }
  std::string out;
  for (const std::string& t : places) out += (out.empty() ? "" : "; ") + t;
  return clean_field(out);
}

bool says_telecommute(const json* v) {
  if (!v) return false;
  if (v->is_array())
    return std::any_of(v->begin(), v->end(), [](const json& e) { return says_telecommute(&e); });
  return v->is_string() && contains_nocase(v->get_ref<const std::string&>(), "telecommute");
}

std::string employment_of(const json* v) {
  if (v && v->is_array()) {
    for (std::size_t i = 0; i < v->size() && i < 20; ++i)
      if (std::string t = employment_of(&(*v)[i]); !t.empty()) return t;
    return "";
  }
  return v && v->is_string() ? employment_type(v->get_ref<const std::string&>()) : "";
}

// Walks the script's JSON for JobPosting objects: the top level, arrays,
// @graph, mainEntity and any other member, to a fixed depth.
void collect(const json& v, int depth, std::vector<const json*>& out) {
  if (depth > kMaxJsonDepth || out.size() >= kMaxPostings) return;
  if (v.is_object()) {
    if (is_type(v, "JobPosting")) {
      out.push_back(&v);
      return;
    }
    for (const auto& item : v.items()) collect(item.value(), depth + 1, out);
  } else if (v.is_array()) {
    for (const json& e : v) collect(e, depth + 1, out);
  }
}

// Real pages put raw line breaks and tabs inside JSON strings, which JSON
// forbids; this escapes them so that the script still parses.
std::string escape_raw_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string && c == '\\' && i + 1 < text.size()) {
      out += c;
      out += text[++i];
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (in_string && static_cast<unsigned char>(c) < 0x20) {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : " ";
      continue;
    }
    out += c;
  }
  return out;
}

// The script body without the comment or CDATA wrappers some sites add.
std::string_view unwrap(std::string_view s) {
  auto trim = [&] {
    while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) || s.front() == ';'))
      s.remove_prefix(1);
    while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';'))
      s.remove_suffix(1);
  };
  trim();
  for (std::string_view open : {"<!--", "//<![CDATA[", "/*<![CDATA[*/", "<![CDATA["})
    if (s.substr(0, open.size()) == open) s.remove_prefix(open.size());
  trim();
  for (std::string_view close : {"-->", "//]]>", "/*]]>*/", "]]>"})
    if (s.size() >= close.size() && s.substr(s.size() - close.size()) == close)
      s.remove_suffix(close.size());
  trim();
  return s;
}

json parse_script(std::string_view body) {
  body = unwrap(body);
  if (body.empty() || json_nesting_depth(body, kMaxJsonDepth) > kMaxJsonDepth) return json();
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded()) doc = json::parse(escape_raw_controls(body), nullptr, false);
  return doc.is_discarded() ? json() : doc;
}

std::string without_fragment(std::string url) {
  if (auto hash = url.find('#'); hash != std::string::npos) url.resize(hash);
  while (!url.empty() && url.back() == '/') url.pop_back();
  return text::lower(url);
}

// Does `s` hold a tag ("<p", "</div", "<br/>")?
bool has_tags(std::string_view s) {
  for (std::size_t i = s.find('<'); i != std::string_view::npos && i + 1 < s.size();
       i = s.find('<', i + 1))
    if (std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '/') return true;
  return false;
}

}  // namespace

JobPosting from_schema(const json& obj, std::string_view page_url, bool description_is_html) {
  JobPosting p;
  p.role = inline_text(text_of(member(obj, "title")));
  if (p.role.empty()) p.role = inline_text(text_of(member(obj, "name")));
  if (const json* org = first(member(obj, "hiringOrganization"))) {
    p.company = inline_text(text_of(org));
    if (org->is_object()) {
      p.company_website = resolve_url(page_url, text_of(member(*org, "sameAs")));
      if (p.company_website.empty())
        p.company_website = resolve_url(page_url, text_of(member(*org, "url")));
    }
  }
  p.location = places_text(member(obj, "jobLocation"));
  if (says_telecommute(member(obj, "jobLocationType"))) p.remote = "remote";
  if (p.location.empty()) p.location = places_text(member(obj, "applicantLocationRequirements"));
  read_salary(obj, p);
  p.closes_on = parse_date(text_of(member(obj, "validThrough")));
  p.employment_type = employment_of(member(obj, "employmentType"));
  std::string description = text_of(member(obj, "description"));
  if (description_is_html && !has_tags(description)) {
    // Plain text (or text with entities) keeps its line breaks.
    std::string with_breaks;
    for (char c : description) with_breaks += c == '\n' ? std::string("<br>") : std::string(1, c);
    description = std::move(with_breaks);
  }
  p.description = description_is_html ? html_to_text(description) : clean_description(description);
  p.url = resolve_url(page_url, text_of(member(obj, "url")));
  return p;
}

std::optional<JobPosting> read_json_ld(const Page& page, std::string_view page_url) {
  std::vector<json> scripts;
  walk_elements(page.root(), [&](const GumboNode* node, int) {
    if (!has_tag(node, GUMBO_TAG_SCRIPT)) return true;
    const char* type = attr(node, "type");
    if (!type || !contains_nocase(type, "ld+json") || scripts.size() >= kMaxScripts) return false;
    const GumboVector& kids = node->v.element.children;
    if (kids.length == 0) return false;
    const auto* text = static_cast<const GumboNode*>(kids.data[0]);
    if (text->type != GUMBO_NODE_TEXT && text->type != GUMBO_NODE_WHITESPACE) return false;
    json doc = parse_script(text->v.text.text);  // a broken script is skipped, not fatal
    if (!doc.is_null()) scripts.push_back(std::move(doc));
    return false;
  });
  std::vector<const json*> found;
  for (const json& doc : scripts) collect(doc, 0, found);
  if (found.empty()) return std::nullopt;

  std::vector<JobPosting> postings;
  postings.reserve(found.size());
  for (const json* obj : found) postings.push_back(from_schema(*obj, page_url, true));
  // The posting this page is about, when it names itself; else the first
  // complete one; else the first with a title.
  const std::string here = without_fragment(std::string(page_url));
  const std::string canonical = without_fragment(find_canonical(page, page_url));
  for (const JobPosting& p : postings)
    if (!p.url.empty() && !p.role.empty() &&
        (without_fragment(p.url) == here || without_fragment(p.url) == canonical))
      return p;
  for (const JobPosting& p : postings)
    if (!p.role.empty() && !p.company.empty()) return p;
  for (const JobPosting& p : postings)
    if (!p.role.empty()) return p;
  return postings.front();
}

}  // namespace peto::formats::detail
