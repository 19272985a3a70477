// A CV: the CV record (who, which language, theme and page size) and the
// person's career entries, as a document for the typesetter.
//
//   typeset::Document doc = cv_document(cv, entries);   // records as JSON
//   auto pdf = typeset::render_pdf(doc, theme, cv_page_size(cv));
//
// An entry goes into the CVs its `cvs` field names (comma-separated, any
// case), or into every CV when it names none; so does a highlight that
// starts with the names in brackets ("- [data, ml] Built the feature store"). Sections come in a
// fixed order (experience, education, projects, skills, certifications, languages, references),
// entries newest first or by their position, as the CV says. Skills are grouped by their
// organisation field; links join the contact line; references are printed only when the CV says so,
// else one line says they are available on request. The street is printed only when asked for: the
// town is enough for a CV sent to a stranger.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "domain/records.h"
#include "typeset/document.h"

namespace peto::media {

typeset::Document cv_document(const nlohmann::json& cv, const std::vector<nlohmann::json>& entries);
// Every career entry of `owner`'s (the records cv_document() reads).
std::vector<nlohmann::json> career_entries(domain::Records& records, std::int64_t owner);
typeset::PageSize cv_page_size(const nlohmann::json& cv);
// "classic" or "modern": the theme file's name.
std::string cv_theme(const nlohmann::json& cv);
// A record's text field; "" when it is absent, not text, or the record is
// not an object (no CV given). The CV and letter builders read fields so.
std::string text_field(const nlohmann::json& record, const char* field);
// The CV's contact details as printed: town (the street first when the CV
// says so), e-mail, phone, website; empty ones left out.
std::vector<std::string> cv_contact(const nlohmann::json& cv);
// Whether the entry is in the CV called `cv_name`.
bool entry_in_cv(const nlohmann::json& entry, const std::string& cv_name);
// Whether a comma-separated list of CV names (any case) names `cv_name`;
// an empty list names every CV.
bool names_cv(std::string_view names, const std::string& cv_name);

}  // namespace peto::media
