// The HTTP server end to end: a real Server on a free port, real sockets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/log.h"
#include "http/router.h"
#include "http/server.h"
#include "tests/support/backends.h"
#include "tests/support/http_client.h"
#include "tests/support/web_server.h"

namespace peto::web {
namespace {

using nlohmann::json;
using peto::testing::ClientResponse;
using peto::testing::eventually;
using peto::testing::http_request;
using peto::testing::TestConnection;
using peto::testing::WebServer;

// A router with a few API and page routes the tests below use.
Router test_router() {
  Router router;
  router.add("GET", "/api/v1/items/{id}", [](Request& r) {
    return Response::json(200, {{"id", r.param("id")}, {"q", r.query_param("q").value_or("")}});
  });
  router.add("DELETE", "/api/v1/items/{id}",
             [](Request&) { return Response::json(200, json::object()); });
  router.add("GET", "/api/v1/items/new", [](Request&) {
    return Response::json(200, {{"literal", true}});
  });
  router.add("POST", "/api/v1/echo", [](Request& r) { return Response::text(200, r.body); });
  router.add("GET", "/hello", [](Request&) { return Response::html(200, "<p>hello</p>"); });
  return router;
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Collects log lines written while it lives (from any thread).
class LogCapture {
 public:
  explicit LogCapture(log::Level level = log::level()) : previous_(log::level()) {
    log::configure(level, log::Format::json);
    log::set_test_sink([this](const std::string& line) {
      std::lock_guard lock(mu_);
      lines_.push_back(line);
    });
  }
  ~LogCapture() {
    log::set_test_sink(nullptr);
    log::configure(previous_, log::Format::json);
  }
  std::vector<json> lines() {
    std::lock_guard lock(mu_);
    std::vector<json> out;
    for (const auto& l : lines_) out.push_back(json::parse(l));
    return out;
  }

 private:
  log::Level previous_;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST(ServerTest, RoutesWithPathAndQueryParams) {
  Router router = test_router();
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/api/v1/items/42?q=a%20b&x");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("Content-Type"), "application/json");
  EXPECT_EQ(json::parse(r.body), (json{{"id", "42"}, {"q", "a b"}}));

  // An escaped slash is data inside the one segment, not a separator.
  r = http_request(web.port(), "GET", "/api/v1/items/a%2Fb");
  EXPECT_EQ(json::parse(r.body)["id"], "a/b");

  // A literal segment beats a parameter.
  r = http_request(web.port(), "GET", "/api/v1/items/new");
  EXPECT_EQ(json::parse(r.body), (json{{"literal", true}}));
}

TEST(ServerTest, UnknownPathIsProblemUnderApiAndPageElsewhere) {
  Router router = test_router();
  WebServer web(router);
  auto api = http_request(web.port(), "GET", "/api/v1/nothing");
  EXPECT_EQ(api.status, 404);
  EXPECT_EQ(api.header("Content-Type"), "application/problem+json");
  json problem = json::parse(api.body);
  EXPECT_EQ(problem["status"], 404);
  EXPECT_EQ(problem["title"], "Not found");

  auto page = http_request(web.port(), "GET", "/nothing");
  EXPECT_EQ(page.status, 404);
  EXPECT_EQ(page.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<h1>Not found</h1>"), std::string::npos);
}

TEST(ServerTest, KnownPathWithOtherMethodIs405WithAllow) {
  Router router = test_router();
  WebServer web(router);
  auto r = http_request(web.port(), "PUT", "/api/v1/items/7", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("Allow"), "DELETE, GET, HEAD");
  EXPECT_EQ(r.header("Content-Type"), "application/problem+json");
}

TEST(ServerTest, HeadIsServedByGetWithoutBody) {
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  auto head = c.request("HEAD", "/hello");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), "12");
  EXPECT_EQ(head.body, "");
  // Had the server sent a body, it would now be read as the next response.
  auto get = c.request("GET", "/hello");
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.body, "<p>hello</p>");
}

TEST(ServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  auto first = c.request("GET", "/api/v1/items/1");
  EXPECT_EQ(first.status, 200);
  EXPECT_NE(first.header("Connection"), "close");
  auto second = c.request("POST", "/api/v1/echo", "ping");
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "ping");
}

TEST(ServerTest, PipelinedRequestsAreAnsweredInOrder) {
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  c.send_raw(
      "GET /api/v1/items/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/items/2 HTTP/1.1\r\nHost: "
      "x\r\n\r\n");
  EXPECT_EQ(json::parse(c.read_response().body)["id"], "1");
  EXPECT_EQ(json::parse(c.read_response().body)["id"], "2");
}

TEST(ServerTest, OversizedBodyIs413AndClosesTheConnection) {
  Router router = test_router();
  Server::Options options;
  options.max_body_bytes = 1024;
  WebServer web(router, options);
  TestConnection c(web.port());
  // Announce far more than the limit but send only a little: the answer must
  // come before the body does.
  c.send_raw("POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
             std::string(100, 'x'));
  auto r = c.read_response();
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.header("Content-Type"), "application/problem+json");
  EXPECT_EQ(r.header("Connection"), "close");
  EXPECT_TRUE(c.closed_by_server());

