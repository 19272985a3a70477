// DavClient against DavServer on loopback: listing, reading, conditional
// writes and deletes, sync-collection deltas and their fallbacks, and how
// failures are classed.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "sync/dav.h"
#include "tests/support/dav_server.h"

namespace peto::sync {
using namespace ::peto::net;
namespace {

using testing::DavServer;
using Kind = DavFailure::Kind;

class DavClientTest : public ::testing::Test {
 protected:
  DavClientTest() { server.expect_basic("ann", "s3cret pass"); }

  DavSettings settings(const std::string& path = "/dav/cal/") const {
    DavSettings s;
    s.url = server.url(path);
    s.username = "ann";
    s.password = "s3cret pass";
    s.allow_private = true;
    s.timeout = std::chrono::milliseconds(10'000);
    return s;
  }

  static std::vector<std::string> hrefs(const DavListing& l) {
    std::vector<std::string> out;
    for (const auto& m : l.members) out.push_back(m.href);
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::string etag_of(const DavListing& l, const std::string& href) {
    for (const auto& m : l.members)
      if (m.href == href) return m.etag;
    return "(absent)";
  }

  DavServer server;
  net::HttpClient http;
};

// The failure in `v` (a copy: `v` is often a temporary), or a marker.
template <typename T>
DavFailure failure_of(const T& v) {
  auto* f = std::get_if<DavFailure>(&v);
  return f ? *f : DavFailure{Kind::failed, -1, "(no failure)"};
}

std::string message_of(const std::optional<DavFailure>& f) { return f ? f->message : "none"; }

TEST_F(DavClientTest, ListsEveryMemberWithItsEtagAndTheSyncToken) {
  std::string a = server.put_member("/dav/cal/a.ics", "A");
  std::string b = server.put_member("/dav/cal/b.ics", "B");
  server.put_member("/dav/book/c.vcf", "C");
  DavClient dav(http, settings());

  auto got = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  const auto& listing = std::get<DavListing>(got);
  EXPECT_EQ(hrefs(listing), (std::vector<std::string>{"/dav/cal/a.ics", "/dav/cal/b.ics"}));
  EXPECT_EQ(etag_of(listing, "/dav/cal/a.ics"), a);
  EXPECT_EQ(etag_of(listing, "/dav/cal/b.ics"), b);
  EXPECT_EQ(a.front(), '"');  // kept with its quotes
  EXPECT_EQ(listing.sync_token, server.sync_token());
  EXPECT_TRUE(listing.removed.empty());

  auto sent = server.received().back();
  EXPECT_EQ(sent.method, "PROPFIND");
  EXPECT_EQ(sent.headers["depth"], "1");
  EXPECT_EQ(sent.headers["content-type"], "application/xml; charset=utf-8");
  EXPECT_NE(sent.body.find("getetag"), std::string::npos);
}

TEST_F(DavClientTest, ACollectionUrlWithoutItsSlashIsTheSameCollection) {
  server.put_member("/dav/book/c.vcf", "C");
  DavClient dav(http, settings("/dav/book"));
  EXPECT_EQ(dav.collection_path(), "/dav/book/");
  auto got = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  EXPECT_EQ(hrefs(std::get<DavListing>(got)), (std::vector<std::string>{"/dav/book/c.vcf"}));
}

TEST_F(DavClientTest, AbsoluteUrlHrefsBecomePaths) {
  server.put_member("/dav/cal/a.ics", "A");
  server.set_absolute_hrefs(true);
  DavClient dav(http, settings());
  auto got = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  EXPECT_EQ(hrefs(std::get<DavListing>(got)), (std::vector<std::string>{"/dav/cal/a.ics"}));
}

TEST_F(DavClientTest, AnAddressThatIsNotACollectionIsUnusable) {
  server.put_member("/dav/cal/a.ics", "A");
  DavClient dav(http, settings("/dav/cal/a.ics"));
  auto got = dav.list();
  EXPECT_EQ(failure_of(got).kind, Kind::unusable);
  DavClient nowhere(http, settings("/dav/none/"));
  EXPECT_EQ(failure_of(nowhere.list()).kind, Kind::unusable);
}

TEST_F(DavClientTest, GetsBodyAndEtag) {
  std::string etag = server.put_member("/dav/cal/a.ics", "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
  DavClient dav(http, settings());
  auto got = dav.get("/dav/cal/a.ics");
  ASSERT_TRUE(std::holds_alternative<DavBody>(got)) << failure_of(got).message;
  EXPECT_EQ(std::get<DavBody>(got).body, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
  EXPECT_EQ(std::get<DavBody>(got).etag, etag);

  auto gone = dav.get("/dav/cal/missing.ics");
  EXPECT_EQ(failure_of(gone).kind, Kind::not_found);
  EXPECT_EQ(failure_of(gone).status, 404);
}

TEST_F(DavClientTest, PutCreatesOnlyWhatIsNotThereAndUpdatesOnlyWhatWasRead) {
  DavClient dav(http, settings());
  const std::string href = dav.href_for("uid-1@peto", ".ics");
  EXPECT_EQ(href, "/dav/cal/uid-1@peto.ics");

  auto made = dav.put(href, "v1", "text/calendar; charset=utf-8", "");
  ASSERT_TRUE(std::holds_alternative<std::string>(made)) << failure_of(made).message;
  auto stored = server.member("/dav/cal/uid-1@peto.ics");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->body, "v1");
  EXPECT_EQ(std::get<std::string>(made), stored->etag);
  auto sent = server.received().back();
  EXPECT_EQ(sent.headers["if-none-match"], "*");
  EXPECT_EQ(sent.headers["content-type"], "text/calendar; charset=utf-8");

  // Creating it again loses: it is there now.
  auto again = dav.put(href, "v1bis", "text/calendar; charset=utf-8", "");
  EXPECT_EQ(failure_of(again).kind, Kind::precondition);
  EXPECT_EQ(failure_of(again).status, 412);
  EXPECT_EQ(server.member("/dav/cal/uid-1@peto.ics")->body, "v1");

  // An update with the ETag read.
  auto updated = dav.put(href, "v2", "text/calendar; charset=utf-8", std::get<std::string>(made));
  ASSERT_TRUE(std::holds_alternative<std::string>(updated)) << failure_of(updated).message;
  EXPECT_EQ(server.received().back().headers["if-match"], std::get<std::string>(made));
  EXPECT_NE(std::get<std::string>(updated), std::get<std::string>(made));
  EXPECT_EQ(server.member("/dav/cal/uid-1@peto.ics")->body, "v2");

  // The other side changed it since: a stale ETag loses.
  server.put_member("/dav/cal/uid-1@peto.ics", "theirs");
  auto stale = dav.put(href, "v3", "text/calendar; charset=utf-8", std::get<std::string>(updated));
  EXPECT_EQ(failure_of(stale).kind, Kind::precondition);
  EXPECT_EQ(server.member("/dav/cal/uid-1@peto.ics")->body, "theirs");
}

TEST_F(DavClientTest, RemovesWithTheEtagReadAndAMissingMemberIsASuccess) {
  std::string etag = server.put_member("/dav/cal/a.ics", "A");
  server.put_member("/dav/cal/b.ics", "B");
  DavClient dav(http, settings());

  auto stale = dav.remove("/dav/cal/a.ics", "\"stale\"");
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->kind, Kind::precondition);
  EXPECT_TRUE(server.member("/dav/cal/a.ics"));

  auto removed = dav.remove("/dav/cal/a.ics", etag);
  EXPECT_FALSE(removed) << message_of(removed);
  EXPECT_EQ(server.received().back().headers["if-match"], etag);
  EXPECT_FALSE(server.member("/dav/cal/a.ics"));
  EXPECT_FALSE(dav.remove("/dav/cal/a.ics", etag));  // already gone: 404, a success
  EXPECT_FALSE(dav.remove("/dav/cal/b.ics", ""));    // unconditional
  EXPECT_TRUE(server.members("/dav/cal/").empty());
  EXPECT_EQ(server.count("DELETE"), 4u);
}

TEST_F(DavClientTest, SyncCollectionGivesChangesAndDeletionsSinceAToken) {
  server.put_member("/dav/cal/keep.ics", "K");
  server.put_member("/dav/cal/change.ics", "C1");
  server.put_member("/dav/cal/drop.ics", "D");
  DavClient dav(http, settings());
  auto first = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(first)) << failure_of(first).message;
  const std::string token = std::get<DavListing>(first).sync_token;
  ASSERT_FALSE(token.empty());

  std::string changed = server.put_member("/dav/cal/change.ics", "C2");
  std::string added = server.put_member("/dav/cal/new.ics", "N");
  server.delete_member("/dav/cal/drop.ics");
  server.put_member("/dav/book/other.vcf", "elsewhere");

  auto delta = dav.changes_since(token);
  ASSERT_TRUE(delta);
  ASSERT_TRUE(std::holds_alternative<DavListing>(*delta)) << failure_of(*delta).message;
  const auto& d = std::get<DavListing>(*delta);
  EXPECT_EQ(hrefs(d), (std::vector<std::string>{"/dav/cal/change.ics", "/dav/cal/new.ics"}));
  EXPECT_EQ(etag_of(d, "/dav/cal/change.ics"), changed);
  EXPECT_EQ(etag_of(d, "/dav/cal/new.ics"), added);
  EXPECT_EQ(d.removed, (std::vector<std::string>{"/dav/cal/drop.ics"}));
  EXPECT_EQ(d.sync_token, server.sync_token());
  EXPECT_NE(d.sync_token, token);

  auto sent = server.received().back();
  EXPECT_EQ(sent.method, "REPORT");
  EXPECT_EQ(sent.headers["depth"], "0");  // RFC 6578 §3.2
  EXPECT_NE(sent.body.find(token), std::string::npos);

  // Nothing since the new token.
  auto none = dav.changes_since(d.sync_token);
  ASSERT_TRUE(none && std::holds_alternative<DavListing>(*none));
  EXPECT_TRUE(std::get<DavListing>(*none).members.empty());
  EXPECT_TRUE(std::get<DavListing>(*none).removed.empty());
}

TEST_F(DavClientTest, TruncatedSyncAnswersAreFollowedToTheEnd) {
  server.put_member("/dav/cal/a.ics", "A");
  server.put_member("/dav/cal/b.ics", "B");
  DavClient dav(http, settings());
  auto first = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(first));
  const std::string token = std::get<DavListing>(first).sync_token;

