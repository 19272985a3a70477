// RecordView: turns domain records into what the record templates show, and
// form submissions into domain input. Shared by the record pages, the
// application pages and the dashboard so that a field is labelled, formatted
// and typed in one way everywhere.
//
// Labels come from the catalogue: `field_<kind>_<name>` when a kind words a
// field its own way ("Listing URL"), else `field_<name>`; choice values are
// `choice_<field>_<value>`, timeline kinds `event_<kind>`. Times are shown
// and typed in the visitor's time zone.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "domain/applications.h"
#include "domain/records.h"
#include "domain/trash.h"
#include "http/form.h"
#include "pages/site.h"

namespace peto::web {

class RecordView {
 public:
  RecordView(Site& site, domain::Records& records) : site_(site), records_(records) {}

  std::string text(const Visitor& v, const std::string& key) const;
  std::string label(const Visitor& v, const domain::Kind& k, const domain::Field& f) const;
  std::string choice_label(const Visitor& v, const std::string& field,
                           const std::string& value) const;
  // What names a record in links and headings.
  std::string title_of(const Visitor& v, const domain::Kind& k, const domain::Record& r) const;
  // One field's value as the reader sees it ("" for empty).
  std::string shown(const Visitor& v, const domain::Field& f, const nlohmann::json& value) const;
  // When a record with a due field falls: its day for an all-day one
  // ("2027-01-20"), its local time, or "No date".
  std::string when(const Visitor& v, const domain::Kind& k, const domain::Record& r) const;
  // The href of a ref field's target, "" when empty.
  static std::string ref_href(const domain::Field& f, const nlohmann::json& value);

  // {label, text, href} for each field of a record (listed ones only when `listed_only`).
  nlohmann::json cells(const Visitor& v, const domain::Kind& k, const domain::Record& r,
                       bool listed_only) const;
  // A record table: the heading of its first column (the record's title,
  // "Role" for listings), the headings of the others ({name, label, sort:
  // the column a list sorts by for it}), and a record's cells under them
  // ({name, label, text, href}).
  std::string title_heading(const Visitor& v, const domain::Kind& k) const;
  nlohmann::json headings(const Visitor& v, const domain::Kind& k) const;
  nlohmann::json table_cells(const Visitor& v, const domain::Kind& k,
                             const domain::Record& r) const;

  // A record's values as a form shows them (strings; local datetimes).
  nlohmann::json form_values(const Visitor& v, const domain::Kind& k,
                             const domain::Record& r) const;
  // The inputs of a form for kind `k`: {name, id, label, input_type, value,
  // error, required, options[], is_select, is_textarea} each. `values` are
  // strings as typed; `only` limits the fields (empty = every writable one).
  nlohmann::json inputs(const Visitor& v, const domain::Kind& k, const nlohmann::json& values,
                        const nlohmann::json& errors,
                        const std::vector<std::string>& only = {}) const;
  // A select of choices for a non-field form input (status, end reason…).
  nlohmann::json choice_options(const Visitor& v, const std::string& field,
                                const std::vector<std::string>& values,
                                const std::string& selected) const;

  // The form submission as domain input, in the visitor's time zone.
  domain::Input input(const Visitor& v, const Form& form, const domain::Kind& k) const;

  Site& site() const { return site_; }
  domain::Records& records() const { return records_; }

 private:
  Site& site_;
  domain::Records& records_;
};

// A record id written as text: a positive integer and nothing else.
std::optional<std::int64_t> parse_id(const std::string& text);
// The id in path parameter `id`, nullopt for anything else.
std::optional<std::int64_t> path_id(const Request& r);
// A record's id.
inline std::int64_t id_of(const domain::Record& r) { return r["id"].get<std::int64_t>(); }

// Text as parts to show, the web addresses, e-mail addresses and
// international phone numbers ("+351 …" written without spaces) in it as
// links: [{text, href}], href "" for plain text; white space kept.
nlohmann::json linkify(std::string_view text);

// What a delete takes with it, one item per kind of row, biggest first in
// the order a person thinks of them: {"1 application", "12 timeline
// entries", "2 reminders"} (catalogue keys `gone_<table>_one|_other`).
std::vector<std::string> gone_items(const Catalogue& c, const std::string& lang,
                                    const domain::Gone& gone);
// The same as one phrase: "1 application, 12 timeline entries and 2 reminders".
std::string gone_words(const Catalogue& c, const std::string& lang, const domain::Gone& gone);

}  // namespace peto::web
