// /documents over real HTTP: an upload streamed as multipart/form-data is
// stored with its checksum; too large is 413 and refused types are 422 with
// a message, both with nothing written anywhere; downloads are attachments
// with nosniff and the sniffed type; somebody else's document is the 404
// page for the page and the file; "Record as sent" lands on the timeline.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "domain/applications.h"
#include "domain/records.h"
#include "media/documents.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"
#include "tests/support/web_server.h"

namespace peto {
namespace {

namespace fs = std::filesystem;
using testing::ClientResponse;
using testing::FormFields;
using testing::SignedInClient;

const std::string kPdf = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n";
constexpr const char* kBoundary = "----petoTestBoundary7MA4YWxkTrZu0gW";

// The header of a multipart POST of `length` bytes, sent before its body.
std::string upload_header(const std::string& path, std::size_t length,
                          const std::string& cookie = {}, bool expect_continue = false) {
  std::string out =
      "POST " + path +
      " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=" + kBoundary +
      "\r\nContent-Length: " + std::to_string(length) + "\r\n";
  if (!cookie.empty()) out += "Cookie: peto_session=" + cookie + "\r\n";
  if (expect_continue) out += "Expect: 100-continue\r\n";
  return out + "\r\n";
}

// The permission bits of `p`.
unsigned mode_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

// A multipart/form-data body: text fields, then the file part "file".
std::string multipart(const FormFields& fields, const std::string& filename,
                      const std::string& content, const std::string& type = "application/pdf") {
  std::string out;
  for (const auto& [name, value] : fields)
    out += std::string("--") + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + name +
           "\"\r\n\r\n" + value + "\r\n";
  out += std::string("--") + kBoundary +
         "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename +
         "\"\r\nContent-Type: " + type + "\r\n\r\n" + content + "\r\n";
  out += std::string("--") + kBoundary + "--\r\n";
  return out;
}

class DocumentsWebTest : public testing::SiteTest {
 protected:
  DocumentsWebTest() { config_.upload_max_mb = 1; }

  ClientResponse upload(const SignedInClient& c, const std::string& path, FormFields fields,
                        const std::string& filename, const std::string& content,
                        bool with_csrf = true) {
    if (with_csrf) fields.insert(fields.begin(), {"csrf", c.csrf()});
    return c.request("POST", path, multipart(fields, filename, content),
                     {{"Content-Type", std::string("multipart/form-data; boundary=") + kBoundary}});
  }
  // Every file in the data folder's media and tmp folders.
  std::vector<std::string> files_written() {
    std::vector<std::string> out;
    for (const char* sub : {"media", "tmp"}) {
      fs::path p = fs::path(config_.data_dir) / sub;
      if (!fs::exists(p)) continue;
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) out.push_back(e.path().string());
    }
    return out;
  }
  std::int64_t id_from(const ClientResponse& r) {
    std::smatch m;
    std::string loc = r.header("Location");
    EXPECT_TRUE(std::regex_search(loc, m, std::regex("^/documents/([0-9]+)"))) << loc;
    return m.empty() ? 0 : std::stoll(m[1]);
  }
};

TEST_P(DocumentsWebTest, AnUploadIsStoredAndServedOnlyAsAnAttachment) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  auto form = ana.get("/documents/new");
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("enctype=\"multipart/form-data\""), std::string::npos);

  auto r = upload(ana, "/documents/new", {{"title", "CV (en)"}, {"kind", "cv"}, {"language", "en"}},
                  "Åsa CV.pdf", kPdf);
  ASSERT_EQ(r.status, 303) << r.body;
  std::int64_t id = id_from(r);
  auto row = db().query("SELECT title, kind, size, sha256, content_type, file FROM uploads");
  ASSERT_EQ(row.size(), 1u);
  EXPECT_EQ(row[0].text(0), "CV (en)");
  EXPECT_EQ(row[0].text(1), "cv");
  EXPECT_EQ(row[0].int_at(2), static_cast<std::int64_t>(kPdf.size()));
  EXPECT_EQ(row[0].text(4), "application/pdf");
  EXPECT_EQ(files_written(), std::vector<std::string>{config_.media_dir() + "/" + row[0].text(5)})
      << "the spooled body is gone; only the document is left";

  auto page = ana.get("/documents/" + std::to_string(id));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find(row[0].text(3)), std::string::npos) << "the checksum is shown";
  EXPECT_NE(ana.get("/documents").body.find("CV (en)"), std::string::npos);

  auto file = ana.get("/documents/" + std::to_string(id) + "/file");
  ASSERT_EQ(file.status, 200);
  EXPECT_EQ(file.body, kPdf);
  EXPECT_EQ(file.header("Content-Type"), "application/pdf");
  EXPECT_EQ(file.header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(file.header("Content-Disposition"),
            "attachment; filename=\"__sa CV.pdf\"; filename*=UTF-8''%C3%85sa%20CV.pdf");
  EXPECT_EQ(file.header("Cache-Control"), "no-store");

  // HEAD: the same headers and length, no body; the connection stays usable.
  testing::TestConnection conn(port());
  conn.send_raw("HEAD /documents/" + std::to_string(id) +
                "/file HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: peto_session=" + ana.cookie() +
                "\r\n\r\n");
  auto head = conn.read_response(true);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), std::to_string(kPdf.size()));
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(conn.request("GET", "/healthz").status, 200);
}