  server.put_member("/dav/cal/c.ics", "C");
  server.put_member("/dav/cal/a.ics", "A2");
  server.delete_member("/dav/cal/b.ics");
  server.put_member("/dav/cal/d.ics", "D");
  std::string last = server.put_member("/dav/cal/a.ics", "A3");  // a second change, later page
  server.set_sync_page(2);

  auto delta = dav.changes_since(token);
  ASSERT_TRUE(delta);
  ASSERT_TRUE(std::holds_alternative<DavListing>(*delta)) << failure_of(*delta).message;
  const auto& d = std::get<DavListing>(*delta);
  EXPECT_EQ(hrefs(d),
            (std::vector<std::string>{"/dav/cal/a.ics", "/dav/cal/c.ics", "/dav/cal/d.ics"}));
  EXPECT_EQ(etag_of(d, "/dav/cal/a.ics"), last);
  EXPECT_EQ(d.removed, (std::vector<std::string>{"/dav/cal/b.ics"}));
  EXPECT_EQ(d.sync_token, server.sync_token());
  EXPECT_EQ(server.count("REPORT"), 2u);  // c, b removed | d, a (a's first change is gone)
}

TEST_F(DavClientTest, NoSyncSupportOrARefusedTokenMeansAFullListing) {
  server.put_member("/dav/cal/a.ics", "A");
  DavClient dav(http, settings());
  EXPECT_FALSE(dav.changes_since(""));  // no token: nothing asked
  EXPECT_EQ(server.count("REPORT"), 0u);

  auto listing = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(listing));
  const std::string token = std::get<DavListing>(listing).sync_token;

