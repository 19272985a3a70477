// CSV for spreadsheets: RFC 4180 rows (every field quoted by libcsv, CRLF
// line ends), UTF-8 with an optional byte order mark so that spreadsheet
// programs read the accents right.
//
//   std::string out = csv_start(true);                  // the BOM, or ""
//   out += csv_row({"Sent on", "Company", "Role"});
//
// A field that a spreadsheet would read as a formula (one starting with =,
// +, -, @, a tab or a carriage return) gets a leading apostrophe, so a
// company name read off a stranger's page cannot run anything when the
// person opens the file (OWASP's "CSV injection").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace peto::formats {

// The UTF-8 byte order mark when `bom`, else "".
std::string csv_start(bool bom);

// One record: the fields quoted, escaped and neutralised, then CRLF.
std::string csv_row(const std::vector<std::string>& fields);

// `cell` with a leading apostrophe when a spreadsheet would run it.
std::string neutralise_formula(std::string_view cell);

}  // namespace peto::formats