TEST_P(DocumentsWebTest, SomebodyElsesDocumentIsTheNotFoundPageAndFile) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  auto ben = SignedInClient::with_session(port(), site_->accounts(), "ben@example.com");
  auto r = upload(ana, "/documents/new", {{"title", "Mine"}}, "cv.pdf", kPdf);
  ASSERT_EQ(r.status, 303);
  std::string base = "/documents/" + std::to_string(id_from(r));
  EXPECT_EQ(ben.get(base).status, 404);
  auto file = ben.get(base + "/file");
  EXPECT_EQ(file.status, 404);
  EXPECT_EQ(file.body.find("%PDF"), std::string::npos);
  EXPECT_EQ(ben.post_form(base + "/delete", {}).status, 404);
  EXPECT_EQ(upload(ben, base + "/versions", {}, "cv.pdf", kPdf).status, 404);
  EXPECT_EQ(ben.get("/documents").body.find("Mine"), std::string::npos);
  EXPECT_EQ(count("uploads"), 1);
  EXPECT_EQ(ana.get(base + "/file").status, 200);
}

TEST_P(DocumentsWebTest, TooLargeIs413AndNothingIsWritten) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  // Over the limit and the envelope's margin: refused as the body arrives.
  auto huge = upload(ana, "/documents/new", {{"title", "Big"}}, "big.pdf",
                     kPdf + std::string((1 << 20) + 400 * 1024, ' '));
  EXPECT_EQ(huge.status, 413);
  EXPECT_NE(huge.body.find("1 MB"), std::string::npos) << huge.body;
  // Over the limit but inside the margin: refused by the file's own limit.
  auto over = upload(ana, "/documents/new", {{"title", "Big"}}, "big.pdf",
                     kPdf + std::string((1 << 20) + 1024, ' '));
  EXPECT_EQ(over.status, 413);
  EXPECT_NE(over.body.find("larger than"), std::string::npos);
  EXPECT_EQ(count("uploads"), 0);
  EXPECT_EQ(files_written(), std::vector<std::string>{});
}

TEST_P(DocumentsWebTest, AnAnonymousUploadIsRefusedBeforeItsBodyIsRead) {
  // Only the header and a little of the body are sent: the answer must not
  // wait for the rest, and nothing is spooled.
  for (const std::string cookie : {"", "not-a-live-session"}) {
    testing::TestConnection conn(port());
    conn.send_raw(upload_header("/documents/new", 900 * 1024, cookie) + "--" + kBoundary + "\r\n");
    auto r = conn.read_response();
    EXPECT_EQ(r.status, 303) << r.body;
    EXPECT_EQ(r.header("Location").rfind("/signin", 0), 0u) << r.header("Location");
    EXPECT_EQ(r.header("Connection"), "close");
  }
  EXPECT_FALSE(fs::exists(fs::path(config_.data_dir) / "tmp")) << "nothing was spooled";
  EXPECT_EQ(count("uploads"), 0);
}

