// The guarded HTTP client against a real server on loopback.
//
// Loopback is exactly what the destination policy refuses, so the tests reach
// the server in two ways: with allow_private, or through the stand-in name
// "stand-in.test", which the test Resolver maps to the public-looking
// 93.184.216.34 and the ConnectTo seam (applied after the policy check) sends
// to 127.0.0.1:port.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <variant>

#include "http/router.h"
#include "net/http.h"
#include "tests/support/web_server.h"

namespace peto::net {
namespace {

using peto::testing::WebServer;
using Kind = HttpError::Kind;

constexpr const char* kStandInIp = "93.184.216.34";

web::Response redirect(int status, std::string location) {
  web::Response r = web::Response::text(status, "moved");
  r.set_header("Location", std::move(location));
  return r;
}

// A server that answers every connection with the same raw bytes and closes
// it: for answers web::Server never gives (no Content-Length, huge headers).
class RawServer {
 public:
  explicit RawServer(std::string answer) : answer_(std::move(answer)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(fd_, 4) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("RawServer: cannot listen");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawServer() {
    shutdown(fd_, SHUT_RDWR);  // wakes accept()
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }

 private:
  void serve() {
    for (;;) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = recv(c, buf, sizeof(buf), 0);
        if (n <= 0) break;
        request.append(buf, static_cast<std::size_t>(n));
      }
      for (std::size_t sent = 0; sent < answer_.size();) {
        ssize_t n = ::send(c, answer_.data() + sent, answer_.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<std::size_t>(n);
      }
      close(c);
    }
  }

  std::string answer_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// A client whose stand-in address leads to `port` on loopback.
HttpClient stand_in_client(int port) {
  return HttpClient([](const std::string&) { return std::vector<std::string>{kStandInIp}; },
                    [port](const std::string&, int) -> std::optional<std::pair<std::string, int>> {
                      return std::make_pair(std::string("127.0.0.1"), port);
                    });
}

class GuardedHttpTest : public ::testing::Test {
 protected:
  GuardedHttpTest() {
    router_.add("GET", "/hello", [](web::Request&) {
      web::Response r = web::Response::text(200, "hello");
      r.set_header("X-Answer", "yes");
      return r;
    });
    // /redirect/3 → /redirect/2 → … → /redirect/0, which answers.
    router_.add("GET", "/redirect/{n}", [](web::Request& r) {
      int n = std::stoi(r.param("n"));
      if (n == 0) return web::Response::text(200, "arrived");
      return redirect(302, "/redirect/" + std::to_string(n - 1));
    });
    router_.add("GET", "/to-private",
                [](web::Request&) { return redirect(302, "http://internal.test/hello"); });
    router_.add("GET", "/to-loopback",
                [](web::Request&) { return redirect(301, "http://127.0.0.1:1/hello"); });
    router_.add("GET", "/big",
                [](web::Request&) { return web::Response::text(200, std::string(3 << 20, 'x')); });
    router_.add("GET", "/slow", [this](web::Request&) {
      release_.wait_for(std::chrono::seconds(5));
      return web::Response::text(200, "late");
    });
    auto echo = [](web::Request& r) {
      auto h = [&](const char* name) { return r.header(name) ? *r.header(name) : ""; };
      return web::Response::json(200, {{"method", r.method},
                                       {"body", r.body},
                                       {"content_type", h("Content-Type")},
                                       {"custom", h("X-Peto-Test")},
                                       {"authorization", h("Authorization")},
                                       {"user_agent", h("User-Agent")}});
    };
    router_.add("POST", "/echo", echo);
    router_.add("GET", "/echo", echo);
    router_.add("GET", "/to-other",
                [](web::Request&) { return redirect(302, "http://other.test/echo"); });
    router_.add("GET", "/to-same", [](web::Request&) { return redirect(302, "/echo"); });
    router_.add("POST", "/see-other", [](web::Request&) { return redirect(303, "/echo"); });
    router_.add("POST", "/found", [](web::Request&) { return redirect(302, "/echo"); });
    router_.add("POST", "/temporary", [](web::Request&) { return redirect(307, "/echo"); });
    server_ = std::make_unique<WebServer>(router_);
    port_ = server_->port();
  }

  ~GuardedHttpTest() override {
    release_promise_.set_value();
    server_.reset();
  }

