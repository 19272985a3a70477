#include "http/form.h"

#include <boost/url/encoding_opts.hpp>
#include <boost/url/params_view.hpp>
#include <boost/url/parse_query.hpp>

#include "core/utf8.h"

namespace peto::web {

Form Form::parse(const Request& r) { return decode(r.body); }

Form Form::decode(std::string_view text) {
  Form f;
  if (!boost::urls::parse_query(text)) return f;  // then the constructor cannot throw
  boost::urls::params_view params(text, boost::urls::encoding_opts(true));
  for (auto p : params) {
    if (p.key.empty() && !p.has_value) continue;  // "a=1&&b=2"
    f.fields_.emplace_back(p.key, p.has_value ? p.value : std::string());
  }
  for (const auto& [k, v] : f.fields_)
    if (!utf8_valid(k) || !utf8_valid(v)) return {};
  return f;
}

Form Form::from_query(const Request& r) { return from_pairs(r.query); }

Form Form::from_pairs(std::vector<std::pair<std::string, std::string>> fields) {
  Form f;
  f.fields_ = std::move(fields);
  return f;
}

std::string Form::get(std::string_view name) const {
  for (const auto& [k, v] : fields_) {
    if (k == name) return v;
  }
  return {};
}

bool Form::has(std::string_view name) const {
  for (const auto& [k, v] : fields_) {
    if (k == name) return true;
  }
  return false;
}

std::vector<std::string> Form::all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : fields_) {
    if (k == name) out.push_back(v);
  }
  return out;
}

nlohmann::json Form::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : fields_) {
    if (!j.contains(k)) j[k] = v;
  }
  return j;
}

}  // namespace peto::web
