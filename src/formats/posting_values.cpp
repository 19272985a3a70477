// Values read out of posting text: dates, salaries, employment types, URLs.
#include <algorithm>
#include <array>
#include <boost/url.hpp>
#include <cctype>
#include <cstdio>
#include <limits>

#include "core/text.h"
#include "formats/posting_internal.h"

namespace peto::formats::detail {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

using text::trimmed;

bool valid_date(int y, int m, int d) {
  if (y < 1970 || y > 2200 || m < 1 || m > 12 || d < 1) return false;
  static constexpr std::array<int, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= days[m - 1] + (m == 2 && leap ? 1 : 0);
}

std::string format_date(int y, int m, int d) {
  if (!valid_date(y, m, d)) return "";
  char buf[40];  // room for any int, so -O2 sees no truncation
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
  return buf;
}

// Reads up to `max` digits at s[i]; -1 when there are fewer than `min`.
int read_number(std::string_view s, std::size_t& i, int min, int max) {
  int value = 0, n = 0;
  while (i < s.size() && n < max && digit(s[i])) value = value * 10 + (s[i++] - '0'), ++n;
  if (n < min || (i < s.size() && digit(s[i]))) return -1;
  return value;
}

// 1..12 for an English, German or French month name (or its first three
// letters); 0 otherwise.
int month_number(std::string_view word) {
  static constexpr std::array<std::array<std::string_view, 3>, 12> names = {{
      {"january", "januar", "janvier"},
      {"february", "februar", "fevrier"},
      {"march", "marz", "mars"},
      {"april", "april", "avril"},
      {"may", "mai", "mai"},
      {"june", "juni", "juin"},
      {"july", "juli", "juillet"},
      {"august", "august", "aout"},
      {"september", "september", "septembre"},
      {"october", "oktober", "octobre"},
      {"november", "november", "novembre"},
      {"december", "dezember", "decembre"},
  }};
  const std::string w = text::lower(word);
  if (w.size() < 3) return 0;
  for (int m = 0; m < 12; ++m)
    for (std::string_view name : names[m])
      if (w == name || (w.size() == 3 && name.substr(0, 3) == w) ||
          (w.size() == 4 && w.back() == '.' && name.substr(0, 3) == w.substr(0, 3)))
        return m + 1;
  return 0;
}

}  // namespace