  // The same limit holds for a chunked body, whose size is not announced.
  TestConnection chunked(web.port());
  chunked.send_raw(
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" +
      std::string(0x800, 'y') + "\r\n");
  EXPECT_EQ(chunked.read_response().status, 413);

  // At the limit is fine.
  EXPECT_EQ(http_request(web.port(), "POST", "/api/v1/echo", std::string(1024, 'z')).status, 200);
}

// A guarded route decides on the headers whether its body is read at all,
// and takes the body limit it names.
TEST(ServerTest, AGuardedRouteAnswersOnTheHeadersWhomItDoesNotAdmit) {
  Router router;
  int admitted = 0;
  Guarded guarded;
  guarded.handler = [](Request& r) { return Response::text(200, r.body); };
  guarded.admit = [&admitted](const Request& r) -> std::optional<Response> {
    if (r.header("X-Key") != nullptr && *r.header("X-Key") == "open") {
      ++admitted;
      return std::nullopt;
    }
    return Response::text(401, "who are you?\n");
  };
  guarded.max_body_bytes = 100;
  router.add("POST", "/guarded", guarded);
  WebServer web(router);

  TestConnection stranger(web.port());
  stranger.send_raw("POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Length: 90\r\n\r\nsome");
  auto refused = stranger.read_response();
  EXPECT_EQ(refused.status, 401) << "answered before the body came";
  EXPECT_EQ(refused.header("Connection"), "close");

  EXPECT_EQ(http_request(web.port(), "POST", "/guarded", "hello", {{"X-Key", "open"}}).body,
            "hello");
  EXPECT_EQ(admitted, 1);
  EXPECT_EQ(http_request(web.port(), "POST", "/guarded", std::string(101, 'x'), {{"X-Key", "open"}})
                .status,
            413);
  // A request without a body is not asked about (the handler decides).
  EXPECT_EQ(http_request(web.port(), "POST", "/guarded").status, 200);
  EXPECT_EQ(admitted, 1);
}

