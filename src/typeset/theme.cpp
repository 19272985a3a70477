// Themes as data: themes/<name>.json, read and checked field by field.
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "typeset/document.h"

namespace peto::typeset {
namespace {

using Json = nlohmann::json;

struct Reader {
  std::string problem;

  double number(const Json& in, const char* key, const std::string& where, double low, double high,
                double fallback) {
    if (!in.contains(key)) return fallback;
    const Json& v = in[key];
    if (!v.is_number() || v.get<double>() < low || v.get<double>() > high) {
      fail(where + key + " must be a number from " + trim(low) + " to " + trim(high));
      return fallback;
    }
    return v.get<double>();
  }
  bool flag(const Json& in, const char* key, const std::string& where) {
    if (!in.contains(key)) return false;
    if (!in[key].is_boolean()) {
      fail(where + key + " must be true or false");
      return false;
    }
    return in[key].get<bool>();
  }
  std::string text(const Json& in, const char* key, const std::string& where,
                   std::string fallback) {
    if (!in.contains(key)) return fallback;
    if (!in[key].is_string() || in[key].get<std::string>().empty()) {
      fail(where + key + " must be a non-empty string");
      return fallback;
    }
    return in[key].get<std::string>();
  }
  std::string colour(const Json& in, const char* key, const std::string& where,
                     std::string fallback) {
    std::string c = text(in, key, where, std::move(fallback));
    bool ok = c.empty() || (c.size() == 7 && c[0] == '#');
    for (std::size_t i = 1; ok && i < c.size(); ++i)
      ok = std::isxdigit(static_cast<unsigned char>(c[i]));
    if (!ok) fail(where + key + " must be a colour written #rrggbb");
    return c;
  }
  void fail(std::string m) {
    if (problem.empty()) problem = std::move(m);
  }
  static std::string trim(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  }
};

Style read_style(Reader& r, const Json& styles, const char* name) {
  Style s;
  std::string where = std::string("styles.") + name + ".";
  if (!styles.contains(name) || !styles[name].is_object()) {
    r.fail(std::string("styles.") + name + " is missing");
    return s;
  }
  const Json& in = styles[name];
  s.family = r.text(in, "family", where, "");
  if (s.family.empty()) r.fail(where + "family is missing");
  s.size_pt = r.number(in, "size_pt", where, 4, 72, 10);
  s.bold = r.flag(in, "bold", where);
  s.italic = r.flag(in, "italic", where);
  s.upper = r.flag(in, "upper", where);
  s.colour = r.colour(in, "colour", where, "#000000");
  s.space_before_pt = r.number(in, "space_before_pt", where, 0, 72, 0);
  s.space_after_pt = r.number(in, "space_after_pt", where, 0, 72, 0);
  return s;
}

}  // namespace

const Style& Theme::style(BlockKind kind) const {
  switch (kind) {
    case BlockKind::title:
      return title;
    case BlockKind::subtitle:
      return subtitle;
    case BlockKind::heading:
      return heading;
    case BlockKind::entry:
      return entry;
    case BlockKind::bullet:
      return bullet;
    case BlockKind::small:
      return small;
    case BlockKind::paragraph:
      break;
  }
  return paragraph;
}

std::variant<Theme, std::string> Theme::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "the theme " + path.string() + " cannot be read";
  Json j = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "the theme " + path.string() + " is not a JSON object";
  Reader r;
  Theme t;
  t.name = r.text(j, "name", "", path.stem().string());
  t.margin_mm = r.number(j, "margin_mm", "", 5, 40, 18);
  t.line_spacing = r.number(j, "line_spacing", "", 0.8, 2.5, 1.0);
  t.bullet_indent_pt = r.number(j, "bullet_indent_pt", "", 0, 72, 12);
  t.bullet_mark = r.text(j, "bullet_mark", "", "•");
  t.rule_colour = j.contains("rule_colour") ? r.colour(j, "rule_colour", "", "") : "";
  const Json& styles = j.contains("styles") ? j["styles"] : Json::object();
  t.title = read_style(r, styles, "title");
  t.subtitle = read_style(r, styles, "subtitle");
  t.heading = read_style(r, styles, "heading");
  t.entry = read_style(r, styles, "entry");
  t.aside = read_style(r, styles, "aside");
  t.paragraph = read_style(r, styles, "paragraph");
  t.bullet = read_style(r, styles, "bullet");
  t.small = read_style(r, styles, "small");
  t.letter = read_style(r, styles, "letter");
  if (!r.problem.empty()) return "the theme " + path.filename().string() + ": " + r.problem;
  return t;
}

std::filesystem::path themes_dir() {
  if (const char* dir = std::getenv("PETO_ASSETS_DIR"))
    return std::filesystem::path(dir) / "themes";
  return std::filesystem::path(PETO_SOURCE_DIR) / "themes";
}

const Theme& shipped_theme(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Theme, std::less<>> loaded;
  std::lock_guard lock(mutex);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  auto theme = Theme::load(themes_dir() / (name + ".json"));
  if (const auto* problem = std::get_if<std::string>(&theme)) throw std::runtime_error(*problem);
  return loaded.emplace(name, std::move(std::get<Theme>(theme))).first->second;
}

}  // namespace peto::typeset
