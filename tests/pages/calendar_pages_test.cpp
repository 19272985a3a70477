// /calendar over real HTTP: the agenda with overdue reminders first, a week
// and a month, each item linking to its record; a reminder marked done or
// snoozed from there comes back to the same view; another person's records
// never show; a snooze to nowhere is refused and changes nothing.
#include <gtest/gtest.h>

#include <string>

#include "core/timezone.h"
#include "domain/records.h"
#include "tests/support/factory.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

using nlohmann::json;

class CalendarPagesTest : public peto::testing::SignedInPairTest {
 protected:
  std::int64_t reminder(std::int64_t owner, const std::string& title, const std::string& due) {
    domain::Input in;
    in.values = {{"title", title}, {"due_at", due}};
    auto made = domain::Records(db(), clock_).create(owner, domain::kind("reminders"), in);
    EXPECT_TRUE(std::holds_alternative<domain::Record>(made));
    return std::holds_alternative<domain::Record>(made)
               ? std::get<domain::Record>(made)["id"].get<std::int64_t>()
               : 0;
  }
  static std::size_t at(const std::string& body, const std::string& needle) {
    return body.find(needle);
  }
};

TEST_P(CalendarPagesTest, AgendaWeekAndMonthShowWhatFallsWhen) {
  const std::int64_t ana = ana_->account().id;
  testing::Factory f(db(), clock_);
  auto listing = f.listing(ana, f.company(ana, "Acme"), "SRE", {.closes_on = "2027-01-22"});
  (void)listing;
  reminder(ana, "Call Bea", "2027-01-16T09:00");
  reminder(ana, "Send the forms", "2027-01-10T09:00");  // before now: overdue
  reminder(ben_->account().id, "Ben's own", "2027-01-16T09:00");

  auto agenda = ana_->get("/calendar");
  ASSERT_EQ(agenda.status, 200);
  const std::string& b = agenda.body;
  EXPECT_NE(at(b, "aria-current=\"page\">Agenda<"), std::string::npos);
  ASSERT_NE(at(b, ">Send the forms</a>"), std::string::npos);
  EXPECT_LT(at(b, ">Overdue</h3>"), at(b, ">Send the forms</a>"));
  EXPECT_LT(at(b, ">Send the forms</a>"), at(b, ">Call Bea</a>")) << "overdue first";
  EXPECT_LT(at(b, ">Call Bea</a>"), at(b, ">SRE at Acme</a>"));
  EXPECT_NE(at(b, "Closes"), std::string::npos);
  EXPECT_EQ(at(b, "Ben's own"), std::string::npos);

  auto week = ana_->get("/calendar?view=week&date=2027-01-16");
  EXPECT_NE(at(week.body, "Mon 11 Jan"), std::string::npos) << week.body;
  EXPECT_NE(at(week.body, "Sun 17 Jan"), std::string::npos);
  EXPECT_NE(at(week.body, ">Call Bea</a>"), std::string::npos);
  EXPECT_EQ(at(week.body, ">SRE at Acme</a>"), std::string::npos) << "the 22nd is next week";

  auto month = ana_->get("/calendar?view=month&date=2027-01-05");
  EXPECT_NE(at(month.body, "January 2027"), std::string::npos);
  EXPECT_NE(at(month.body, ">SRE at Acme</a>"), std::string::npos);
  EXPECT_NE(at(month.body, "href=\"/calendar?view=month&amp;date=2027-02-01\""), std::string::npos)
      << month.body;
  EXPECT_EQ(ana_->get("/calendar?view=month&date=2027-02-30").status, 200)
      << "a day that is not one shows today";
}

