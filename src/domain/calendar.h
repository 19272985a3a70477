// Calendar: an interview as an iCalendar (RFC 5545) event, for the ".ics"
// download. The UID is the interview's stable uid, so importing the file
// again updates the calendar entry instead of adding a second one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "domain/records.h"

namespace peto::domain {

// `interview` is a record of kind "interviews"; `title` names the event
// ("Interview: Backend engineer at Acme"). Lines end in CRLF, text is
// escaped and long lines folded as the RFC requires.
std::string interview_ics(const Record& interview, const std::string& uid, const std::string& title,
                          std::int64_t now_ms);
// The stable uid of the owner's interview `id`; "" when it has none (or
// there is no such interview of theirs).
std::string interview_uid(store::Db& db, std::int64_t owner, std::int64_t id);
// The same, on a connection inside the caller's transaction.
std::string interview_uid(store::Conn& conn, std::int64_t owner, std::int64_t id);
// The stable uid of each of the owner's interviews, by id.
std::map<std::int64_t, std::string> interview_uids(store::Db& db, std::int64_t owner);
// When the owner's reminder `id` is due (UTC ms); nullopt when it has no due
// time or there is no such reminder of theirs.
std::optional<std::int64_t> reminder_due_at(store::Conn& conn, std::int64_t owner, std::int64_t id);

}  // namespace peto::domain