  server.forget_history();  // the token is no longer valid: 403 valid-sync-token
  EXPECT_FALSE(dav.changes_since(token));
  EXPECT_EQ(server.count("REPORT"), 1u);

  server.set_sync_support(false);  // REPORT → 501; PROPFIND without a token
  EXPECT_FALSE(dav.changes_since(token));
  auto plain = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(plain));
  EXPECT_EQ(std::get<DavListing>(plain).sync_token, "");
  EXPECT_EQ(hrefs(std::get<DavListing>(plain)), (std::vector<std::string>{"/dav/cal/a.ics"}));

  // A 207 without a sync-token is no sync answer either.
  server.set_status(207, "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\"></d:multistatus>");
  EXPECT_FALSE(dav.changes_since(token));
}

TEST_F(DavClientTest, RefusedCredentialsMakeTheConnectionUnusable) {
  server.put_member("/dav/cal/a.ics", "A");
  auto wrong = settings();
  wrong.password = "nope";
  DavClient dav(http, wrong);
  EXPECT_EQ(failure_of(dav.list()).kind, Kind::unusable);
  EXPECT_EQ(failure_of(dav.list()).status, 401);
  auto delta = dav.changes_since("http://peto.test/sync/1");
  ASSERT_TRUE(delta);
  EXPECT_EQ(failure_of(*delta).kind, Kind::unusable);
  EXPECT_EQ(failure_of(dav.get("/dav/cal/a.ics")).kind, Kind::unusable);
  EXPECT_EQ(failure_of(dav.put("/dav/cal/b.ics", "B", "text/calendar", "")).kind, Kind::unusable);
  auto removed = dav.remove("/dav/cal/a.ics", "");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->kind, Kind::unusable);
  EXPECT_TRUE(server.member("/dav/cal/a.ics"));
  for (const auto& f : {failure_of(dav.list()).message})
    EXPECT_EQ(f.find("nope"), std::string::npos) << f;

  // The right credentials travel as HTTP Basic.
  DavClient right(http, settings());
  EXPECT_TRUE(std::holds_alternative<DavListing>(right.list()));
  EXPECT_EQ(server.received().back().headers["authorization"], "Basic YW5uOnMzY3JldCBwYXNz");
}