  std::string local(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // The client the tests use: test names, and the stand-in address routed to
  // the server.
  HttpClient client() const {
    std::map<std::string, std::vector<std::string>> names = {
        {"stand-in.test", {kStandInIp}}, {"loopback.test", {"127.0.0.1"}},
        {"loopback6.test", {"::1"}},     {"mixed.test", {kStandInIp, "10.0.0.5"}},
        {"internal.test", {"10.0.0.5"}}, {"other.test", {kStandInIp}},
    };
    int port = port_;
    return HttpClient(
        [names](const std::string& host) {
          auto it = names.find(host);
          return it == names.end() ? std::vector<std::string>{} : it->second;
        },
        [port](const std::string& ip, int) -> std::optional<std::pair<std::string, int>> {
          if (ip == kStandInIp) return std::make_pair(std::string("127.0.0.1"), port);
          return std::nullopt;
        });
  }

  static HttpRequest get(std::string url) {
    HttpRequest r;
    r.url = std::move(url);
    r.timeout = std::chrono::seconds(5);
    return r;
  }

  web::Router router_;
  std::promise<void> release_promise_;
  std::shared_future<void> release_ = release_promise_.get_future().share();
  std::unique_ptr<WebServer> server_;
  int port_ = 0;
};

// The answer, or a test failure naming the error.
HttpResponse ok(const std::variant<HttpResponse, HttpError>& answer) {
  if (const auto* e = std::get_if<HttpError>(&answer)) {
    ADD_FAILURE() << "expected an answer, got " << kind_name(e->kind) << ": " << e->message;
    return {};
  }
  return std::get<HttpResponse>(answer);
}

// The error, or a test failure if there was an answer.
HttpError error(const std::variant<HttpResponse, HttpError>& answer) {
  if (const auto* r = std::get_if<HttpResponse>(&answer)) {
    ADD_FAILURE() << "expected an error, got status " << r->status << " from " << r->final_url;
    return {};
  }
  return std::get<HttpError>(answer);
}

TEST_F(GuardedHttpTest, LoopbackIsRefusedByDefault) {
  HttpClient c = client();
  for (const std::string& url :
       {local("/hello"), "http://loopback.test:" + std::to_string(port_) + "/hello",
        "http://loopback6.test:" + std::to_string(port_) + "/hello",
        "http://[::1]:" + std::to_string(port_) + "/hello",
        "http://[::ffff:127.0.0.1]:" + std::to_string(port_) + "/hello"}) {
    HttpError e = error(c.send(get(url)));
    EXPECT_EQ(e.kind, Kind::refused_destination) << url << ": " << e.message;
    EXPECT_NE(e.message.find("PETO_ALLOW_PRIVATE_DESTINATIONS"), std::string::npos) << e.message;
  }
  HttpError by_name = error(c.send(get("http://loopback.test/hello")));
  EXPECT_EQ(by_name.message,
            "loopback.test resolves to 127.0.0.1, and 127.0.0.1 is a loopback address; peto "
            "does not send there unless PETO_ALLOW_PRIVATE_DESTINATIONS is set.");
}

TEST_F(GuardedHttpTest, LocalhostThroughTheSystemResolverIsRefused) {
  HttpClient system;  // getaddrinfo
  HttpError e = error(system.send(get("http://localhost:" + std::to_string(port_) + "/hello")));
  EXPECT_EQ(e.kind, Kind::refused_destination) << e.message;
}

TEST_F(GuardedHttpTest, LoopbackIsAllowedWithAllowPrivate) {
  HttpClient c = client();
  for (const std::string& url :
       {local("/hello"), "http://loopback.test:" + std::to_string(port_) + "/hello"}) {
    HttpRequest r = get(url);
    r.allow_private = true;
    HttpResponse answer = ok(c.send(r));
    EXPECT_EQ(answer.status, 200) << url;
    EXPECT_EQ(answer.body, "hello");
    EXPECT_EQ(answer.connected_ip, "127.0.0.1");
  }
}

TEST_F(GuardedHttpTest, OnePrivateAddressAmongPublicOnesRefusesTheName) {
  HttpError e = error(client().send(get("http://mixed.test/hello")));
  EXPECT_EQ(e.kind, Kind::refused_destination);
  EXPECT_NE(e.message.find("10.0.0.5 is a private address"), std::string::npos) << e.message;
}

TEST_F(GuardedHttpTest, UnknownNameIsADnsError) {
  HttpError e = error(client().send(get("http://nowhere.test/")));
  EXPECT_EQ(e.kind, Kind::dns);
  EXPECT_NE(e.message.find("nowhere.test"), std::string::npos) << e.message;
}

TEST_F(GuardedHttpTest, StandInNameIsFetchedThroughItsApprovedAddress) {
  HttpResponse r = ok(client().send(get("http://stand-in.test/hello")));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello");
  EXPECT_EQ(r.connected_ip, kStandInIp);
  EXPECT_EQ(r.final_url, "http://stand-in.test/hello");
  ASSERT_NE(r.header("X-Answer"), nullptr);
  EXPECT_EQ(*r.header("X-Answer"), "yes");
  bool lower_case = false;  // names are kept in lower case
  for (const auto& [name, value] : r.headers) lower_case |= name == "x-answer" && value == "yes";
  EXPECT_TRUE(lower_case);
}

TEST_F(GuardedHttpTest, RedirectToAPrivateNameIsRefused) {
  HttpRequest r = get("http://stand-in.test/to-private");
  r.max_redirects = 3;
  HttpError e = error(client().send(r));
  EXPECT_EQ(e.kind, Kind::refused_destination);
  EXPECT_NE(e.message.find("internal.test"), std::string::npos) << e.message;

  HttpRequest literal = get("http://stand-in.test/to-loopback");
  literal.max_redirects = 3;
  EXPECT_EQ(error(client().send(literal)).kind, Kind::refused_destination);
}

TEST_F(GuardedHttpTest, RedirectsAreFollowedUpToTheLimit) {
  HttpRequest r = get("http://stand-in.test/redirect/3");
  r.max_redirects = 3;
  HttpResponse answer = ok(client().send(r));
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "arrived");
  EXPECT_EQ(answer.final_url, "http://stand-in.test/redirect/0");

