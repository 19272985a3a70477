// Nothing lost by a click, over real HTTP: a delete that takes other records
// says what goes and asks; it all goes to the trash, the next page says so
// with a Restore button; /trash brings it back whole; every change leaves a
// message for the next page; a refused status change says why by the field.
#include <gtest/gtest.h>
#include <strings.h>

#include <cctype>

#include "domain/records.h"
#include "domain/trash.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"

namespace peto::web {
namespace {

using peto::testing::ClientResponse;
using peto::testing::cookie_of;
using peto::testing::SignedInClient;

class TrashHttpTest : public peto::testing::SiteTest {
 protected:
  SignedInClient person(const std::string& email) {
    return SignedInClient::with_session(port(), site_->accounts(), email);
  }

  // The page a browser shows after the redirect `r`: GET its Location with
  // the flash cookie it set.
  static ClientResponse follow(const SignedInClient& c, const ClientResponse& r) {
    EXPECT_EQ(r.status, 303) << r.body;
    const std::string flash = cookie_of(r, kFlashCookie);
    EXPECT_FALSE(flash.empty()) << "a change leaves a message for the next page";
    return c.request("GET", r.header("Location"), "",
                     {{"Cookie", std::string(kFlashCookie) + "=" + flash}});
  }

  static bool clears_flash(const ClientResponse& page) {
    for (const auto& [name, value] : page.headers)
      if (strcasecmp(name.c_str(), "set-cookie") == 0 &&
          value.starts_with(std::string(kFlashCookie) + "=;") &&
          value.find("Max-Age=0") != std::string::npos)
        return true;
    return false;
  }

