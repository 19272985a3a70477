#include "web/templates.h"

#include <fstream>
#include <kainjow/mustache.hpp>
#include <sstream>
#include <stdexcept>

namespace peto::web {

namespace {

namespace fs = std::filesystem;
using Data = kainjow::mustache::data;

Data to_data(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      Data d;
      for (const auto& [k, v] : j.items()) d.set(k, to_data(v));
      return d;
    }
    case nlohmann::json::value_t::array: {
      Data list(Data::type::list);
      for (const auto& v : j) list.push_back(to_data(v));
      return list;
    }
    case nlohmann::json::value_t::string:
      return Data(j.get<std::string>());
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
// of in the data.
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

Templates::Templates(fs::path folder, nlohmann::json globals)
    : folder_(std::move(folder)), globals_(std::move(globals)) {}

Status Templates::load() {
  std::error_code ec;
  if (!fs::is_directory(folder_, ec)) {
    return Status::unavailable("templates folder " + folder_.string() + " does not exist");
  }
  for (const auto& entry : fs::directory_iterator(folder_, ec)) {
    if (entry.path().extension() != ".mustache") continue;
    std::string name = entry.path().stem().string();
    try {
      kainjow::mustache::mustache parsed(source(name));
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

// Parsed per call: kainjow's render is not const, so a shared parsed template
// would need a lock; parsing a page-sized template costs microseconds.
std::string Templates::render(const std::string& name, const nlohmann::json& data) const {
  kainjow::mustache::mustache tmpl(source(name));
  if (!tmpl.is_valid()) throw std::runtime_error("template " + name + ": " + tmpl.error_message());
  nlohmann::json merged = globals_;
  if (data.is_object()) merged.update(data);
  Data root = to_data(merged);
  FolderContext context(&root, *this);
  std::string out = tmpl.render(context);
  if (!tmpl.is_valid()) throw std::runtime_error("template " + name + ": " + tmpl.error_message());
  return out;
}

std::string Templates::render_page(const std::string& name, const nlohmann::json& data) const {
  nlohmann::json with_content = data.is_object() ? data : nlohmann::json::object();
  with_content["content"] = render(name, data);
  return render("layout", with_content);
}

}  // namespace peto::web