TEST(ServerTest, Expect100ContinueGetsAnInterimAnswer) {
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  c.send_raw(
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(c.read_response().status, 100);
  c.send_raw("hello");
  auto r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello");
}

TEST(ServerTest, HugeHeaderIs431) {
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  c.send_raw("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  auto r = c.read_response();
  EXPECT_EQ(r.status, 431);
  EXPECT_EQ(r.header("Content-Type"), "application/problem+json");
}

TEST(ServerTest, GarbageIs400) {
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  c.send_raw("THIS IS NOT HTTP\r\n\r\n");
  auto r = c.read_response();
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(c.closed_by_server());

  // Well-formed HTTP with a target that is not a valid path.
  TestConnection bad_target(web.port());
  bad_target.send_raw("GET /a%zz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(bad_target.read_response().status, 400);
}

// RFC 9112 §6: "chunked" alone is the only transfer coding read here. Any
// other framing a proxy in front could read differently (a coding peto does
// not know, chunked not last, chunked beside a Content-Length, a coding on
// HTTP/1.0) is refused and the connection closed, before the handler runs.
TEST(ServerTest, AmbiguousBodyFramingIsRefusedAndTheConnectionClosed) {
  int echoed = 0;
  Router router;
  router.add("POST", "/echo", [&](Request& r) {
    ++echoed;
    return Response::text(200, r.body);
  });
  WebServer web(router);
  struct Case {
    std::string framing;
    int status;
  };
  const std::vector<Case> cases = {
      {"HTTP/1.1\r\nTransfer-Encoding: gzip", 501},
      {"HTTP/1.1\r\nTransfer-Encoding: gzip, chunked", 501},
      {"HTTP/1.1\r\nTransfer-Encoding: chunked, gzip", 400},
      {"HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity", 400},
      {"HTTP/1.1\r\nTransfer-Encoding: chunked, chunked", 400},
      {"HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5", 400},
      {"HTTP/1.0\r\nTransfer-Encoding: chunked", 400},
  };
  for (const Case& c : cases) {
    TestConnection conn(web.port());
    conn.send_raw("POST /echo " + c.framing + "\r\nHost: x\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    auto r = conn.read_response();
    EXPECT_EQ(r.status, c.status) << c.framing;
    EXPECT_TRUE(conn.closed_by_server()) << c.framing;
  }
  EXPECT_EQ(echoed, 0);

  // "chunked" alone, in any case, is read as it always was.
  TestConnection ok(web.port());
  ok.send_raw(
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:  Chunked \r\n\r\n"
      "5\r\nhello\r\n0\r\n\r\n");
  auto r = ok.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello");
  EXPECT_EQ(echoed, 1);
}

TEST(ServerTest, EveryResponseCarriesSecurityHeadersAndHtmlTheCsp) {
  Router router = test_router();
  WebServer web(router);
  for (const char* target : {"/api/v1/items/1", "/hello", "/nothing", "/api/v1/nothing"}) {
    auto r = http_request(web.port(), "GET", target);
    SCOPED_TRACE(target);
    EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(r.header("Referrer-Policy"), "same-origin");
    EXPECT_EQ(r.header("X-Frame-Options"), "DENY");
    bool html = r.header("Content-Type").starts_with("text/html");
    EXPECT_EQ(r.has_header("Content-Security-Policy"), html);
    if (html) {
      EXPECT_EQ(r.header("Content-Security-Policy"), std::string(kContentSecurityPolicy));
    }
  }
}

TEST(ServerTest, HandlerExceptionIsGeneric500AndLogged) {
  LogCapture logs;
  Router router;
  router.add("GET", "/api/v1/boom", [](Request&) -> Response {
    throw std::runtime_error("password=hunter2 in the connection string");
  });
  router.add("GET", "/boom", [](Request&) -> Response { throw 42; });
  WebServer web(router);

  auto api = http_request(web.port(), "GET", "/api/v1/boom");
  EXPECT_EQ(api.status, 500);
  EXPECT_EQ(api.header("Content-Type"), "application/problem+json");
  EXPECT_EQ(api.body.find("hunter2"), std::string::npos);
  auto page = http_request(web.port(), "GET", "/boom");
  EXPECT_EQ(page.status, 500);
  EXPECT_EQ(page.header("Content-Type"), "text/html; charset=utf-8");

  bool logged = false;
  for (const auto& line : logs.lines()) {
    if (line["level"] == "error" && line.value("error", "").find("hunter2") != std::string::npos) {
      logged = true;
      EXPECT_TRUE(line.value("scope", "").starts_with("req-"));
    }
  }
  EXPECT_TRUE(logged);
}

TEST(ServerTest, HeaderValuesCannotSplitTheResponse) {
  Router router;
  router.add("GET", "/go", [](Request& r) {
    Response res = Response::text(303, "");
    res.set_header("Location", "/next" + r.query_param("to").value_or(""));
    return res;
  });
  WebServer web(router);
  auto r = http_request(web.port(), "GET", "/go?to=%0D%0ASet-Cookie:%20session=evil");
  EXPECT_FALSE(r.has_header("Set-Cookie"));
  EXPECT_FALSE(r.has_header("Location"));
  EXPECT_EQ(http_request(web.port(), "GET", "/go?to=/ok").header("Location"), "/next/ok");
}

TEST(ServerTest, EachRequestHasItsOwnScopeAndOneAccessLine) {
  LogCapture logs(log::Level::debug);
  Router router = test_router();
  WebServer web(router);
  TestConnection c(web.port());
  c.request("GET", "/api/v1/items/1?token=secret");
  c.request("GET", "/nothing");
  ASSERT_TRUE(web.stop());

  std::vector<json> access;
  for (const auto& line : logs.lines()) {
    if (line["message"] == "request") access.push_back(line);
  }
  ASSERT_EQ(access.size(), 2u);
  EXPECT_EQ(access[0]["level"], "debug");
  EXPECT_EQ(access[0]["path"], "/api/v1/items/1");  // the query (tokens!) is not logged
  EXPECT_EQ(access[0]["status"], 200);
  EXPECT_EQ(access[1]["status"], 404);
  EXPECT_TRUE(access[0]["scope"].get<std::string>().starts_with("req-"));
  EXPECT_NE(access[0]["scope"], access[1]["scope"]);
}

class StaticFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(root_.path() / "static" / "peto.css", "body{}");
    write_file(root_.path() / "static" / "icons" / "logo.svg", "<svg/>");
    write_file(root_.path() / "static" / ".hidden", "no");
    write_file(root_.path() / "secret.txt", "top secret");
    std::filesystem::create_symlink(root_.path() / "secret.txt",
                                    root_.path() / "static" / "link.txt");
    options_.static_dir = root_.path() / "static";
  }
  peto::testing::TempDir root_;
  Server::Options options_;
};

TEST_F(StaticFilesTest, ServesFilesWithTypeAndCaching) {
  Router router;
  WebServer web(router, options_);
  auto css = http_request(web.port(), "GET", "/static/peto.css");
  ASSERT_EQ(css.status, 200);
  EXPECT_EQ(css.body, "body{}");
  EXPECT_EQ(css.header("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(css.header("Cache-Control"), "public, max-age=3600");
  EXPECT_EQ(css.header("X-Content-Type-Options"), "nosniff");

  auto svg = http_request(web.port(), "GET", "/static/icons/logo.svg");
  EXPECT_EQ(svg.status, 200);
  EXPECT_EQ(svg.header("Content-Type"), "image/svg+xml");

  auto head = http_request(web.port(), "HEAD", "/static/peto.css");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), "6");

  auto post = http_request(web.port(), "POST", "/static/peto.css", "x");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD");
}

TEST_F(StaticFilesTest, RefusesEverythingOutsideTheFolder) {
  Router router;
  WebServer web(router, options_);
  for (const char* target :
       {"/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/..%2Fsecret.txt",
        "/static/icons/../../secret.txt", "/static/.hidden", "/static/link.txt", "/static/",
        "/static", "/static/icons", "/static/missing.css"}) {
    SCOPED_TRACE(target);
    auto r = http_request(web.port(), "GET", target);
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body.find("top secret"), std::string::npos);
  }
}

TEST(ServerTest, StopLetsTheRequestInFlightFinish) {
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  Router router = test_router();
  router.add("GET", "/slow", [&](Request&) {
    entered.set_value();
    released.wait();
    return Response::text(200, "done");
  });
  WebServer web(router);
  std::uint16_t port = web.port();

  TestConnection slow(port);
  slow.send_raw("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  TestConnection idle(port);
  EXPECT_EQ(idle.request("GET", "/hello").status, 200);

  web.server().stop();
  EXPECT_TRUE(eventually([&] { return !peto::testing::can_connect(port); }));
  EXPECT_TRUE(idle.closed_by_server());  // an idle keep-alive connection does not hold the stop

  release.set_value();
  auto r = slow.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "done");
  EXPECT_EQ(r.header("Connection"), "close");
  EXPECT_TRUE(web.wait_stopped(std::chrono::seconds(5)));
}

// One address cannot take every connection, nor can everyone together: past
// the caps a new connection is answered 503 and closed, and the others carry on.
TEST(ServerTest, ConnectionsAreCappedInAllAndPerAddress) {
  Router router = test_router();
  Server::Options options;
  options.max_connections = 5;
  options.max_connections_per_address = 2;
  options.crowded_idle_timeout = std::chrono::seconds(60);  // the held ones stay
  WebServer web(router, options);
  std::vector<std::unique_ptr<TestConnection>> held;
  auto hold = [&](const std::string& source) {
    held.push_back(std::make_unique<TestConnection>(web.port(), source));
    return held.back()->request("GET", "/hello").status;
  };
  EXPECT_EQ(hold("127.0.0.1"), 200);
  EXPECT_EQ(hold("127.0.0.1"), 200);
  TestConnection third(web.port(), "127.0.0.1");
  auto refused = third.read_response();
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.header("Retry-After"), "5");
  EXPECT_TRUE(third.closed_by_server());

  EXPECT_EQ(hold("127.0.0.2"), 200) << "another client still gets in";
  EXPECT_EQ(hold("127.0.0.3"), 200);
  EXPECT_EQ(hold("127.0.0.4"), 200);
  TestConnection sixth(web.port(), "127.0.0.5");
  EXPECT_EQ(sixth.read_response().status, 503) << "five are open in all";

  held.front().reset();  // one closes: its place is free again
  EXPECT_TRUE(eventually([&] {
    try {
      TestConnection again(web.port(), "127.0.0.5");
      return again.request("GET", "/hello").status == 200;
    } catch (const std::exception&) {
      return false;
    }
  }));
  for (auto& c : held) {
    if (c) {
      EXPECT_EQ(c->request("GET", "/hello").status, 200) << "the others carry on";
    }
  }
}

