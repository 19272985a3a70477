// robots.txt (RFC 9309) for captures: where a site's robots.txt is, and
// whether it lets an agent fetch a path.
#include <algorithm>
#include <boost/url.hpp>
#include <cctype>

#include "core/text.h"
#include "net/http.h"
#include "net/http_internal.h"

namespace peto::net {
namespace {

using detail::str;
using text::lower;
using text::trim;

// Lower-case product token: "peto" of "Peto/0.1 (+https://…)".
std::string product_token(std::string_view agent) {
  agent = trim(agent);
  auto end = agent.find_first_of("/ \t");
  return lower(agent.substr(0, end));
}

bool unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One spelling per path: %xx of an unreserved character decoded, other
// escapes in upper case, raw non-ASCII bytes escaped.
std::string normalise_path(std::string_view s) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  auto escape = [&](unsigned char byte) {
    out += '%';
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      auto v = static_cast<unsigned char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      if (unreserved(v)) {
        out += static_cast<char>(v);
      } else {
        escape(v);
      }
      i += 2;
    } else if (c >= 0x80) {
      escape(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Glob match of `pattern` ('*' = any run) against the start of `path`; a
// final '$' makes it match the whole path.
bool pattern_matches(std::string_view pattern, std::string_view path) {
  bool anchored = pattern.ends_with('$');
  if (anchored) pattern.remove_suffix(1);
  std::size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  while (s < path.size()) {
    if (p == pattern.size() && !anchored) return true;
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

struct RobotsRule {
  bool allow = false;
  std::string pattern;
};

struct RobotsGroup {
  std::vector<std::string> agents;  // lower-case product tokens, or "*"
  std::vector<RobotsRule> rules;
};

std::vector<RobotsGroup> parse_robots(std::string_view text) {
  constexpr std::size_t kMaxRobotsBytes = 500 << 10;
  if (text.size() > kMaxRobotsBytes) text = text.substr(0, kMaxRobotsBytes);
  std::vector<RobotsGroup> groups;
  bool reading_agents = false;  // the previous record was a user-agent line
  while (!text.empty()) {
    auto eol = text.find_first_of("\r\n");
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    line = line.substr(0, line.find('#'));
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = lower(trim(line.substr(0, colon)));
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "user-agent") {
      if (!reading_agents) groups.emplace_back();
      groups.back().agents.push_back(value == "*" ? "*" : product_token(value));
      reading_agents = true;
    } else if (key == "allow" || key == "disallow") {
      reading_agents = false;
      if (groups.empty() || value.empty()) continue;  // an empty rule allows everything
      groups.back().rules.push_back({key == "allow", normalise_path(value)});
    }
  }
  return groups;
}

}  // namespace

bool robots_allows(std::string_view robots_txt, std::string_view user_agent,
                   std::string_view path) {
  std::string target = normalise_path(path.empty() ? "/" : path);
  if (target == "/robots.txt") return true;
  auto groups = parse_robots(robots_txt);
  std::string token = product_token(user_agent);
  auto rules_for = [&](const std::string& agent) {
    std::vector<const RobotsRule*> rules;
    for (const auto& g : groups)
      if (std::find(g.agents.begin(), g.agents.end(), agent) != g.agents.end())
        for (const auto& r : g.rules) rules.push_back(&r);
    return rules;
  };
  bool named = std::any_of(groups.begin(), groups.end(), [&](const RobotsGroup& g) {
    return std::find(g.agents.begin(), g.agents.end(), token) != g.agents.end();
  });
  auto rules = rules_for(named && !token.empty() ? token : "*");
  std::size_t best = 0;
  bool allowed = true;
  bool matched = false;
  for (const RobotsRule* r : rules) {
    if (!pattern_matches(r->pattern, target)) continue;
    std::size_t len = r->pattern.size();
    if (!matched || len > best || (len == best && r->allow)) {
      best = len;
      allowed = r->allow;
      matched = true;
    }
  }
  return allowed;
}

std::string robots_url(std::string_view page_url) {
  auto u = boost::urls::parse_uri(boost::urls::string_view(page_url.data(), page_url.size()));
  if (!u || !u->has_authority() || u->encoded_host().empty()) return "";
  std::string scheme = lower(str(u->scheme()));
  if (scheme != "http" && scheme != "https") return "";
  std::string out = scheme + "://" + lower(str(u->encoded_host()));
  if (u->has_port() && !u->port().empty()) out += ":" + str(u->port());
  return out + "/robots.txt";
}

std::string robots_target(std::string_view page_url) {
  auto u = boost::urls::parse_uri(boost::urls::string_view(page_url.data(), page_url.size()));
  if (!u || !u->has_authority()) return "";
  std::string scheme = lower(str(u->scheme()));
  if (scheme != "http" && scheme != "https") return "";
  std::string out = u->encoded_path().empty() ? "/" : str(u->encoded_path());
  if (u->has_query()) out += "?" + str(u->encoded_query());
  return out;
}

}  // namespace peto::net