std::string parse_date(std::string_view input) {
  const std::string s(trimmed(input.substr(0, 64)));
  std::size_t i = 0;
  // ISO 8601: YYYY-MM-DD, then anything (time, zone).
  if (s.size() >= 10 && s[4] == '-' && s[7] == '-') {
    int y = read_number(s, i, 4, 4);
    i = 5;
    int m = read_number(s, i, 2, 2);
    i = 8;
    int d = read_number(s, i, 2, 2);
    if (y < 0 || m < 0 || d < 0) return "";
    return format_date(y, m, d);
  }
  // DD.MM.YYYY (also with / between, read day first as Europe does).
  i = 0;
  int a = read_number(s, i, 1, 2);
  if (a >= 0 && i < s.size() && (s[i] == '.' || s[i] == '/')) {
    const char sep = s[i++];
    int m = read_number(s, i, 1, 2);
    if (m < 0 || i >= s.size() || s[i] != sep) return "";
    ++i;
    int y = read_number(s, i, 4, 4);
    return y < 0 ? "" : format_date(y, m, a);
  }
  // "30 June 2024", "June 30, 2024", "30. Juni 2024".
  std::vector<std::string> words;
  std::string word;
  for (char c : s) {
    if (alpha(c) || digit(c)) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(word);
  if (words.size() < 3) return "";
  auto num = [](const std::string& w) {
    std::size_t k = 0;
    return w.size() <= 4 ? read_number(w, k, 1, 4) : -1;
  };
  int d = num(words[0]), m = month_number(words[1]), y = num(words[2]);
  if (d < 0 || m == 0) d = num(words[1]), m = month_number(words[0]);
  if (d < 0 || m == 0 || y < 1000) return "";
  return format_date(y, m, d);
}

// --- money ----------------------------------------------------------------

std::string currency_code(std::string_view s) {
  const std::string t(trimmed(s));
  if (t == "\xE2\x82\xAC") return "EUR";
  if (t == "\xC2\xA3") return "GBP";
  if (t == "$" || t == "US$") return "USD";
  if (t == "A$" || t == "AU$") return "AUD";
  if (t == "C$" || t == "CA$") return "CAD";
  if (t == "\xC2\xA5") return "JPY";
  if (t == "\xE2\x82\xB9") return "INR";
  if (t == "z\xC5\x82") return "PLN";
  if (t.size() != 3 || !std::all_of(t.begin(), t.end(), alpha)) return "";
  std::string code = t;
  for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return code;
}

std::string salary_period(std::string_view unit) {
  const std::string u = text::lower(unit);
  struct Word {
    std::string_view word, period;
  };
  // Longer words first: "month" before "mo", "annum" before "an".
  static constexpr std::array<Word, 22> words = {{
      {"year", "year"},   {"annum", "year"},  {"annual", "year"}, {"jahr", "year"},
      {"p.a.", "year"},   {"/yr", "year"},    {"par an", "year"}, {"month", "month"},
      {"monat", "month"}, {"mois", "month"},  {"/mo", "month"},   {"mensuel", "month"},
      {"hour", "hour"},   {"stunde", "hour"}, {"heure", "hour"},  {"/hr", "hour"},
      {"/h", "hour"},     {"day", "day"},     {"tag", "day"},     {"jour", "day"},
      {"daily", "day"},   {"hourly", "hour"},
  }};
  for (const Word& w : words)
    if (u.find(w.word) != std::string::npos) return std::string(w.period);
  return "";
}

std::optional<std::int64_t> parse_amount(std::string_view s) {
  std::string t(trimmed(s.substr(0, 64)));
  std::int64_t multiplier = 1;
  if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) {
    multiplier = 1000;
    t.pop_back();
  }
  // Groups of digits and the separators between them.
  std::vector<std::string> groups(1);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (digit(c)) {
      groups.back() += c;
    } else if ((c == ',' || c == '.' || c == '\'' || c == ' ') && !groups.back().empty()) {
      groups.emplace_back();
    } else if (static_cast<unsigned char>(c) == 0xE2 && t.compare(i, 3, "\xE2\x80\xAF") == 0 &&
               !groups.back().empty()) {
      groups.emplace_back();  // narrow no-break space, the French thousands separator
      i += 2;
    } else if (static_cast<unsigned char>(c) == 0xC2 && t.compare(i, 2, "\xC2\xA0") == 0 &&
               !groups.back().empty()) {
      groups.emplace_back();
      i += 1;
    } else {
      return std::nullopt;
    }
  }
  if (groups.back().empty()) groups.pop_back();
  if (groups.empty()) return std::nullopt;
  // A last group of one or two digits is a fraction: "50000.00", "4,5k".
  std::string fraction;
  if (groups.size() > 1 && groups.back().size() <= 2) {
    fraction = groups.back();
    groups.pop_back();
  }
  for (std::size_t g = 1; g < groups.size(); ++g)
    if (groups[g].size() != 3) return std::nullopt;
  std::string whole;
  for (const std::string& g : groups) whole += g;
  if (whole.size() > 12) return std::nullopt;
  std::int64_t value = std::stoll(whole) * multiplier;
  if (multiplier > 1 && !fraction.empty())
    value += std::stoll(fraction) * multiplier / (fraction.size() == 1 ? 10 : 100);
  return value;
}