TEST_P(DocumentsWebTest, SpooledUploadsArePrivateToTheServer) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  fs::path tmp = fs::path(config_.data_dir) / "tmp";
  fs::create_directories(tmp);
  fs::permissions(tmp, fs::perms::all);  // as an older peto may have left it
  testing::TestConnection conn(port());
  std::string body = multipart({{"csrf", ana.csrf()}, {"title", "CV"}}, "cv.pdf", kPdf);
  conn.send_raw(upload_header("/documents/new", body.size(), ana.cookie(), true));
  ASSERT_EQ(conn.read_response().status, 100);
  // The body file is open now, its body not sent yet.
  EXPECT_EQ(mode_of(tmp), 0700u);
  std::vector<fs::path> spooled;
  for (const auto& e : fs::directory_iterator(tmp)) spooled.push_back(e.path());
  ASSERT_EQ(spooled.size(), 1u);
  EXPECT_EQ(mode_of(spooled[0]), 0600u);
  conn.send_raw(body);
  EXPECT_EQ(conn.read_response().status, 303);
  EXPECT_FALSE(fs::exists(spooled[0]));
}

TEST_P(DocumentsWebTest, UploadsInFlightAreCappedServerWide) {
  // A server of its own: one streamed route taking 1000 bytes, so four
  // uploads fill the budget.
  web::Router router;
  router.add_streamed(
      "POST", "/up", [](web::Request&) { return web::Response::text(200, "ok\n"); },
      web::Spool{(dir() / "capped").string(), 1000, "too large"});
  testing::WebServer server(router);
  std::vector<std::unique_ptr<testing::TestConnection>> open;
  for (int i = 0; i < 4; ++i) {
    open.push_back(std::make_unique<testing::TestConnection>(server.port()));
    open.back()->send_raw(upload_header("/up", 1000, {}, true));
    ASSERT_EQ(open.back()->read_response().status, 100) << i;
  }
  testing::TestConnection fifth(server.port());
  fifth.send_raw(upload_header("/up", 10, {}, true));
  auto busy = fifth.read_response();
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.header("Retry-After"), "60");
  // One finishes: its share is free again.
  open[0]->send_raw(std::string(1000, 'x'));
  EXPECT_EQ(open[0]->read_response().status, 200);
  testing::TestConnection sixth(server.port());
  sixth.send_raw(upload_header("/up", 10, {}, true));
  EXPECT_EQ(sixth.read_response().status, 100);
}

TEST_P(DocumentsWebTest, OneAccountSendsOneUploadAtATime) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  auto ben = SignedInClient::with_session(port(), site_->accounts(), "ben@example.com");
  std::string body = multipart({{"csrf", ana.csrf()}, {"title", "CV"}}, "cv.pdf", kPdf);
  testing::TestConnection first(port());
  first.send_raw(upload_header("/documents/new", body.size(), ana.cookie(), true));
  ASSERT_EQ(first.read_response().status, 100);

  // While it is being received, a second of Ana's (to any streamed route) waits.
  for (const char* path : {"/documents/new", "/profile/import"}) {
    testing::TestConnection second(port());
    second.send_raw(upload_header(path, 1000, ana.cookie(), true));
    auto busy = second.read_response();
    EXPECT_EQ(busy.status, 429) << path << busy.body;
    EXPECT_EQ(busy.header("Retry-After"), "60");
    EXPECT_EQ(busy.header("Connection"), "close");
  }
  // Ben's is not held up by hers.
  testing::TestConnection bens(port());
  bens.send_raw(upload_header("/documents/new", 1000, ben.cookie(), true));
  EXPECT_EQ(bens.read_response().status, 100);

  first.send_raw(body);
  EXPECT_EQ(first.read_response().status, 303);
  // Hers is done: the next one goes.
  testing::TestConnection next(port());
  next.send_raw(upload_header("/documents/new", body.size(), ana.cookie(), true));
  EXPECT_EQ(next.read_response().status, 100);
}