// Real time, one second: asio's timers do not run on peto's Clock.
TEST(ServerTest, ACrowdedServerWaitsLessForTheNextRequest) {
  Router router = test_router();
  Server::Options options;
  options.max_connections = 4;
  options.crowded_idle_timeout = std::chrono::seconds(1);
  WebServer web(router, options);
  TestConnection a(web.port()), b(web.port()), c(web.port());
  for (TestConnection* conn : {&a, &b, &c}) EXPECT_EQ(conn->request("GET", "/hello").status, 200);
  // Asked again once all three are surely open, `a` waits for its next
  // request on a crowded server, as `c` already does: 1 s, not 75.
  EXPECT_EQ(a.request("GET", "/hello").status, 200);
  EXPECT_TRUE(a.closed_by_server());
  EXPECT_TRUE(c.closed_by_server());
}

// Real time, one second: asio's timers do not run on peto's Clock.
TEST(ServerTest, IdleAndSlowConnectionsAreClosed) {
  Router router = test_router();
  Server::Options options;
  options.idle_timeout = std::chrono::seconds(1);
  options.read_timeout = std::chrono::seconds(1);
  WebServer web(router, options);
  TestConnection idle(web.port());
  TestConnection slow(web.port());
  EXPECT_EQ(idle.request("GET", "/hello").status, 200);
  slow.send_raw("GET /hello HTTP/1.1\r\nHost:");  // and never the rest
  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_TRUE(slow.closed_by_server());
}

TEST(ServerTest, StartReportsAnAddressInUse) {
  Router router;
  WebServer first(router);
  Server::Options options;
  options.port = first.port();
  Server second(options, router);
  Status s = second.start();
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.message().rfind("cannot listen on 127.0.0.1:" + std::to_string(first.port()) + ": ", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("in use"), std::string::npos) << s.message();
  second.run();  // returns at once: nothing was started
}

}  // namespace
}  // namespace peto::web