// A busy day in the month names its first three items and links to its week
// for the rest; a cell has no forms (the week and the agenda have them). The
// agenda lists ten overdue reminders and links to them all.
TEST_P(CalendarPagesTest, ABusyMonthCellAndALongOverdueListLinkToTheRest) {
  const std::int64_t ana = ana_->account().id;
  for (int n = 1; n <= 5; ++n)
    reminder(ana, "Busy " + std::to_string(n), "2027-01-20T0" + std::to_string(n) + ":00");
  for (int n = 10; n < 22; ++n) {
    const int day = n - 8;  // the 2nd to the 13th
    reminder(ana, "Late " + std::to_string(n),
             std::string("2027-01-") + (day < 10 ? "0" : "") + std::to_string(day) + "T07:00");
  }

  auto month = ana_->get("/calendar?view=month&date=2027-01-05");
  ASSERT_EQ(month.status, 200);
  const std::string& m = month.body;
  EXPECT_NE(at(m, ">Busy 3</a>"), std::string::npos);
  EXPECT_EQ(at(m, ">Busy 4</a>"), std::string::npos) << "past the third";
  EXPECT_NE(at(m, "href=\"/calendar?view=week&amp;date=2027-01-20#day-2027-01-20\">2 more<"),
            std::string::npos)
      << m;
  EXPECT_EQ(at(m, "/snooze\""), std::string::npos) << "no forms in a cell";
  auto week = ana_->get("/calendar?view=week&date=2027-01-20");
  EXPECT_NE(at(week.body, "id=\"day-2027-01-20\""), std::string::npos);
  EXPECT_NE(at(week.body, ">Busy 5</a>"), std::string::npos);

  // Now is 2027-01-15T08:00Z: the twelve "Late" ones up to the 13th are due.
  auto agenda = ana_->get("/calendar");
  const std::string& a = agenda.body;
  EXPECT_NE(at(a, ">Late 10</a>"), std::string::npos);
  EXPECT_NE(at(a, ">Late 19</a>"), std::string::npos);
  EXPECT_EQ(at(a, ">Late 20</a>"), std::string::npos) << "past the tenth overdue";
  EXPECT_NE(at(a, "href=\"/reminders?tab=outstanding\">2 more overdue reminders<"),
            std::string::npos);
  EXPECT_NE(at(a, "/snooze\""), std::string::npos) << "the agenda keeps its forms";
}

TEST_P(CalendarPagesTest, DoneAndSnoozeComeBackToTheSameView) {
  const std::int64_t ana = ana_->account().id;
  auto call = reminder(ana, "Call Bea", "2027-01-16T09:00");
  const std::string back = "/calendar?view=week&date=2027-01-16";
  auto snoozed = ana_->post_form("/reminders/" + std::to_string(call) + "/snooze",
                                 {{"until", "tomorrow"}, {"return_to", back}});
  ASSERT_EQ(snoozed.status, 303);
  EXPECT_EQ(snoozed.header("Location"), back);
  // Now is 2027-01-15T08:00Z; tomorrow at 09:00 in UTC (the profile's zone).
  EXPECT_EQ(db().query("SELECT due_at FROM reminders WHERE id = ?", {call})[0].int_at(0),
            parse_local("2027-01-16 09:00", "UTC").value());

  auto refused = ana_->post_form("/reminders/" + std::to_string(call) + "/snooze",
                                 {{"until", "someday"}, {"return_to", back}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_NE(refused.body.find("Choose when the reminder should come back"), std::string::npos);
  EXPECT_EQ(db().query("SELECT due_at FROM reminders WHERE id = ?", {call})[0].int_at(0),
            parse_local("2027-01-16 09:00", "UTC").value());

  // To the day and time picked, in the person's zone; a time that is not one
  // is refused and changes nothing.
  auto picked =
      ana_->post_form("/reminders/" + std::to_string(call) + "/snooze",
                      {{"until", "pick"}, {"at", "2027-01-16T14:30"}, {"return_to", back}});
  ASSERT_EQ(picked.status, 303);
  EXPECT_EQ(db().query("SELECT due_at FROM reminders WHERE id = ?", {call})[0].int_at(0),
            parse_local("2027-01-16 14:30", "UTC").value());
  EXPECT_EQ(ana_->post_form("/reminders/" + std::to_string(call) + "/snooze",
                            {{"until", "pick"}, {"at", "2027-01-32T14:30"}})
                .status,
            422);
  EXPECT_EQ(db().query("SELECT due_at FROM reminders WHERE id = ?", {call})[0].int_at(0),
            parse_local("2027-01-16 14:30", "UTC").value());
  EXPECT_NE(ana_->get(back).body.find("type=\"datetime-local\" name=\"at\""), std::string::npos)
      << "the calendar offers the pick";

  auto theirs =
      ben_->post_form("/reminders/" + std::to_string(call) + "/snooze", {{"until", "later"}});
  EXPECT_EQ(theirs.status, 404);

  // The reminder's own page and the dashboard (for one that is due) offer it too.
  const std::string action = "action=\"/reminders/" + std::to_string(call) + "/snooze\"";
  EXPECT_NE(ana_->get("/reminders/" + std::to_string(call)).body.find(action), std::string::npos);
  auto late = reminder(ana, "Send the forms", "2027-01-10T09:00");
  EXPECT_NE(ana_->get("/").body.find("action=\"/reminders/" + std::to_string(late) + "/snooze\""),
            std::string::npos);

  auto done = ana_->post_form("/reminders/" + std::to_string(call) + "/done",
                              {{"done", "1"}, {"return_to", back}});
  EXPECT_EQ(done.header("Location"), back);
  EXPECT_NE(ana_->get(back).body.find("(done)"), std::string::npos);
}

PETO_BOTH_BACKENDS(CalendarPagesTest);

}  // namespace
}  // namespace peto::web
