// A letter: a letter template (kind "letters") filled in for an application
// and laid out for the typesetter.
//
//   auto values = letter_values(conn, owner, application_id, letter, now);
//   auto made = letter_document(letter, cv, values);   // records as JSON
//   if (auto* doc = std::get_if<typeset::Document>(&made)) render_pdf(*doc, …);
//
// The placeholders (formats/placeholders.h) are filled from the application:
// {company} and {role} from its listing, {contact} from the contact it names
// (or "Hiring Manager" in the letter's language), {listing_url} from the
// listing and {date}, today in the person's time zone written out in the
// letter's language. What a person typed goes in as literal text, never as
// Markdown. The sender's name and contact line are the CV's the template
// names (the street only when that CV prints it); without one, the letter
// starts at the date.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "core/clock.h"
#include "domain/records.h"
#include "formats/placeholders.h"
#include "store/db.h"
#include "typeset/document.h"

namespace peto::media {

using LetterValues = std::map<std::string, std::string, std::less<>>;

// The placeholders' values for `owner`'s application (nullopt: not theirs),
// in `language`, on the day `now` falls on in the person's time zone.
std::optional<LetterValues> letter_values(store::Conn& conn, std::int64_t owner,
                                          std::int64_t application_id, const std::string& language,
                                          Millis now);
// Made-up values for a template's preview before any application is chosen.
LetterValues example_letter_values(const std::string& language, const std::string& today);

// The letter, or the template's problem (a template saved before a check
// it now fails). `cv` is the CV record the template names, or null.
std::variant<typeset::Document, formats::PlaceholderProblem> letter_document(
    const nlohmann::json& letter, const nlohmann::json& cv, const LetterValues& values);

// The CV whose details head the letter: null when it names none (or one
// gone).
nlohmann::json letter_sender(domain::Records& records, std::int64_t owner,
                             const nlohmann::json& letter);
// The letter's language ("en" when it has none).
std::string letter_language(const nlohmann::json& letter);

typeset::PageSize letter_page_size(const nlohmann::json& letter);
std::string letter_theme(const nlohmann::json& letter);  // "classic" or "modern"
// The document kind a letter of this purpose is kept as ("cover_letter"…).
std::string letter_document_kind(const nlohmann::json& letter);

}  // namespace peto::media
