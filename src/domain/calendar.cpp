#include "domain/calendar.h"

#include "domain/cards.h"
#include "formats/ical.h"

namespace peto::domain {

std::string interview_ics(const Record& interview, const std::string& uid, const std::string& title,
                          std::int64_t now_ms) {
  return formats::write_calendar({domain::interview_item(interview, uid, title)}, now_ms);
}

}  // namespace peto::domain