  static std::string flash_text(const ClientResponse& page) {
    const std::string marker = "data-testid=\"flash\">";
    auto at = page.body.find(marker);
    if (at == std::string::npos) return "";
    at += marker.size();
    std::string text = page.body.substr(at, page.body.find('<', at) - at);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
  }
};

TEST_P(TrashHttpTest, DeletingAListingAsksNamesWhatGoesAndRestoresItWhole) {
  SignedInClient ana = person("ana@example.com");
  auto made = ana.post_form("/listings", {{"company", "Acme"}, {"role", "SRE"}});
  ASSERT_EQ(made.status, 303);
  const std::string listing = made.header("Location");
  auto applied = ana.post_form(listing + "/apply", {{"status", "applied"}});
  ASSERT_EQ(applied.status, 303);
  const std::string app = applied.header("Location");
  ASSERT_EQ(ana.post_form(app + "/status", {{"status", "screening"}}).status, 303);
  for (const char* title : {"Call back", "Send portfolio"})
    ASSERT_EQ(ana.post_form(app + "/reminders", {{"title", title}, {"due_at", "2027-01-20T09:00"}})
                  .status,
              303);
  const std::int64_t events = count("application_events");
  ASSERT_GE(events, 2);
  // With the follow-up peto made when it was sent (done since: they answered).
  ASSERT_EQ(count("reminders"), 3);

  // Asked first, with what goes named; nothing deleted yet.
  auto ask = ana.post_form(listing + "/delete", {});
  ASSERT_EQ(ask.status, 200) << ask.body;
  EXPECT_NE(ask.body.find("Delete the listing “SRE”?"), std::string::npos) << ask.body;
  EXPECT_NE(ask.body.find("<li>1 application</li>"), std::string::npos);
  EXPECT_NE(ask.body.find("<li>3 reminders</li>"), std::string::npos);
  EXPECT_NE(ask.body.find("<li>" + std::to_string(events) + " timeline entries</li>"),
            std::string::npos);
  EXPECT_NE(ask.body.find("name=\"confirm\" value=\"1\""), std::string::npos);
  EXPECT_NE(ask.body.find("href=\"" + listing + "\""), std::string::npos) << "Cancel goes back";
  EXPECT_EQ(count("listings"), 1);
  EXPECT_EQ(count("applications"), 1);

  // Confirmed: gone, and the next page says so with Restore.
  auto deleted = ana.post_form(listing + "/delete", {{"confirm", "1"}});
  ASSERT_EQ(deleted.status, 303);
  EXPECT_EQ(deleted.header("Location"), "/listings");
  EXPECT_EQ(count("listings"), 0);
  EXPECT_EQ(count("applications"), 0);
  EXPECT_EQ(count("reminders"), 0);
  EXPECT_EQ(ana.get(listing).status, 404);
  auto next = follow(ana, deleted);
  EXPECT_EQ(flash_text(next), "Moved the listing “SRE” to the trash.");
  const auto entries = domain::Trash(db(), clock_).list(ana.account().id);
  ASSERT_EQ(entries.size(), 1u);
  const std::string restore = "/trash/" + std::to_string(entries[0].id) + "/restore";
  EXPECT_NE(next.body.find("action=\"" + restore + "\""), std::string::npos) << next.body;
  EXPECT_TRUE(clears_flash(next)) << "shown once: the page clears it";

  // The trash lists it with what went with it.
  auto trash = ana.get("/trash");
  ASSERT_EQ(trash.status, 200);
  EXPECT_NE(trash.body.find("SRE"), std::string::npos);
  EXPECT_NE(trash.body.find("1 application, 3 reminders and " + std::to_string(events) +
                            " timeline entries"),
            std::string::npos)
      << trash.body;
  EXPECT_NE(trash.body.find("30 days left"), std::string::npos);
  EXPECT_EQ(person("ben@example.com").post_form(restore, {}).status, 404)
      << "another person's trash is not there for them";

  auto restored = ana.post_form(restore, {});
  ASSERT_EQ(restored.status, 303);
  EXPECT_EQ(restored.header("Location"), listing);
  EXPECT_EQ(flash_text(follow(ana, restored)).rfind("Restored the listing “SRE”", 0), 0u);
  EXPECT_EQ(count("listings"), 1);
  EXPECT_EQ(count("applications"), 1);
  EXPECT_EQ(count("reminders"), 3);
  EXPECT_EQ(count("application_events"), events);
  EXPECT_EQ(ana.get(app).status, 200) << "the application is back under its own address";
  EXPECT_NE(ana.get("/trash").body.find("The trash is empty."), std::string::npos);
}

TEST_P(TrashHttpTest, ARecordWithNothingOnItGoesAtOnceAndARefusedRestoreSaysWhy) {
  SignedInClient ana = person("ana@example.com");
  auto made = ana.post_form("/listings", {{"company", "Acme"}, {"role", "SRE"}});
  ASSERT_EQ(made.status, 303);
  const std::string listing = made.header("Location");
  const std::int64_t company = db().query("SELECT id FROM companies")[0].int_at(0);

  auto gone = ana.post_form(listing + "/delete", {});
  EXPECT_EQ(gone.status, 303) << "nothing else goes: no question";
  EXPECT_EQ(count("listings"), 0);
  auto asked = ana.post_form("/companies/" + std::to_string(company) + "/delete", {});
  EXPECT_EQ(asked.status, 303) << "its listing is in the trash already";
  ASSERT_EQ(count("companies"), 0);

  const auto entries = domain::Trash(db(), clock_).list(ana.account().id);
  ASSERT_EQ(entries.size(), 2u);
  const auto& listing_entry = entries[0].kind == "listings" ? entries[0] : entries[1];
  auto refused = ana.post_form("/trash/" + std::to_string(listing_entry.id) + "/restore", {});
  ASSERT_EQ(refused.status, 303);
  EXPECT_EQ(refused.header("Location"), "/trash");
  auto page = follow(ana, refused);
  EXPECT_NE(page.body.find("flash--error"), std::string::npos);
  EXPECT_EQ(flash_text(page), "Restore its company first: it is in the trash too.");
  EXPECT_EQ(count("listings"), 0);
}

TEST_P(TrashHttpTest, EveryChangeLeavesAMessageAndARefusedStatusSaysWhyByTheField) {
  SignedInClient ana = person("ana@example.com");
  auto made = ana.post_form("/companies", {{"name", "Acme"}});
  EXPECT_EQ(flash_text(follow(ana, made)), "Saved.");
  auto listing = ana.post_form("/listings", {{"company", "Acme"}, {"role", "SRE"}});
  auto applied = ana.post_form(listing.header("Location") + "/apply", {{"status", "applied"}});
  const std::string app = applied.header("Location");
  EXPECT_EQ(flash_text(follow(ana, applied)), "Saved.");

  auto refused =
      ana.post_form(app + "/status", {{"status", "screening"}, {"end_reason", "salary"}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_NE(refused.body.find("id=\"end-reason-error\""), std::string::npos) << refused.body;
  EXPECT_NE(refused.body.find("aria-describedby=\"end-reason-error\""), std::string::npos);
  auto moved = ana.post_form(app + "/status", {{"status", "screening"}});
  EXPECT_EQ(flash_text(follow(ana, moved)), "Saved.");
}

PETO_BOTH_BACKENDS(TrashHttpTest);

}  // namespace
}  // namespace peto::web
