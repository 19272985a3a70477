// The microdata parser: the first itemscope whose itemtype is a JobPosting,
// turned into the same JSON shape as JSON-LD and mapped by from_schema.
#include <sstream>

#include "formats/posting_internal.h"

namespace peto::formats::detail {
namespace {

using nlohmann::json;

constexpr int kMaxItemDepth = 8;
constexpr std::size_t kMaxValues = 500;

std::vector<std::string> words(const char* s) {
  std::vector<std::string> out;
  if (!s) return out;
  std::istringstream in{std::string(std::string_view(s).substr(0, 1000))};
  for (std::string w; in >> w && out.size() < 10;) out.push_back(w);
  return out;
}

// An itemprop's value (HTML's microdata rules, plus the `content` attribute
// many sites put on any element).
std::string prop_value(const GumboNode* el, std::string_view page_url, bool as_description) {
  if (const char* content = attr(el, "content")) return content;
  switch (el->v.element.tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_AREA:
    case GUMBO_TAG_LINK:
      return resolve_url(page_url, attr(el, "href") ? attr(el, "href") : "");
    case GUMBO_TAG_IMG:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_SOURCE:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_EMBED:
      return resolve_url(page_url, attr(el, "src") ? attr(el, "src") : "");
    case GUMBO_TAG_TIME:
      if (const char* dt = attr(el, "datetime")) return dt;
      break;
    case GUMBO_TAG_DATA:
    case GUMBO_TAG_METER:
      if (const char* v = attr(el, "value")) return v;
      break;
    default:
      break;
  }
  const std::string text = node_text(el);
  return as_description ? clean_description(text) : clean_field(text);
}

void add(json& obj, const std::string& key, json value) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    obj[key] = std::move(value);
  } else {
    if (!it->is_array()) *it = json::array({std::move(*it)});
    it->push_back(std::move(value));
  }
}

// The properties of the item at `scope`. Nested items are read recursively,
// to kMaxItemDepth items deep.
json item(const GumboNode* scope, std::string_view page_url, int item_depth, std::size_t& budget) {
  json obj = json::object();
  std::vector<std::string> types = words(attr(scope, "itemtype"));
  if (!types.empty()) {
    const std::string& t = types.front();
    obj["@type"] =
        t.substr(t.find_last_of("/#") == std::string::npos ? 0 : t.find_last_of("/#") + 1);
  }
  const GumboVector& kids = scope->v.element.children;
  for (unsigned i = 0; i < kids.length; ++i) {
    walk_elements(static_cast<const GumboNode*>(kids.data[i]), [&](const GumboNode* el, int) {
      if (budget == 0) return false;
      const std::vector<std::string> props = words(attr(el, "itemprop"));
      const bool nested = attr(el, "itemscope") != nullptr;
      if (props.empty()) return !nested;  // a nested item's properties are its own
      --budget;
      json value;
      if (nested) {
        value = item_depth < kMaxItemDepth ? item(el, page_url, item_depth + 1, budget) : json();
      } else {
        const bool description =
            std::find(props.begin(), props.end(), "description") != props.end();
        value = prop_value(el, page_url, description);
      }
      for (const std::string& p : props) add(obj, p, value);
      return !nested;
    });
  }
  return obj;
}

}  // namespace

std::optional<JobPosting> read_microdata(const Page& page, std::string_view page_url) {
  const GumboNode* root = nullptr;
  walk_elements(page.root(), [&](const GumboNode* el, int) {
    if (root) return false;
    const char* type = attr(el, "itemtype");
    if (attr(el, "itemscope") && type &&
        std::string_view(type).find("JobPosting") != std::string_view::npos)
      root = el;
    return root == nullptr;
  });
  if (!root) return std::nullopt;
  std::size_t budget = kMaxValues;
  return from_schema(item(root, page_url, 0, budget), page_url, false);
}

}  // namespace peto::formats::detail