namespace {

// Exactly three digits at s[at], then no digit.
bool thousands_after(std::string_view s, std::size_t at) {
  return at + 3 <= s.size() && digit(s[at]) && digit(s[at + 1]) && digit(s[at + 2]) &&
         (at + 3 == s.size() || !digit(s[at + 3]));
}

// No run of more than three digits ("2024 100" is two numbers).
bool short_groups(std::string_view number) {
  int run = 0;
  for (char c : number) {
    run = digit(c) ? run + 1 : 0;
    if (run > 3) return false;
  }
  return true;
}

struct Token {
  enum Kind { number, currency, dash, other } kind;
  std::string text;
  std::size_t at;
};

// Splits salary text into numbers ("50,000", "65k"), currencies, range
// dashes ("-", "–", "to", "bis") and other words.
std::vector<Token> tokens(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size() && out.size() < 2000) {
    const char c = s[i];
    const std::size_t at = i;
    if (digit(c)) {
      std::size_t j = i;
      while (j < s.size()) {
        // A digit, a separator before a digit ("50,000", "50.000", "50'000"), or a space as
        // thousands separator ("45 000", French, after cleaning).
        const bool one_byte =
            digit(s[j]) ||
            ((s[j] == ',' || s[j] == '.' || s[j] == '\'') && j + 1 < s.size() && digit(s[j + 1])) ||
            (s[j] == ' ' && thousands_after(s, j + 1) && short_groups(s.substr(i, j - i)));
        if (one_byte) {
          ++j;
        } else if (s.compare(j, 3, "\xE2\x80\xAF") == 0 && j + 3 < s.size() && digit(s[j + 3])) {
          j += 3;
        } else if (s.compare(j, 2, "\xC2\xA0") == 0 && j + 2 < s.size() && digit(s[j + 2])) {
          j += 2;
        } else {
          break;
        }
      }
      if (j < s.size() && (s[j] == 'k' || s[j] == 'K') && (j + 1 == s.size() || !alpha(s[j + 1])))
        ++j;
      out.push_back({Token::number, std::string(s.substr(i, j - i)), at});
      i = j;
    } else if (s.compare(i, 3, "\xE2\x82\xAC") == 0 || s.compare(i, 3, "\xE2\x82\xB9") == 0) {
      out.push_back({Token::currency, std::string(s.substr(i, 3)), at});
      i += 3;
    } else if (s.compare(i, 2, "\xC2\xA3") == 0 || s.compare(i, 2, "\xC2\xA5") == 0) {
      out.push_back({Token::currency, std::string(s.substr(i, 2)), at});
      i += 2;
    } else if (c == '$') {
      out.push_back({Token::currency, "$", at});
      ++i;
    } else if (c == '-' || s.compare(i, 3, "\xE2\x80\x93") == 0 ||
               s.compare(i, 3, "\xE2\x80\x94") == 0) {
      out.push_back({Token::dash, "-", at});
      i += c == '-' ? 1 : 3;
    } else if (s.compare(i, 2, "\xC3\xA0") == 0) {  // French "à"
      out.push_back({Token::dash, "-", at});
      i += 2;
    } else if (alpha(c)) {
      std::size_t j = i;
      while (j < s.size() && alpha(s[j])) ++j;
      std::string word(s.substr(i, j - i));
      static constexpr std::array<std::string_view, 18> codes = {
          "EUR", "GBP", "USD", "CHF", "CAD", "AUD", "SEK", "NOK", "DKK",
          "PLN", "CZK", "JPY", "INR", "NZD", "SGD", "HUF", "RON", "BGN"};
      const std::string lower = text::lower(word);
      if (std::find(codes.begin(), codes.end(), word) != codes.end()) {
        out.push_back({Token::currency, word, at});
      } else if (lower == "to" || lower == "bis" || lower == "and") {
        out.push_back({Token::dash, "-", at});
      } else if (word.size() <= 2 && j < s.size() && s[j] == '$') {
        out.push_back({Token::currency, word + "$", at});  // "A$", "US$"
        ++j;
      } else {
        out.push_back({Token::other, word, at});
      }
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

bool plausible(std::int64_t v) { return v > 0 && v < 100'000'000; }

}  // namespace

std::optional<Salary> parse_salary(std::string_view input, bool need_currency) {
  const std::string_view s = input.substr(0, 4000);
  const std::vector<Token> toks = tokens(s);
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (toks[i].kind != Token::number) continue;
    std::optional<std::int64_t> low = parse_amount(toks[i].text);
    if (!low || !plausible(*low)) continue;
    Salary out;
    // A currency just before ("€50,000", "EUR 50,000") or after ("50k EUR").
    std::size_t last = i;
    if (i > 0 && toks[i - 1].kind == Token::currency)
      out.currency = currency_code(toks[i - 1].text);
    if (i + 1 < toks.size() && toks[i + 1].kind == Token::currency) {
      if (out.currency.empty()) out.currency = currency_code(toks[i + 1].text);
      last = i + 1;
    }
    // "- €60,000", "to 60k", "– 60.000 €".
    std::size_t j = last + 1;
    std::optional<std::int64_t> high;
    if (j < toks.size() && toks[j].kind == Token::dash) {
      std::size_t k = j + 1;
      if (k < toks.size() && toks[k].kind == Token::currency) {
        if (out.currency.empty()) out.currency = currency_code(toks[k].text);
        ++k;
      }
      if (k < toks.size() && toks[k].kind == Token::number) {
        high = parse_amount(toks[k].text);
        const bool high_k = toks[k].text.back() == 'k' || toks[k].text.back() == 'K';
        const bool low_k = toks[i].text.back() == 'k' || toks[i].text.back() == 'K';
        if (high && high_k && !low_k && *low < 1000) *low *= 1000;  // "60–70k"
        last = k;
        if (k + 1 < toks.size() && toks[k + 1].kind == Token::currency) {
          if (out.currency.empty()) out.currency = currency_code(toks[k + 1].text);
          last = k + 1;
        }
      }
    }
    if (out.currency.empty() && need_currency) continue;
    if (high && (!plausible(*high) || *high < *low)) high.reset();
    out.min = low;
    out.max = high ? high : low;
    // The period in the next few words: "per year", "/Monat", "p.a.".
    const std::size_t from = toks[last].at;
    out.period = salary_period(s.substr(from, 40));
    return out;
  }
  return std::nullopt;
}

std::string employment_type(std::string_view s) {
  // Padded with spaces and punctuation made spaces, so that " intern " does
  // not match "international".
  std::string t = " " + text::lower(s.substr(0, 200)) + " ";
  for (char& c : t)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = ' ';
  struct Kind {
    std::string_view word, type;
  };
  static constexpr std::array<Kind, 22> kinds = {{
      {" full time ", "full_time"},   {" fulltime ", "full_time"},
      {" vollzeit ", "full_time"},    {" temps plein ", "full_time"},
      {" part time ", "part_time"},   {" parttime ", "part_time"},
      {" teilzeit ", "part_time"},    {" temps partiel ", "part_time"},
      {" contractor ", "contract"},   {" contract ", "contract"},
      {" freelance ", "contract"},    {" temporary ", "temporary"},
      {" befristet ", "temporary"},   {" cdd ", "temporary"},
      {" intern ", "internship"},     {" internship ", "internship"},
      {" praktikum ", "internship"},  {" stage ", "internship"},
      {" permanent ", "full_time"},   {" cdi ", "full_time"},
      {" unbefristet ", "full_time"}, {" festanstellung ", "full_time"},
  }};
  for (const Kind& k : kinds)
    if (t.find(k.word) != std::string::npos) return std::string(k.type);
  return "";
}

std::string resolve_url(std::string_view base, std::string_view ref) {
  const std::string r = clean_field(ref, 2000);
  if (r.empty() || r.size() >= 2000) return "";
  auto is_http = [](const boost::urls::url_view& u) {
    const std::string scheme = text::lower(u.scheme());
    return (scheme == "http" || scheme == "https") && u.has_authority() && !u.host().empty();
  };
  auto absolute = boost::urls::parse_uri(r);
  if (absolute) return is_http(*absolute) ? std::string(absolute->buffer()) : "";
  auto relative = boost::urls::parse_uri_reference(r);
  auto b = boost::urls::parse_uri(base);
  if (!relative || !b || !is_http(*b)) return "";
  boost::urls::url out;
  if (!boost::urls::resolve(*b, *relative, out)) return "";
  if (!is_http(out)) return "";
  return std::string(out.buffer());
}

}  // namespace peto::formats::detail