TEST_F(DavClientTest, AServerErrorIsAFailureWorthRetrying) {
  server.set_status(500);
  DavClient dav(http, settings());
  const auto& f = failure_of(dav.list());
  EXPECT_EQ(f.kind, Kind::failed);
  EXPECT_EQ(f.status, 500);
  EXPECT_EQ(f.message, "127.0.0.1 answered 500.");
  auto delta = dav.changes_since("http://peto.test/sync/0");
  ASSERT_TRUE(delta);
  EXPECT_EQ(failure_of(*delta).kind, Kind::failed);
  EXPECT_EQ(failure_of(dav.get("/dav/cal/a.ics")).kind, Kind::failed);
  EXPECT_EQ(failure_of(dav.put("/dav/cal/a.ics", "A", "text/calendar", "")).kind, Kind::failed);
  ASSERT_TRUE(dav.remove("/dav/cal/a.ics", ""));
  EXPECT_EQ(dav.remove("/dav/cal/a.ics", "")->kind, Kind::failed);
}

TEST_F(DavClientTest, AnItemTheServerRefusesIsNotARefusedConnection) {
  DavClient dav(http, settings());
  // CalDAV's way to refuse one item: 403 with the precondition it breaks.
  server.set_status(403,
                    "<?xml version=\"1.0\"?><D:error xmlns:D=\"DAV:\" "
                    "xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:valid-calendar-data/></D:error>");
  auto item = failure_of(dav.put("/dav/cal/a.ics", "junk", "text/calendar", ""));
  EXPECT_EQ(item.kind, Kind::failed);
  EXPECT_EQ(item.status, 403);
  EXPECT_NE(item.message.find("valid-calendar-data"), std::string::npos) << item.message;
  EXPECT_EQ(failure_of(dav.get("/dav/cal/a.ics")).kind, Kind::failed);
  ASSERT_TRUE(dav.remove("/dav/cal/a.ics", "\"1\""));
  EXPECT_EQ(dav.remove("/dav/cal/a.ics", "\"1\"")->kind, Kind::failed);

  // A bare 403 on one member refuses that member too (read-only, another
  // owner's), never the whole connection.
  server.set_status(403);
  auto bare = failure_of(dav.put("/dav/cal/a.ics", "x", "text/calendar", ""));
  EXPECT_EQ(bare.kind, Kind::failed);
  EXPECT_EQ(bare.status, 403);
  EXPECT_EQ(bare.message, "127.0.0.1 refused the item (403).");
  EXPECT_EQ(failure_of(dav.get("/dav/cal/a.ics")).kind, Kind::failed);
  ASSERT_TRUE(dav.remove("/dav/cal/a.ics", ""));
  EXPECT_EQ(dav.remove("/dav/cal/a.ics", "")->kind, Kind::failed);

  // On the collection itself, 403 is the connection's.
  EXPECT_EQ(failure_of(dav.list()).kind, Kind::unusable);
  auto delta = dav.changes_since("http://peto.test/sync/0");
  ASSERT_TRUE(delta);
  EXPECT_EQ(failure_of(*delta).kind, Kind::unusable);
}

