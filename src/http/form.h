// Form: the fields of an application/x-www-form-urlencoded body or a query
// string, decoded by Boost.URL ('+' is a space, %XX escapes decoded).
//
//   Form f = Form::parse(request);
//   std::string email = f.get("email");
//
// A body that is not valid form encoding, or whose fields are not UTF-8 once
// decoded, gives an empty Form (every field then reads as ""), which the
// page answers as missing input. Plain value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/http.h"

namespace peto::web {

class Form {
 public:
  static Form parse(const Request& r);        // the body
  static Form from_query(const Request& r);   // the query string
  static Form decode(std::string_view text);  // "a=1&b=%C3%A9" as a body is read
  static Form from_pairs(std::vector<std::pair<std::string, std::string>> fields);

  std::string get(std::string_view name) const;  // first value or ""
  bool has(std::string_view name) const;
  std::vector<std::string> all(std::string_view name) const;
  // {name: first value}, for filling a form again with what was typed.
  nlohmann::json to_json() const;

  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace peto::web