  r.max_redirects = 2;
  HttpError e = error(client().send(r));
  EXPECT_EQ(e.kind, Kind::too_many_redirects);
  EXPECT_NE(e.message.find("more than 2"), std::string::npos) << e.message;
}

TEST_F(GuardedHttpTest, WithoutRedirectsTheRedirectIsTheAnswer) {
  HttpResponse answer = ok(client().send(get("http://stand-in.test/redirect/1")));
  EXPECT_EQ(answer.status, 302);
  ASSERT_NE(answer.header("location"), nullptr);
  EXPECT_EQ(*answer.header("location"), "/redirect/0");
  EXPECT_EQ(answer.final_url, "http://stand-in.test/redirect/1");

  // Not even to a private address: a 302 towards one is just an answer too.
  EXPECT_EQ(ok(client().send(get("http://stand-in.test/to-private"))).status, 302);
}

TEST_F(GuardedHttpTest, OversizeBodyIsCutOff) {
  HttpError e = error(client().send(get("http://stand-in.test/big")));
  EXPECT_EQ(e.kind, Kind::too_large);
  EXPECT_NE(e.message.find("2 MiB"), std::string::npos) << e.message;

  HttpRequest small = get("http://stand-in.test/hello");
  small.max_bytes = 3;
  EXPECT_EQ(error(client().send(small)).kind, Kind::too_large);
  small.max_bytes = 5;  // "hello" fits exactly
  EXPECT_EQ(ok(client().send(small)).body, "hello");
}

TEST_F(GuardedHttpTest, BodyWithoutLengthIsCutOffWhileReading) {
  // No Content-Length: only the running count in the write callback can stop it.
  RawServer raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + std::string(100000, 'x'));
  HttpRequest r = get("http://stand-in.test/");
  r.max_bytes = 1000;
  HttpError e = error(stand_in_client(raw.port()).send(r));
  EXPECT_EQ(e.kind, Kind::too_large);
  EXPECT_NE(e.message.find("1000 bytes"), std::string::npos) << e.message;
  r.max_bytes = 100000;
  EXPECT_EQ(ok(stand_in_client(raw.port()).send(r)).body.size(), 100000u);
}

TEST_F(GuardedHttpTest, HugeHeadersAreCutOff) {
  std::string headers;
  for (int i = 0; i < 2000; ++i)
    headers += "X-Filler-" + std::to_string(i) + ": " + std::string(40, 'y') + "\r\n";
  RawServer raw("HTTP/1.1 200 OK\r\n" + headers + "Content-Length: 2\r\n\r\nok");
  HttpError e = error(stand_in_client(raw.port()).send(get("http://stand-in.test/")));
  EXPECT_EQ(e.kind, Kind::too_large);
  EXPECT_NE(e.message.find("headers"), std::string::npos) << e.message;
}

TEST_F(GuardedHttpTest, ProxySettingsFromTheEnvironmentAreIgnored) {
  // A proxy that does not exist: used, it would turn every send into an error.
  for (const char* name : {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"})
    setenv(name, "http://127.0.0.1:1", 1);
  auto answer = client().send(get("http://stand-in.test/hello"));
  for (const char* name : {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}) unsetenv(name);
  EXPECT_EQ(ok(answer).body, "hello");
}

TEST_F(GuardedHttpTest, NamesArePinnedToTheCheckedAddressInBothFamilies) {
  // With allow_private, a name resolving to ::1 is connected to [::1] at the
  // URL's port, where nothing listens: a connect error, not a DNS one, so the
  // pinned IPv6 address was used and curl did not look the name up.
  HttpRequest r = get("http://loopback6.test:" + std::to_string(port_) + "/hello");
  r.allow_private = true;
  HttpError e = error(client().send(r));
  EXPECT_EQ(e.kind, Kind::connect) << e.message;
}

TEST_F(GuardedHttpTest, SlowPageTimesOut) {
  HttpRequest r = get("http://stand-in.test/slow");
  r.timeout = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  HttpError e = error(client().send(r));
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(e.kind, Kind::timeout);
  EXPECT_NE(e.message.find("300 ms"), std::string::npos) << e.message;
  EXPECT_LT(took, std::chrono::seconds(3));
}

TEST_F(GuardedHttpTest, OnlyHttpAndHttpsWithoutUserinfo) {
  HttpClient c = client();
  for (const char* url :
       {"file:///etc/passwd", "ftp://stand-in.test/x", "gopher://stand-in.test/",
        "dict://stand-in.test/", "ldap://stand-in.test/", "stand-in.test/hello", "http:///hello",
        "http://stand in.test/", "http://2130706433/", "http://0x7f.1/", "http://[v1.fe]/", ""}) {
    HttpError e = error(c.send(get(url)));
    EXPECT_EQ(e.kind, Kind::bad_url) << url << ": " << e.message;
  }
  HttpError scheme = error(c.send(get("gopher://stand-in.test/")));
  EXPECT_NE(scheme.message.find("http:// and https://"), std::string::npos) << scheme.message;
  for (const char* url : {"http://user:secret@stand-in.test/hello", "http://user@stand-in.test/",
                          "http://@stand-in.test/"}) {
    HttpError e = error(c.send(get(url)));
    EXPECT_EQ(e.kind, Kind::bad_url) << url;
    EXPECT_NE(e.message.find("user name or password"), std::string::npos) << e.message;
  }
}

TEST_F(GuardedHttpTest, PostWithBodyAndHeadersArrivesIntact) {
  HttpRequest r = get("http://stand-in.test/echo");
  r.method = "POST";
  r.body = R"({"event":"reminder.due","text":"caf\u00e9 \r\n ok"})";
  r.headers = {{"Content-Type", "application/json"}, {"X-Peto-Test", "one, two"}};
  HttpResponse answer = ok(client().send(r));
  ASSERT_EQ(answer.status, 200);
  auto echoed = nlohmann::json::parse(answer.body);
  EXPECT_EQ(echoed["method"], "POST");
  EXPECT_EQ(echoed["body"], r.body);
  EXPECT_EQ(echoed["content_type"], "application/json");
  EXPECT_EQ(echoed["custom"], "one, two");
  EXPECT_EQ(echoed["user_agent"], "peto/" PETO_VERSION);
}

TEST_F(GuardedHttpTest, SeeOtherAndFoundTurnAPostIntoAGet) {
  for (const char* path : {"/see-other", "/found"}) {
    HttpRequest r = get(std::string("http://stand-in.test") + path);
    r.method = "POST";
    r.body = "payload";
    r.max_redirects = 1;
    auto echoed = nlohmann::json::parse(ok(client().send(r)).body);
    EXPECT_EQ(echoed["method"], "GET") << path;
    EXPECT_EQ(echoed["body"], "") << path;
  }
  HttpRequest r = get("http://stand-in.test/temporary");
  r.method = "POST";
  r.body = "payload";
  r.max_redirects = 1;
  auto echoed = nlohmann::json::parse(ok(client().send(r)).body);
  EXPECT_EQ(echoed["method"], "POST");
  EXPECT_EQ(echoed["body"], "payload");
}

TEST_F(GuardedHttpTest, CredentialsDoNotFollowARedirectToAnotherOrigin) {
  HttpRequest r = get("http://stand-in.test/to-same");
  r.max_redirects = 1;
  r.headers = {{"Authorization", "Bearer secret"}, {"X-Peto-Test", "kept"}};
  auto same = nlohmann::json::parse(ok(client().send(r)).body);
  EXPECT_EQ(same["authorization"], "Bearer secret");
  r.url = "http://stand-in.test/to-other";
  HttpResponse answer = ok(client().send(r));
  EXPECT_EQ(answer.final_url, "http://other.test/echo");
  auto other = nlohmann::json::parse(answer.body);
  EXPECT_EQ(other["authorization"], "");
  EXPECT_EQ(other["custom"], "kept");
}

TEST_F(GuardedHttpTest, HeadersThatCouldSplitTheRequestAreRefused) {
  HttpRequest r = get("http://stand-in.test/echo");
  r.headers = {{"X-Peto-Test", "a\r\nInjected: yes"}};
  EXPECT_EQ(error(client().send(r)).kind, Kind::bad_url);
  r.headers = {{"Bad Name", "x"}};
  EXPECT_EQ(error(client().send(r)).kind, Kind::bad_url);
}

}  // namespace
}  // namespace peto::net
