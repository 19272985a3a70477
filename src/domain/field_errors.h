// FieldErrors: what was wrong with a submitted form or record, field by field.
//
// The key is the form field's name ("email", "time_zone"); "form" is for an
// error that belongs to no single field. The message is a catalogue key
// ("error_password_short") that the web layer translates, or plain English
// text, which the catalogue passes through unchanged when it has no such key.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace peto::domain {

struct FieldErrors {
  std::map<std::string, std::string> by_field;
  // Values a message names, per field. The web layer words such a message
  // with the key <message>_<first value's name>: error_too_long with
  // {"max": "200"} reads as error_too_long_max, "… keep it to {max} characters".
  std::map<std::string, std::map<std::string, std::string>> vars;

  bool empty() const { return by_field.empty(); }
  void add(const std::string& field, const std::string& message) {
    by_field.emplace(field, message);  // the first error of a field is the one shown
  }
  // "error_too_long" with the limit the person went over.
  void too_long(const std::string& field, std::size_t max) {
    if (has(field)) return;
    add(field, "error_too_long");
    vars[field] = {{"max", std::to_string(max)}};
  }
  bool has(const std::string& field) const { return by_field.count(field) != 0; }
};

}  // namespace peto::domain
