#include "pages/templates.h"

#include <fstream>
#include <kainjow/mustache.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace peto::web {

namespace {

namespace fs = std::filesystem;
using Data = kainjow::mustache::data;

// kainjow's set() and push_back() copy their argument, which made a nested
// conversion copy every leaf once per level. Children are moved into place
// instead: the containers are reached through kainjow's const accessors,
// which is safe here because `d` is ours and not yet shared.
Data to_data(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      Data d(Data::type::object);
      for (const auto& [k, v] : j.items()) {
        d.set(k, Data(false));
        *const_cast<Data*>(d.get(k)) = to_data(v);
      }
      return d;
    }
    case nlohmann::json::value_t::array: {
      Data list(Data::type::list);
      auto& items = const_cast<kainjow::mustache::list&>(list.list_value());
      items.reserve(j.size());
      for (const auto& v : j) items.push_back(to_data(v));
      return list;
    }
    case nlohmann::json::value_t::string:
      // "" hides a section, as in mustache.js, and renders as nothing.
      if (j.get_ref<const std::string&>().empty()) return Data(false);
      return Data(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean:
      return Data(j.get<bool>());
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return Data(false);
    default:
      return Data(j.dump());  // numbers
  }
}

// Template names come from code and from `{{> name}}`: keep them to plain
// file names so a partial can never reach outside the folder.
bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// A context that finds `{{> name}}` partials in the template folder instead
// of in the data. Templates reach kainjow with their partials already written
// in (Templates::expanded), so this is only the fallback for one that is not.
class FolderContext : public kainjow::mustache::context<std::string> {
 public:
  FolderContext(const Data* data, const Templates& templates)
      : context(data), templates_(templates) {}

  const Data* get_partial(const std::string& name) const override {
    auto it = partials_.find(name);
    if (it == partials_.end()) it = partials_.emplace(name, Data(templates_.source(name))).first;
    return &it->second;
  }

 private:
  const Templates& templates_;
  mutable std::map<std::string, Data> partials_;  // std::map: addresses stay put
};

}  // namespace

class Templates::Shared {
 public:
  explicit Shared(Data d) : data(std::move(d)) {}
  Data data;
};

struct Templates::Pool {
  using Parsed = kainjow::mustache::mustache;
  std::mutex mu;
  std::map<std::string, std::vector<std::unique_ptr<Parsed>>> idle;
};

Templates::Templates(fs::path folder, nlohmann::json globals)
    : folder_(std::move(folder)), globals_(std::move(globals)), pool_(std::make_unique<Pool>()) {
  globals_shared_ = share(nlohmann::json::object());
}

Templates::~Templates() = default;

std::shared_ptr<const Templates::Shared> Templates::share(const nlohmann::json& data) const {
  nlohmann::json merged = globals_;
  if (data.is_object()) merged.update(data);
  return std::make_shared<const Shared>(to_data(merged));
}

Status Templates::load() {
  std::error_code ec;
  if (!fs::is_directory(folder_, ec)) {
    return Status::unavailable("templates folder " + folder_.string() + " does not exist");
  }
  for (const auto& entry : fs::directory_iterator(folder_, ec)) {
    if (entry.path().extension() != ".mustache") continue;
    std::string name = entry.path().stem().string();
    try {
      kainjow::mustache::mustache parsed(expanded(name));
      if (!parsed.is_valid()) {
        return Status::invalid("template " + entry.path().string() + ": " + parsed.error_message());
      }
    } catch (const std::exception& e) {
      return Status::unavailable(e.what());
    }
  }
  if (ec)
    return Status::unavailable("cannot read templates folder " + folder_.string() + ": " +
                               ec.message());
  return Status::ok();
}

std::string Templates::source(const std::string& name) const {
  if (!valid_name(name)) throw std::runtime_error("invalid template name '" + name + "'");
  std::lock_guard lock(mu_);
  auto it = sources_.find(name);
  if (it != sources_.end()) return it->second;
  fs::path file = folder_ / (name + ".mustache");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("template " + file.string() + " cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return sources_.emplace(name, std::move(text).str()).first->second;
}

// kainjow parses a partial again at every `{{> name}}` it renders: a month
// of the calendar parsed calendar_item 800 times. Writing each partial's text
// in place of its tag gives the same output (kainjow keeps the whitespace
// around a tag either way) from one parse per pooled template.
std::string Templates::expanded(const std::string& name) const { return expand(name, 0); }

std::string Templates::expand(const std::string& name, int depth) const {
  constexpr int kMaxDepth = 8;
  if (depth > kMaxDepth)
    throw std::runtime_error("template partials nest deeper than " + std::to_string(kMaxDepth) +
                             " at '" + name + "' (one includes itself?)");
  std::string text = source(name), out;
  std::size_t at = 0;
  for (std::size_t tag; (tag = text.find("{{>", at)) != std::string::npos;) {
    std::size_t end = text.find("}}", tag);
    if (end == std::string::npos) break;  // kainjow reports the unclosed tag
    std::string partial = text.substr(tag + 3, end - tag - 3);
    partial.erase(0, partial.find_first_not_of(' '));
    partial.erase(partial.find_last_not_of(' ') + 1);
    out.append(text, at, tag - at).append(expand(partial, depth + 1));
    at = end + 2;
  }
  return out.append(text, at);
}

// A parsed template is rendered by one thread at a time (kainjow's render is
// not const): each render takes one from the pool, or parses a new one, and
// gives it back afterwards.
std::string Templates::render_with(const std::string& name, const nlohmann::json& data,
                                   const Shared* shared) const {
  Data root = to_data(data.is_object() ? data : nlohmann::json::object());
  return render_data(name, &root, shared);
}

std::string Templates::render_data(const std::string& name, const void* data,
                                   const Shared* shared) const {
  std::unique_ptr<Pool::Parsed> tmpl;
  {
    std::lock_guard lock(pool_->mu);
    auto& idle = pool_->idle[name];
    if (!idle.empty()) {
      tmpl = std::move(idle.back());
      idle.pop_back();
    }
  }
  if (!tmpl) tmpl = std::make_unique<Pool::Parsed>(expanded(name));
  if (!tmpl->is_valid())
    throw std::runtime_error("template " + name + ": " + tmpl->error_message());
  FolderContext context(shared != nullptr ? &shared->data : &globals_shared_->data, *this);
  context.push(static_cast<const Data*>(data));
  std::string out = tmpl->render(context);
  if (!tmpl->is_valid())
    throw std::runtime_error("template " + name + ": " + tmpl->error_message());
  std::lock_guard lock(pool_->mu);
  pool_->idle[name].push_back(std::move(tmpl));
  return out;
}

std::string Templates::render(const std::string& name, const nlohmann::json& data) const {
  return render_with(name, data, nullptr);
}

std::string Templates::render_page(const std::string& name, const nlohmann::json& data) const {
  return render_page(name, data, nullptr);
}

// The page and the layout read the same converted data; the layout's
// "content" is added to it after the page is rendered.
std::string Templates::render_page(const std::string& name, const nlohmann::json& data,
                                   const Shared* shared) const {
  Data root = to_data(data.is_object() ? data : nlohmann::json::object());
  std::string content = render_data(name, &root, shared);
  root.set("content", Data(false));
  *const_cast<Data*>(root.get("content")) = Data(content);
  return render_data("layout", &root, shared);
}

}  // namespace peto::web
