#include "formats/csv.h"

#include <csv.h>

namespace peto::formats {

std::string csv_start(bool bom) { return bom ? "\xEF\xBB\xBF" : ""; }

std::string neutralise_formula(std::string_view cell) {
  if (!cell.empty() && std::string_view("=+-@\t\r").find(cell.front()) != std::string_view::npos)
    return "'" + std::string(cell);
  return std::string(cell);
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    const std::string cell = neutralise_formula(fields[i]);
    // Quoted, with each quote doubled: at most twice the size and two quotes.
    std::string quoted(cell.size() * 2 + 2, '\0');
    quoted.resize(csv_write(quoted.data(), quoted.size(), cell.data(), cell.size()));
    out += quoted;
  }
  out += "\r\n";
  return out;
}

}  // namespace peto::formats