TEST_F(DavClientTest, AListingCutShortIsAFailureNotAListing) {
  // RFC 6578 §3.6's way to say "there is more": 507 on the collection's own
  // response. A member missing from a full listing reads as deleted, so a
  // partial one must not pass as full.
  server.set_status(
      207,
      "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\">"
      "<d:response><d:href>/dav/cal/</d:href><d:propstat><d:prop><d:resourcetype>"
      "<d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status>"
      "</d:propstat></d:response>"
      "<d:response><d:href>/dav/cal/a.ics</d:href><d:propstat><d:prop><d:getetag>\"1\""
      "</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
      "<d:response><d:href>/dav/cal/</d:href>"
      "<d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response>"
      "</d:multistatus>");
  DavClient dav(http, settings());
  auto f = failure_of(dav.list());
  EXPECT_EQ(f.kind, Kind::failed);
  EXPECT_EQ(f.status, 507);
  EXPECT_NE(f.message.find("listing was cut short"), std::string::npos) << f.message;
}

TEST_F(DavClientTest, AListingThatDoesNotNameTheCollectionIsUnusable) {
  // The server writes its paths under another prefix than the address typed
  // in: none of its answers names "/dav/cal/", so every member would look
  // new and every linked one deleted.
  const std::string members =
      "<d:response><d:href>/dav/cal/a.ics</d:href><d:propstat><d:prop><d:getetag>\"1\""
      "</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>";
  server.set_status(207,
                    "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\">"
                    "<d:response><d:href>/remote.php/dav/cal/</d:href><d:propstat><d:prop>"
                    "<d:resourcetype><d:collection/></d:resourcetype></d:prop>"
                    "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>" +
                        members + "</d:multistatus>");
  DavClient dav(http, settings());
  auto f = failure_of(dav.list());
  EXPECT_EQ(f.kind, Kind::unusable);
  EXPECT_NE(f.message.find("collection"), std::string::npos) << f.message;

  // Named with its escapes written otherwise ("%63al" is "cal"), it is the same
  // collection.
  server.set_status(207,
                    "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\">"
                    "<d:response><d:href>/dav/%63al</d:href><d:propstat><d:prop>"
                    "<d:resourcetype><d:collection/></d:resourcetype></d:prop>"
                    "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>" +
                        members + "</d:multistatus>");
  auto got = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  EXPECT_EQ(hrefs(std::get<DavListing>(got)), (std::vector<std::string>{"/dav/cal/a.ics"}));
}

