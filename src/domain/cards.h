// Cards: a person's interviews, reminders and contacts as calendar items and
// contact cards (formats/ical.h), and back.
//
//   CalItem item = interview_item(interview, uid, "Interview: Backend engineer at Acme");
//   std::string ics = formats::write_calendar({item}, now_ms);
//   nlohmann::json values = interview_values(std::get<CalItem>(formats::read_calendar(text,
//   zone)));
//
// The *_values functions give the record fields a remote change may set, as
// typed JSON for domain::Records (moments as UTC ms, absent fields as null,
// text cut to the field's length); what peto derives itself (an interview's
// title, a contact's company) is written out but never read back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "formats/ical.h"

namespace peto::domain {

// The UID a record has on the remote side and in the .ics feed: an
// interview's own `uid` field when the record carries one, else
// "peto-<singular>-<id>-<created_at>" ("peto-reminder-12-1767225600000"),
// which does not change while the record lives.
std::string record_uid(std::string_view kind, const nlohmann::json& record);

// The event title of an interview in `lang`, as the .ics download, the feed
// and CalDAV show it: "Interview: Backend engineer at Acme" (the catalogue's
// kind_interview, then the record's application_role and company_name).
std::string interview_title(const std::string& lang, const nlohmann::json& interview);

// Records (domain::Record JSON) as items, and items as record values.
formats::CalItem interview_item(const nlohmann::json& interview, const std::string& uid,
                                const std::string& title);
formats::CalItem reminder_item(const nlohmann::json& reminder, const std::string& uid);
formats::Card contact_card(const nlohmann::json& contact, const std::string& uid);

// {starts_at, ends_at, starts_on: null, place, notes}, or for an all-day
// event {starts_on, place, notes} (the records derive the times).
nlohmann::json interview_values(const formats::CalItem& item);
// {title, due_at, due_on: null, done_at}, {title, due_on, done_at} for a
// to-do due on a date, or due_at null for a to-do without DUE.
nlohmann::json reminder_values(const formats::CalItem& item);
// {name, email, phone, role, notes}; an address that is not one is left out.
nlohmann::json contact_values(const formats::Card& card);

}  // namespace peto::domain