TEST_P(DocumentsWebTest, RefusedTypesAndMissingCsrfWriteNothing) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  auto html = upload(ana, "/documents/new", {{"title", "Page"}}, "cv.pdf",
                     "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>");
  EXPECT_EQ(html.status, 422);
  EXPECT_NE(html.body.find("This kind of file is not accepted"), std::string::npos);
  EXPECT_NE(html.body.find("value=\"Page\""), std::string::npos) << "what was typed is kept";
  auto elf = upload(ana, "/documents/new", {}, "cv.pdf",
                    std::string("\x7f"
                                "ELF\x02\x01\x01",
                                7) +
                        std::string(200, '\0'));
  EXPECT_EQ(elf.status, 422);
  auto no_file = upload(ana, "/documents/new", {{"title", "x"}}, "", "");
  EXPECT_EQ(no_file.status, 422);
  EXPECT_NE(no_file.body.find("Choose a file"), std::string::npos);
  auto forged = upload(ana, "/documents/new", {{"title", "x"}}, "cv.pdf", kPdf, false);
  EXPECT_EQ(forged.status, 403);
  EXPECT_EQ(count("uploads"), 0);
  EXPECT_EQ(files_written(), std::vector<std::string>{});
}

TEST_P(DocumentsWebTest, VersionsAndRecordAsSentOnTheApplicationPage) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  domain::Records records(db(), clock_);
  domain::Input c;
  c.values = {{"name", "Acme"}};
  auto company =
      std::get<domain::Record>(records.create(ana.account().id, domain::kind("companies"), c));
  domain::Input l;
  l.values = {{"role", "Backend engineer"},
              {"company_id", std::to_string(company["id"].get<std::int64_t>())}};
  auto listing =
      std::get<domain::Record>(records.create(ana.account().id, domain::kind("listings"), l));
  domain::Applications apps(records);
  std::int64_t app = std::get<domain::Record>(
                         apps.apply(ana.account().id, listing["id"].get<std::int64_t>()))["id"]
                         .get<std::int64_t>();

  auto preselected = ana.get("/documents/new?application=" + std::to_string(app));
  EXPECT_NE(preselected.body.find("value=\"application:" + std::to_string(app) + "\" selected"),
            std::string::npos);
  auto r =
      upload(ana, "/documents/new",
             {{"title", "CV"}, {"kind", "cv"}, {"subject", "application:" + std::to_string(app)}},
             "cv.pdf", kPdf);
  ASSERT_EQ(r.status, 303) << r.body;
  std::int64_t v1 = id_from(r);
  auto v2r =
      upload(ana, "/documents/" + std::to_string(v1) + "/versions", {}, "cv.pdf", kPdf + "% v2\n");
  ASSERT_EQ(v2r.status, 303) << v2r.body;
  std::int64_t v2 = id_from(v2r);
  EXPECT_NE(v1, v2);
  EXPECT_EQ(db().query("SELECT version, replaces FROM uploads WHERE id = ?", {v2})[0].int_at(0), 2);

  auto page = ana.get("/applications/" + std::to_string(app));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("/documents/" + std::to_string(v2)), std::string::npos);
  auto sent = ana.post_form("/applications/" + std::to_string(app) + "/documents/sent",
                            {{"upload", std::to_string(v1)}, {"note", ""}});
  EXPECT_EQ(sent.status, 303);
  page = ana.get("/applications/" + std::to_string(app));
  EXPECT_NE(page.body.find("Sent: CV (version 1)"), std::string::npos);
  auto listing_page = ana.get("/listings/" + std::to_string(listing["id"].get<std::int64_t>()));
  EXPECT_NE(listing_page.body.find("/documents/new?listing="), std::string::npos);
}

PETO_BOTH_BACKENDS(DocumentsWebTest);

}  // namespace
}  // namespace peto
