// Dates written out in a document's language, by ICU.
#include <unicode/datefmt.h>
#include <unicode/locid.h>
#include <unicode/timezone.h>
#include <unicode/unistr.h>

#include <charconv>
#include <memory>

#include "typeset/document.h"

namespace peto::typeset {
namespace {

// The number in text[from, from + n); -1 when it is not all digits.
int number_at(std::string_view text, std::size_t from, std::size_t n) {
  int value = 0;
  const char* first = text.data() + from;
  auto read = std::from_chars(first, first + n, value);
  return read.ec == std::errc() && read.ptr == first + n ? value : -1;
}

// `day` written by `format`; the day itself when it is not one.
std::string written(std::string_view day, std::unique_ptr<icu::DateFormat> format) {
  std::string fallback(day);
  if (day.size() != 10 || day[4] != '-' || day[7] != '-') return fallback;
  int year = number_at(day, 0, 4), month = number_at(day, 5, 2), mday = number_at(day, 8, 2);
  if (year < 1 || month < 1 || month > 12 || mday < 1 || mday > 31) return fallback;
  // Noon UTC of the day, written in UTC: the day stays the day everywhere.
  UErrorCode status = U_ZERO_ERROR;
  if (format == nullptr) return fallback;
  format->adoptTimeZone(icu::TimeZone::createTimeZone("UTC"));
  std::unique_ptr<icu::Calendar> calendar(format->getCalendar()->clone());
  calendar->clear();
  calendar->set(year, month - 1, mday, 12, 0, 0);
  UDate when = calendar->getTime(status);
  if (U_FAILURE(status)) return fallback;
  icu::UnicodeString text;
  format->format(when, text);
  std::string out;
  text.toUTF8String(out);
  return out.empty() ? fallback : out;
}

}  // namespace

std::string long_date(std::string_view yyyy_mm_dd, const std::string& language) {
  return written(yyyy_mm_dd, std::unique_ptr<icu::DateFormat>(icu::DateFormat::createDateInstance(
                                 icu::DateFormat::kLong, icu::Locale(language.c_str()))));
}

std::string date_as(std::string_view yyyy_mm_dd, const std::string& language,
                    const char* skeleton) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::DateFormat> format(icu::DateFormat::createInstanceForSkeleton(
      icu::UnicodeString::fromUTF8(skeleton), icu::Locale(language.c_str()), status));
  if (U_FAILURE(status)) format.reset();
  return written(yyyy_mm_dd, std::move(format));
}

}  // namespace peto::typeset