TEST_F(DavClientTest, HrefsOutsideTheCollectionAreIgnored) {
  // A server cannot make peto read, write or delete elsewhere with the
  // person's credentials: only entries directly inside the collection count.
  auto member = [](const std::string& href) {
    return "<d:response><d:href>" + href +
           "</d:href><d:propstat><d:prop><d:getetag>\"1\"</d:getetag></d:prop>"
           "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>";
  };
  auto gone = [](const std::string& href) {
    return "<d:response><d:href>" + href +
           "</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>";
  };
  const std::string outside[] = {"/dav/book/c.vcf",
                                 "/admin/users",
                                 "../book/d.vcf",
                                 "/dav/cal/../book/e.vcf",
                                 "/dav/cal/%2E%2E",
                                 "/dav/cal/..%2Fbook%2Ff.vcf",
                                 "/dav/cal/..%5Cbook%5Cg.vcf",
                                 "/dav/cal/sub/h.ics",
                                 "//dav/cal/i.ics",
                                 "/dav/calendar/j.ics",
                                 "/dav/cal/%zz.ics"};
  std::string listing =
      "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\">"
      "<d:response><d:href>/dav/cal/</d:href><d:propstat><d:prop><d:resourcetype>"
      "<d:collection/></d:resourcetype><d:sync-token>tok-1</d:sync-token></d:prop>"
      "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>";
  std::string changes = "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\">";
  for (const auto& h : outside) {
    listing += member(h);
    changes += member(h) + gone(h);
  }
  listing += member("/dav/cal/a.ics") + member("http://elsewhere.example/dav/cal/b.ics") +
             member("/dav/%63al/c.ics") + "</d:multistatus>";
  changes += member("/dav/cal/a.ics") + gone("/dav/cal/z.ics") +
             "<d:sync-token>tok-2</d:sync-token></d:multistatus>";

  DavClient dav(http, settings());
  server.set_status(207, listing);
  auto got = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  // An absolute URL keeps only its path: peto asks its own server for it.
  EXPECT_EQ(hrefs(std::get<DavListing>(got)),
            (std::vector<std::string>{"/dav/%63al/c.ics", "/dav/cal/a.ics", "/dav/cal/b.ics"}));

  server.set_status(207, changes);
  auto delta = dav.changes_since("tok-1");
  ASSERT_TRUE(delta);
  ASSERT_TRUE(std::holds_alternative<DavListing>(*delta)) << failure_of(*delta).message;
  EXPECT_EQ(hrefs(std::get<DavListing>(*delta)), (std::vector<std::string>{"/dav/cal/a.ics"}));
  EXPECT_EQ(std::get<DavListing>(*delta).removed, (std::vector<std::string>{"/dav/cal/z.ics"}));
}

TEST_F(DavClientTest, APrivateAddressIsRefusedWithoutARequest) {
  auto s = settings();
  s.allow_private = false;
  DavClient dav(http, s);
  const auto& f = failure_of(dav.list());
  EXPECT_EQ(f.kind, Kind::unusable);
  EXPECT_EQ(f.status, 0);
  EXPECT_FALSE(f.message.empty());
  EXPECT_TRUE(server.received().empty());
}

TEST_F(DavClientTest, AnUnansweredRequestRunsOutOfTime) {
  auto s = settings();
  s.timeout = std::chrono::milliseconds(300);
  DavClient dav(http, s);
  server.hold();
  const auto f = failure_of(dav.list());
  EXPECT_TRUE(server.wait_held(1));
  server.release();
  EXPECT_EQ(f.kind, Kind::failed);
  EXPECT_EQ(f.status, 0);
}

TEST_F(DavClientTest, HeldRequestsGoOnWhenReleased) {
  server.put_member("/dav/cal/a.ics", "A");
  DavClient dav(http, settings());
  server.hold();
  std::variant<DavListing, DavFailure> got = DavFailure{};
  std::thread t([&] { got = dav.list(); });
  ASSERT_TRUE(server.wait_held(1));
  server.release();
  t.join();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  EXPECT_EQ(std::get<DavListing>(got).members.size(), 1u);
}

TEST_F(DavClientTest, HrefsWithSpacesAndEscapesRoundTrip) {
  DavClient dav(http, settings());
  const std::string href = dav.href_for("a b%c+é", ".ics");
  EXPECT_EQ(href, "/dav/cal/a%20b%25c%2B%C3%A9.ics");
  auto made = dav.put(href, "odd", "text/calendar", "");
  ASSERT_TRUE(std::holds_alternative<std::string>(made)) << failure_of(made).message;
  EXPECT_TRUE(server.member("/dav/cal/a b%c+é.ics"));

  auto listing = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(listing));
  ASSERT_EQ(std::get<DavListing>(listing).members.size(), 1u);
  const std::string listed = std::get<DavListing>(listing).members[0].href;
  EXPECT_EQ(listed, href);
  auto got = dav.get(listed);
  ASSERT_TRUE(std::holds_alternative<DavBody>(got)) << failure_of(got).message;
  EXPECT_EQ(std::get<DavBody>(got).body, "odd");
  EXPECT_FALSE(dav.remove(listed, std::get<DavBody>(got).etag));
  EXPECT_TRUE(server.members("/dav/cal/").empty());
}

TEST_F(DavClientTest, HostileXmlIsRefusedCleanly) {
  DavClient dav(http, settings());
  const std::string laughs =
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE d:multistatus [\n"
      " <!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">\n"
      " <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
      " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
      " <!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
      "]>\n"
      "<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>/dav/cal/&d;.ics</d:href>"
      "<d:propstat><d:prop><d:getetag>&d;</d:getetag></d:prop>"
      "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
      "<d:sync-token>&d;</d:sync-token></d:multistatus>";
  server.set_status(207, laughs);
  const auto& f = failure_of(dav.list());
  EXPECT_EQ(f.kind, Kind::failed);
  EXPECT_EQ(f.status, 207);
  EXPECT_NE(f.message.find("127.0.0.1"), std::string::npos);
  auto delta = dav.changes_since("http://peto.test/sync/0");
  ASSERT_TRUE(delta);
  EXPECT_EQ(failure_of(*delta).kind, Kind::failed);

  // An external entity, and a document that is not XML at all.
  server.set_status(207,
                    "<?xml version=\"1.0\"?><!DOCTYPE x SYSTEM \"file:///etc/passwd\">"
                    "<d:multistatus xmlns:d=\"DAV:\"/>");
  EXPECT_EQ(failure_of(dav.list()).kind, Kind::failed);
  server.set_status(207, "<d:multistatus xmlns:d=\"DAV:\"><d:response>");
  EXPECT_EQ(failure_of(dav.list()).kind, Kind::failed);
  // Another root element.
  server.set_status(207, "<html><body>hello</body></html>");
  EXPECT_EQ(failure_of(dav.list()).kind, Kind::failed);
}

TEST_F(DavClientTest, AnAnswerLargerThanTheCapFails) {
  for (int i = 0; i < 50; ++i)
    server.put_member("/dav/cal/member-" + std::to_string(i) + ".ics", "x");
  auto s = settings();
  s.max_bytes = 2000;
  DavClient dav(http, s);
  EXPECT_EQ(failure_of(dav.list()).kind, Kind::failed);
}

TEST_F(DavClientTest, OtherPrefixesAndNamespacesAreRead) {
  // Any prefix for DAV:, and a foreign element called "getetag" ignored.
  server.set_status(
      207,
      "<?xml version=\"1.0\"?><X:multistatus xmlns:X=\"DAV:\" xmlns:o=\"urn:other\">"
      "<X:response><X:href>/dav/cal/</X:href><X:propstat><X:prop><X:resourcetype>"
      "<X:collection/></X:resourcetype><X:sync-token>tok-1</X:sync-token></X:prop>"
      "<X:status>HTTP/1.1 200 OK</X:status></X:propstat></X:response>"
      "<X:response><X:href>a.ics</X:href><X:propstat><X:prop><o:getetag>\"no\"</o:getetag>"
      "<X:getetag>\"yes\"</X:getetag></X:prop><X:status>HTTP/1.1 200 OK</X:status></X:propstat>"
      "</X:response>"
      "<X:response><X:href>/dav/cal/sub/</X:href><X:propstat><X:prop><X:resourcetype>"
      "<X:collection/></X:resourcetype></X:prop><X:status>HTTP/1.1 200 OK</X:status>"
      "</X:propstat></X:response></X:multistatus>");
  DavClient dav(http, settings());
  auto got = dav.list();
  ASSERT_TRUE(std::holds_alternative<DavListing>(got)) << failure_of(got).message;
  const auto& l = std::get<DavListing>(got);
  EXPECT_EQ(hrefs(l), (std::vector<std::string>{"/dav/cal/a.ics"}));
  EXPECT_EQ(etag_of(l, "/dav/cal/a.ics"), "\"yes\"");
  EXPECT_EQ(l.sync_token, "tok-1");
}

}  // namespace
}  // namespace peto::sync
