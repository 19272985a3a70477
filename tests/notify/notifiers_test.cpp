// The built-in notifiers against real receivers on loopback: a web::Server
// standing in for webhooks, ntfy, Gotify and the Telegram Bot API, and a small
// SMTP receiver for e-mail. Loopback is a private destination, so the tests
// send with allow_private_destinations on, except where the refusal is the
// point.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sodium.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "http/router.h"
#include "notify/notifiers.h"
#include "tests/support/web_server.h"

namespace peto::notify {
using namespace ::peto::net;
namespace {

using peto::testing::WebServer;
using Outcome = plugin::Outcome::Kind;

constexpr const char* kSecret = "whsec-0123456789abcdef";
constexpr const char* kBotToken = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

// A listening socket on 127.0.0.1 and a free port.
int listen_loopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(fd, 8) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("cannot listen on loopback");
  *port = ntohs(a.sin_port);
  return fd;
}

// A port nothing listens on: bound once, then closed.
int closed_port() {
  int port = 0;
  close(listen_loopback(&port));
  return port;
}

// A server that accepts connections into its backlog and never answers.
class SilentServer {
 public:
  SilentServer() : fd_(listen_loopback(&port_)) {}
  ~SilentServer() { close(fd_); }
  int port() const { return port_; }

 private:
  int port_ = 0;
  int fd_;
};

// What the receiver saw of one request.
struct Seen {
  std::string method;
  std::string path;
  web::Headers headers;
  std::string body;
  std::string header(std::string_view name) const {
    const std::string* v = web::find_header(headers, name);
    return v != nullptr ? *v : "";
  }
};

// ---------------------------------------------------------------- SMTP

// Enough ESMTP to take a message: no TLS offered (so STARTTLS-when-offered
// goes on in the clear), recipients containing "reject" refused for good
// (550), "later" refused for now (451).
class SmtpReceiver {
 public:
  struct Mail {
    std::string from;
    std::vector<std::string> to;
    std::string data;
  };

  SmtpReceiver() : fd_(listen_loopback(&port_)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~SmtpReceiver() {
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }
  std::vector<Mail> mails() const {
    std::lock_guard lock(mu_);
    return mails_;
  }
  int connections() const { return connections_.load(); }
  // Every command's verb, in arrival order.
  std::vector<std::string> verbs() const {
    std::lock_guard lock(mu_);
    return verbs_;
  }

 private:
  static void say(int c, std::string_view line) {
    std::string out = std::string(line) + "\r\n";
    (void)::send(c, out.data(), out.size(), MSG_NOSIGNAL);
  }

  // One line (without CRLF) from `buffer`, reading more from `c` as needed.
  static bool read_line(int c, std::string& buffer, std::string* line) {
    for (;;) {
      auto eol = buffer.find("\r\n");
      if (eol != std::string::npos) {
        *line = buffer.substr(0, eol);
        buffer.erase(0, eol + 2);
        return true;
      }
      char chunk[4096];
      ssize_t n = recv(c, chunk, sizeof(chunk), 0);
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }

  void session(int c) {
    std::string buffer, line;
    Mail mail;
    say(c, "220 127.0.0.1 ESMTP test");
    while (read_line(c, buffer, &line)) {
      std::string verb = line.substr(0, 4);
      for (char& ch : verb) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      {
        std::lock_guard lock(mu_);
        verbs_.push_back(verb);
      }
      if (verb == "EHLO") {
        say(c, "250-127.0.0.1");
        say(c, "250 8BITMIME");
      } else if (verb == "HELO" || verb == "RSET" || verb == "NOOP") {
        say(c, "250 OK");
      } else if (verb == "MAIL") {
        mail.from = line.substr(line.find(':') + 1);
        say(c, "250 OK");
      } else if (verb == "RCPT") {
        std::string to = line.substr(line.find(':') + 1);
        if (to.find("reject") != std::string::npos) {
          say(c, "550 5.1.1 No such user here");
        } else if (to.find("later") != std::string::npos) {
          say(c, "451 4.3.0 Try again later");
        } else {
          mail.to.push_back(to);
          say(c, "250 OK");
        }
      } else if (verb == "DATA") {
        say(c, "354 Go ahead");
        std::string data;
        while (read_line(c, buffer, &line) && line != ".")
          data += (line.starts_with("..") ? line.substr(1) : line) + "\r\n";
        mail.data = data;
        {
          std::lock_guard lock(mu_);
          mails_.push_back(mail);
        }
        say(c, "250 OK queued");
      } else if (verb == "QUIT") {
        say(c, "221 Bye");
        return;
      } else {
        say(c, "502 Not implemented");
      }
    }
  }

  void serve() {
    for (;;) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      ++connections_;
      session(c);
      close(c);
    }
  }

  int port_ = 0;
  int fd_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<Mail> mails_;
  std::vector<std::string> verbs_;
  std::atomic<int> connections_{0};
};

// The headers of a message (unfolded) and its body, decoded.
struct ReadMail {
  std::vector<std::string> header_lines;       // as on the wire, one per physical line
  std::map<std::string, std::string> headers;  // unfolded, encoded words decoded
  std::string body;                            // quoted-printable decoded
};

std::string decode_base64(std::string_view text) {
  std::string out(text.size(), '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, nullptr, sodium_base64_VARIANT_ORIGINAL) != 0)
    ADD_FAILURE() << "not base64: " << text;
  out.resize(len);
  return out;
}

// "=?UTF-8?B?…?=" words (separated by folding whitespace) back to text.
std::string decode_words(std::string value) {
  std::string out;
  std::size_t at = 0;
  bool last_was_word = false;
  while (at < value.size()) {
    if (value.compare(at, 10, "=?UTF-8?B?") == 0) {
      auto end = value.find("?=", at + 10);
      out += decode_base64(std::string_view(value).substr(at + 10, end - at - 10));
      at = end + 2;
      last_was_word = true;
      continue;
    }
    if (last_was_word && value[at] == ' ' && value.compare(at + 1, 2, "=?") == 0) {
      ++at;  // whitespace between two encoded words is not text
      continue;
    }
    last_was_word = false;
    out += value[at++];
  }
  return out;
}

std::string decode_quoted_printable(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') {
      out += text[i];
    } else if (text.substr(i + 1, 2) == "\r\n") {
      i += 2;  // soft line break
    } else {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    }
  }
  return out;
}

ReadMail read_mail(const std::string& message) {
  ReadMail m;
  auto split = message.find("\r\n\r\n");
  EXPECT_NE(split, std::string::npos) << message;
  std::string head = message.substr(0, split + 2);
  m.body = decode_quoted_printable(message.substr(split + 4));
  std::string name, value;
  auto flush = [&] {
    if (!name.empty()) m.headers[name] = decode_words(value);
  };
  for (std::size_t at = 0; at < head.size();) {
    auto eol = head.find("\r\n", at);
    std::string line = head.substr(at, eol - at);
    at = eol + 2;
    m.header_lines.push_back(line);
    if (line.starts_with(" ") || line.starts_with("\t")) {
      value += line;
      continue;
    }
    flush();
    auto colon = line.find(':');
    name = line.substr(0, colon);
    value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  flush();
  return m;
}

// ------------------------------------------------------------ the fixture

class NotifierTest : public ::testing::Test {
 protected:
  NotifierTest() {
    auto record = [this](web::Request& r) {
      std::lock_guard lock(mu_);
      seen_.push_back(Seen{r.method, r.path, r.headers, r.body});
      web::Response answer = web::Response::text(answer_status_, answer_body_);
      if (answer_status_ >= 300 && answer_status_ < 400)
        answer.set_header("Location", "https://elsewhere.example/hook");
      return answer;
    };
    router_.add("POST", "/hook", record);
    router_.add("POST", "/", record);
    router_.add("POST", "/message", record);
    router_.add("POST", "/{bot}/sendMessage", record);
    router_.add("POST", "/status/{n}", [](web::Request& r) {
      int n = std::stoi(r.param("n"));
      web::Response answer = web::Response::text(n, "status");
      if (n >= 300 && n < 400) answer.set_header("Location", "https://elsewhere.example/hook");
      return answer;
    });
    server_ = std::make_unique<WebServer>(router_);
    config_.allow_private_destinations = true;
    config_.telegram_api_url = local("");
  }

  std::string local(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
  }

  void answer_with(int status, std::string body = "ok") {
    std::lock_guard lock(mu_);
    answer_status_ = status;
    answer_body_ = std::move(body);
  }

  std::vector<Seen> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }

  plugin::Outcome send(const Notifier& notifier, const nlohmann::json& config) {
    SendContext ctx{http_, config_, clock_, "42"};
    return notifier.send(n_, config, recipient_, ctx);
  }

  static Notification sample() {
    Notification n;
    n.event = "reminder_due";
    n.title = "Call Ada back";
    n.body = "You planned to call Ada Lovelace at Analytical Engines.";
    n.url = "https://peto.example/reminders/7";
    n.key = "reminder:7:2026-12-01T09:00:00Z";
    n.language = "en";
    n.occurred_at = 1'799'999'000'000;
    n.data = {{"reminder_id", 7}};
    return n;
  }

  web::Router router_;
  std::unique_ptr<WebServer> server_;
  mutable std::mutex mu_;
  std::vector<Seen> seen_;
  int answer_status_ = 200;
  std::string answer_body_ = "ok";

  HttpClient http_;
  Config config_;
  FakeClock clock_{1'800'000'000'000};
  Notification n_ = sample();
  Recipient recipient_{.id = 1, .email = "ada@example.org", .language = "en", .time_zone = "UTC"};
};

// -------------------------------------------------------------- the rules

TEST(NotifierRules, ListsTheFiveBuiltInsInMenuOrder) {
  std::vector<std::string> names;
  for (const Notifier* n : notifiers()) names.emplace_back(n->name());
  EXPECT_EQ(names, (std::vector<std::string>{"email", "webhook", "ntfy", "gotify", "telegram"}));
  EXPECT_EQ(find_notifier("webhook"), &webhook_notifier());
  EXPECT_EQ(find_notifier("telegram"), &telegram_notifier());
  EXPECT_EQ(find_notifier("browser"), nullptr);
  EXPECT_EQ(find_notifier(""), nullptr);
}

TEST(NotifierRules, WebhookHearsWhatYouDidOthersDoNot) {
  for (const std::string& e : events()) {
    bool yours = about_what_you_did(e);
    EXPECT_TRUE(default_for(e, webhook_notifier())) << e;
    for (const Notifier* n :
         {&email_notifier(), &ntfy_notifier(), &gotify_notifier(), &telegram_notifier()})
      EXPECT_EQ(default_for(e, *n), !yours) << n->name() << " " << e;
  }
}

TEST(NotifierRules, AStoredSwitchWinsOverTheDefault) {
  const Notifier& hook = webhook_notifier();
  const Notifier& mail = email_notifier();
  nlohmann::json config = {{"event_status_changed", false},
                           {"event_went_quiet", false},
                           {"event_offer_recorded", "yes"}};
  EXPECT_FALSE(wants(config, "status_changed", hook));
  EXPECT_FALSE(wants(config, "went_quiet", mail));
  EXPECT_TRUE(wants(config, "reminder_due", mail));
  // Only a boolean is a switch; anything else leaves the default.
  EXPECT_TRUE(wants(config, "offer_recorded", hook));
  EXPECT_FALSE(wants(config, "offer_recorded", mail));
  EXPECT_TRUE(wants({{"event_interview_scheduled", true}}, "interview_scheduled", mail));
  EXPECT_TRUE(wants(nlohmann::json(), "capture_received", mail));
}

TEST(NotifierRules, OutcomeNames) {
  plugin::Outcome r;
  EXPECT_EQ(outcome_name(r), "failed");
  r.kind = Outcome::done;
  EXPECT_EQ(outcome_name(r), "sent");
  r.kind = Outcome::final;
  EXPECT_EQ(outcome_name(r), "final");
  r.kind = Outcome::unusable;
  EXPECT_EQ(outcome_name(r), "unusable");
}

// Every label, hint and error key a notifier names has a text in English and
// in French.
TEST(NotifierRules, EveryCatalogueKeyHasATextInBothLanguages) {
  for (const char* lang : {"en", "fr"}) {
    std::ifstream in(std::string(PETO_SOURCE_DIR) + "/locales/" + lang + "/notifiers.json");
    nlohmann::json texts = nlohmann::json::parse(in);
    std::set<std::string> keys;
    for (const Notifier* n : notifiers()) {
      keys.insert(std::string(n->label_key()));
      for (const FieldSpec& f : n->fields()) {
        keys.insert(f.label_key);
        if (!f.help_key.empty()) keys.insert(f.help_key);
      }
    }
    for (const char* k : {"error_secret_short", "error_ntfy_topic", "error_telegram_token",
                          "error_telegram_chat", "error_email_no_smtp"})
      keys.insert(k);
    for (const auto& k : keys) EXPECT_TRUE(texts.contains(k)) << lang << ": " << k;
  }
}

// ------------------------------------------------------ read_http_answer

TEST_F(NotifierTest, ReadHttpAnswerMapsStatuses) {
  struct Case {
    int status;
    Outcome kind;
  };
  for (Case c : {Case{200, Outcome::done}, Case{204, Outcome::done}, Case{301, Outcome::final},
                 Case{302, Outcome::retry}, Case{307, Outcome::retry}, Case{308, Outcome::final},
                 Case{400, Outcome::final}, Case{404, Outcome::final}, Case{410, Outcome::final},
                 Case{408, Outcome::retry}, Case{429, Outcome::retry}, Case{500, Outcome::retry},
                 Case{503, Outcome::retry}}) {
    HttpRequest req;
    req.method = "POST";
    req.url = local("/status/" + std::to_string(c.status));
    req.allow_private = true;
    plugin::Outcome r = read_http_answer(http_.send(req));
    EXPECT_EQ(r.kind, c.kind) << c.status << ": " << r.message;
    EXPECT_EQ(r.http_status, c.status);
    if (c.status >= 300 && c.status < 400) {
      EXPECT_NE(r.message.find("redirected to https://elsewhere.example/hook"), std::string::npos)
          << r.message;
    } else if (c.status >= 400) {
      EXPECT_EQ(r.message, "The receiver answered " + std::to_string(c.status) + ".");
    } else {
      EXPECT_EQ(r.message, "");
    }
  }
}

TEST_F(NotifierTest, ReadHttpAnswerRetriesWhenNobodyAnswers) {
  SilentServer silent;
  HttpRequest req;
  req.method = "POST";
  req.url = "http://127.0.0.1:" + std::to_string(silent.port()) + "/hook";
  req.allow_private = true;
  req.timeout = std::chrono::milliseconds(300);
  plugin::Outcome r = read_http_answer(http_.send(req));
  EXPECT_EQ(r.kind, Outcome::retry);
  EXPECT_FALSE(r.http_status.has_value());
  EXPECT_NE(r.message.find("did not answer"), std::string::npos) << r.message;

  req.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/hook";
  r = read_http_answer(http_.send(req));
  EXPECT_EQ(r.kind, Outcome::retry);
  EXPECT_NE(r.message.find("Could not connect"), std::string::npos) << r.message;
}

TEST(NotifierRules, ReadHttpAnswerGivesUpOnRefusalsAndBadAddresses) {
  plugin::Outcome r = read_http_answer(
      HttpError{HttpError::Kind::refused_destination, "127.0.0.1 is a loopback address"});
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_EQ(r.message, "127.0.0.1 is a loopback address");
  EXPECT_EQ(read_http_answer(HttpError{HttpError::Kind::bad_url, "bad"}).kind, Outcome::final);
  for (auto kind : {HttpError::Kind::dns, HttpError::Kind::connect, HttpError::Kind::timeout,
                    HttpError::Kind::tls, HttpError::Kind::too_large, HttpError::Kind::other})
    EXPECT_EQ(read_http_answer(HttpError{kind, "x"}).kind, Outcome::retry) << kind_name(kind);
}

// ---------------------------------------------------------------- webhook

TEST(NotifierWebhookSignature, MatchesAnIndependentHmac) {
  // Python: hmac.new(b"whsec-0123456789abcdef", b'1800000000.{"a":1}', sha256).hexdigest()
  EXPECT_EQ(webhook_signature(kSecret, 1'800'000'000, R"({"a":1})"),
            "t=1800000000,v1=d056fd5474ba03ed9cdbe1076f08cb25926142f7e99899ec3944232a3357657a");
}

TEST(NotifierWebhookSignature, VerifiesOnlyTheSameBodySecretAndAFreshTime) {
  const std::string body = R"({"event":"reminder_due"})";
  const std::int64_t t = 1'800'000'000;
  const std::string header = webhook_signature(kSecret, t, body);
  EXPECT_TRUE(verify_webhook_signature(header, kSecret, body, t));
  EXPECT_TRUE(verify_webhook_signature(header, kSecret, body, t + 300));
  EXPECT_TRUE(verify_webhook_signature(header, kSecret, body, t - 300));
  EXPECT_FALSE(verify_webhook_signature(header, kSecret, body, t + 301));
  EXPECT_FALSE(verify_webhook_signature(header, kSecret, body, t - 301));
  EXPECT_FALSE(verify_webhook_signature(header, kSecret, body + " ", t));
  EXPECT_FALSE(verify_webhook_signature(header, "whsec-0123456789abcdeX", body, t));
  // The time is part of what is signed: moving it breaks the signature.
  std::string moved = header;
  moved.replace(2, 10, std::to_string(t + 1));
  EXPECT_FALSE(verify_webhook_signature(moved, kSecret, body, t));
  // Malformed headers.
  for (std::string bad :
       {std::string(""), std::string("t=1800000000"), header.substr(header.find(',') + 1),
        "t=abc," + header.substr(13), "t=1800000000x," + header.substr(13),
        header.substr(0, header.size() - 1)})
    EXPECT_FALSE(verify_webhook_signature(bad, kSecret, body, t)) << bad;
  // A receiver may be handed several v1 values during a secret rotation.
  EXPECT_TRUE(verify_webhook_signature(header + ",v1=00", kSecret, body, t));
}

TEST_F(NotifierTest, WebhookPostsTheSignedPayload) {
  nlohmann::json config = {{"url", local("/hook")}, {"secret", kSecret}};
  plugin::Outcome r = send(webhook_notifier(), config);
  ASSERT_EQ(r.kind, Outcome::done) << r.message;
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.message, "");
  auto got = seen();
  ASSERT_EQ(got.size(), 1u);
  const Seen& s = got[0];
  EXPECT_EQ(s.method, "POST");
  EXPECT_EQ(s.path, "/hook");
  EXPECT_EQ(s.body, payload(n_));
  EXPECT_EQ(s.header("Content-Type"), "application/json");
  EXPECT_EQ(s.header("Peto-Event"), "reminder_due");
  EXPECT_EQ(s.header("Peto-Delivery"), "42");
  const std::int64_t now = clock_.now_ms() / 1000;
  std::string signature = s.header("Peto-Signature");
  EXPECT_TRUE(signature.starts_with("t=" + std::to_string(now) + ",v1=")) << signature;
  EXPECT_TRUE(verify_webhook_signature(signature, kSecret, s.body, now));
  EXPECT_FALSE(verify_webhook_signature(signature, kSecret, s.body + "x", now));
  EXPECT_FALSE(verify_webhook_signature(signature, "another-secret-16+", s.body, now));

  // A later attempt signs with the time of that attempt.
  clock_.advance(std::chrono::minutes(10));
  ASSERT_EQ(send(webhook_notifier(), config).kind, Outcome::done);
  got = seen();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].body, got[0].body);
  EXPECT_FALSE(
      verify_webhook_signature(got[1].header("Peto-Signature"), kSecret, got[1].body, now));
  EXPECT_TRUE(
      verify_webhook_signature(got[1].header("Peto-Signature"), kSecret, got[1].body, now + 600));
}

TEST_F(NotifierTest, WebhookMapsAnswersAndNeverFollowsRedirects) {
  nlohmann::json config = {{"url", local("/hook")}, {"secret", kSecret}};
  answer_with(308);
  plugin::Outcome r = send(webhook_notifier(), config);
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_NE(r.message.find("https://elsewhere.example/hook"), std::string::npos) << r.message;
  answer_with(503);
  EXPECT_EQ(send(webhook_notifier(), config).kind, Outcome::retry);
  answer_with(404);
  EXPECT_EQ(send(webhook_notifier(), config).kind, Outcome::final);
  EXPECT_EQ(seen().size(), 3u);
}

TEST_F(NotifierTest, WebhookToLoopbackIsRefusedWithoutAllowPrivate) {
  config_.allow_private_destinations = false;
  plugin::Outcome r = send(webhook_notifier(), {{"url", local("/hook")}, {"secret", kSecret}});
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_NE(r.message.find("loopback"), std::string::npos) << r.message;
  EXPECT_TRUE(seen().empty());
  // A name that resolves to loopback is refused the same way.
  r = send(webhook_notifier(),
           {{"url", "http://localhost:" + std::to_string(server_->port()) + "/hook"},
            {"secret", kSecret}});
  EXPECT_EQ(r.kind, Outcome::final) << r.message;
  EXPECT_TRUE(seen().empty());
}

// The issue's list and more: every form of a private or local address, as a
// webhook's host, is refused before anything is sent (nothing leaves this
// machine: each is refused before a connection is tried).
TEST_F(NotifierTest, WebhookRefusesEveryFormOfAPrivateAddress) {
  config_.allow_private_destinations = false;
  const std::string port = ":" + std::to_string(server_->port());
  const std::vector<std::string> hosts = {"127.0.0.1",
                                          "127.1",
                                          "127.0.0.2",
                                          "0x7f000001",
                                          "2130706433",
                                          "0177.0.0.1",
                                          "[::1]",
                                          "[::ffff:127.0.0.1]",
                                          "[::ffff:7f00:1]",
                                          "[64:ff9b::7f00:1]",
                                          "[2002:7f00:1::1]",
                                          "10.0.0.1",
                                          "172.16.0.1",
                                          "192.168.1.1",
                                          "169.254.169.254",
                                          "100.64.0.1",
                                          "[fc00::1]",
                                          "[fd12:3456::1]",
                                          "[fe80::1]",
                                          "0.0.0.0",
                                          "[::]",
                                          "224.0.0.1",
                                          "255.255.255.255",
                                          "localhost"};
  for (const auto& host : hosts) {
    plugin::Outcome r =
        send(webhook_notifier(), {{"url", "http://" + host + port + "/hook"}, {"secret", kSecret}});
    EXPECT_EQ(r.kind, Outcome::final) << host << ": " << r.message;
  }
  EXPECT_GE(hosts.size(), 20u);
  EXPECT_TRUE(seen().empty()) << "nothing reached the receiver";
}

TEST(NotifierWebhookValidate, ChecksTheAddressAndTheSecret) {
  const Notifier& hook = webhook_notifier();
  Config strict;
  Config open;
  open.allow_private_destinations = true;
  nlohmann::json good = {{"url", "https://hooks.example/in/abc"}, {"secret", kSecret}};
  EXPECT_TRUE(hook.validate(good, strict).empty());
  EXPECT_EQ(hook.summary(good), "https://hooks.example/…");

  auto errors = hook.validate({{"url", "ftp://hooks.example/"}, {"secret", "short"}}, strict);
  EXPECT_EQ(errors.count("url"), 1u);
  EXPECT_EQ(errors["secret"], "error_secret_short");
  EXPECT_EQ(hook.validate({{"url", "hooks.example/in"}, {"secret", kSecret}}, strict).count("url"),
            1u);
  EXPECT_EQ(hook.validate({{"url", "https://u:p@hooks.example/"}, {"secret", kSecret}}, strict)
                .count("url"),
            1u);
  // An IP literal is judged now; a name only when it is resolved, at send time.
  nlohmann::json loopback = {{"url", "http://127.0.0.1:9/hook"}, {"secret", kSecret}};
  EXPECT_NE(hook.validate(loopback, strict)["url"].find("loopback"), std::string::npos);
  EXPECT_TRUE(hook.validate(loopback, open).empty());
  EXPECT_EQ(hook.validate({{"url", "http://[::1]/hook"}, {"secret", kSecret}}, strict).count("url"),
            1u);
  EXPECT_TRUE(
      hook.validate({{"url", "http://localhost/hook"}, {"secret", kSecret}}, strict).empty());
  // What the HTTP client would refuse at send time is refused now.
  EXPECT_EQ(hook.validate({{"url", "http://2130706433/"}, {"secret", kSecret}}, open).count("url"),
            1u);
  EXPECT_EQ(hook.validate({{"url", "http://0x7f.1/"}, {"secret", kSecret}}, open).count("url"), 1u);
  EXPECT_EQ(
      hook.validate({{"url", "https://bücher.example/"}, {"secret", kSecret}}, open).count("url"),
      1u);
  EXPECT_TRUE(hook.validate({{"url", "https://xn--bcher-kva.example/"}, {"secret", kSecret}}, open)
                  .empty());
  EXPECT_EQ(
      hook.validate({{"url", "http://169.254.169.254/"}, {"secret", kSecret}}, open).count("url"),
      0u);
  EXPECT_EQ(hook.validate({{"url", "http://0.0.0.0/"}, {"secret", kSecret}}, open).count("url"),
            1u);
}

// ----------------------------------------------------------------- e-mail

class NotifierEmail : public NotifierTest {
 protected:
  NotifierEmail() {
    config_.smtp_url = "smtp://127.0.0.1:" + std::to_string(smtp_.port());
    config_.smtp_from = "Peto <peto@example.org>";
  }
  SmtpReceiver smtp_;
};

TEST_F(NotifierEmail, DeliversToTheAccountAddress) {
  plugin::Outcome r = send(email_notifier(), nlohmann::json::object());
  ASSERT_EQ(r.kind, Outcome::done) << r.message;
  auto mails = smtp_.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].from, "<peto@example.org>");
  EXPECT_EQ(mails[0].to, std::vector<std::string>{"<ada@example.org>"});
  ReadMail m = read_mail(mails[0].data);
  EXPECT_EQ(m.headers["From"], "Peto <peto@example.org>");
  EXPECT_EQ(m.headers["To"], "ada@example.org");
  EXPECT_EQ(m.headers["Subject"], "[peto] Call Ada back");
  EXPECT_EQ(m.headers["Content-Language"], "en");
  EXPECT_EQ(m.headers["Content-Type"], "text/plain; charset=UTF-8");
  EXPECT_EQ(m.headers["Date"], "Fri, 15 Jan 2027 08:00:00 +0000");
  EXPECT_TRUE(m.headers["Message-ID"].ends_with("@example.org>")) << m.headers["Message-ID"];
  EXPECT_EQ(m.body,
            "Call Ada back\r\n\r\nYou planned to call Ada Lovelace at Analytical Engines.\r\n\r\n"
            "https://peto.example/reminders/7\r\n");
}

TEST_F(NotifierEmail, WritesInTheNotificationsLanguage) {
  n_.language = "fr";
  n_.title =
      "Relancer l’équipe à propos de l’entretien de jeudi — n’oubliez pas de préparer vos "
      "questions";
  n_.body = "Votre candidature chez Société Générale est restée sans réponse depuis 14 jours.";
  plugin::Outcome r = send(email_notifier(), {{"to", "camille@example.fr"}});
  ASSERT_EQ(r.kind, Outcome::done) << r.message;
  auto mails = smtp_.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].to, std::vector<std::string>{"<camille@example.fr>"});
  ReadMail m = read_mail(mails[0].data);
  EXPECT_EQ(m.headers["To"], "camille@example.fr");
  EXPECT_EQ(m.headers["Content-Language"], "fr");
  EXPECT_EQ(m.headers["Subject"], "[peto] " + n_.title);
  EXPECT_NE(m.body.find("restée sans réponse depuis 14 jours"), std::string::npos) << m.body;
  // On the wire, everything is 7-bit and no line is longer than SMTP allows.
  for (char c : mails[0].data) EXPECT_LT(static_cast<unsigned char>(c), 128u);
  for (const auto& line : m.header_lines) EXPECT_LE(line.size(), 78u) << line;
}

TEST(NotifierEmailMessage, CollapsesAnInjectedHeader) {
  Notification n;
  n.title = "Hello\r\nBcc: victim@example.org\n\tX-Evil:\x01yes";
  n.body = "line one\nline two";
  n.language = "en\r\nX-Evil: 1";
  std::string m = email_message(n, "peto@example.org\r\nBcc: x@example.org", "a@example.org", 0);
  ReadMail mail = read_mail(m);
  EXPECT_EQ(mail.headers["Subject"], "[peto] Hello Bcc: victim@example.org X-Evil: yes");
  EXPECT_EQ(mail.headers["From"], "peto@example.org Bcc: x@example.org");
  EXPECT_EQ(mail.headers.count("Bcc"), 0u);
  EXPECT_EQ(mail.headers.count("X-Evil"), 0u);
  EXPECT_EQ(mail.headers.count("Content-Language"), 0u);  // not a language tag: left out
  EXPECT_EQ(mail.headers["Date"], "Thu, 01 Jan 1970 00:00:00 +0000");
  // Bare LFs in the body become CRLF.
  EXPECT_NE(m.find("line one\r\nline two\r\n"), std::string::npos);
}

TEST(NotifierEmailMessage, WrapsLongLinesAndEncodesWhatIsNotPlain) {
  Notification n;
  n.title = "T";
  n.body = std::string(200, 'a') + " = b \n.";
  std::string m = email_message(n, "peto@example.org", "a@example.org", 0);
  for (std::size_t at = 0; at < m.size();) {
    auto eol = m.find("\r\n", at);
    EXPECT_LE(eol - at, 76u) << m.substr(at, eol - at);
    at = eol + 2;
  }
  EXPECT_EQ(read_mail(m).body, "T\r\n\r\n" + std::string(200, 'a') + " = b \r\n.\r\n");
}

// A long subject is folded at its spaces, so no line passes 78 and the
// subject stays readable text; a word too long to fold goes as encoded words.
TEST(NotifierEmailMessage, FoldsALongSubjectAtItsSpaces) {
  Notification n;
  n.title =
      "Follow up with the hiring manager at Analytical Engines about the senior backend "
      "engineer position you applied to three weeks ago";
  std::string m = email_message(n, "peto@example.org", "a@example.org", 0);
  ReadMail mail = read_mail(m);
  EXPECT_EQ(mail.headers["Subject"], "[peto] " + n.title);
  EXPECT_EQ(m.find("=?UTF-8?"), std::string::npos) << m;
  int subject_lines = 0;
  bool in_subject = false;
  for (const auto& line : mail.header_lines) {
    EXPECT_LE(line.size(), 78u) << line;
    in_subject = line.starts_with("Subject:") || (in_subject && line.starts_with(" "));
    subject_lines += in_subject ? 1 : 0;
  }
  EXPECT_EQ(subject_lines, 2);
  n.title = "See " + std::string(90, 'x');
  mail = read_mail(email_message(n, "peto@example.org", "a@example.org", 0));
  EXPECT_EQ(mail.headers["Subject"], "[peto] " + n.title);
  for (const auto& line : mail.header_lines) EXPECT_LE(line.size(), 78u) << line;
}

// PETO_SMTP_FROM may carry a display name: plain, quoted where it needs to
// be, encoded when it is not ASCII; the envelope has the address alone.
TEST(NotifierEmailMessage, TheSenderMayHaveADisplayName) {
  Notification n;
  n.title = "T";
  auto from_of = [&](const char* from) {
    return read_mail(email_message(n, from, "a@example.org", 0)).headers["From"];
  };
  EXPECT_EQ(from_of("peto <peto@example.org>"), "peto <peto@example.org>");
  EXPECT_EQ(from_of("\"Peto, notices\" <peto@example.org>"),
            "\"Peto, notices\" <peto@example.org>");
  EXPECT_EQ(from_of("Job \"Search\" Bot <bot@example.org>"),
            "\"Job \\\"Search\\\" Bot\" <bot@example.org>");
  std::string raw = email_message(n, "Pétö Notices <p@example.org>", "a@example.org", 0);
  EXPECT_NE(raw.find("From: =?UTF-8?B?"), std::string::npos) << raw;
  EXPECT_EQ(read_mail(raw).headers["From"], "Pétö Notices <p@example.org>");
  EXPECT_NE(raw.find("@example.org>\r\nMIME-Version"), std::string::npos);  // Message-ID's domain
}

// smtp+starttls:// insists on TLS: a server that offers no STARTTLS gets
// neither the login nor the message, and the administrator is told why.
TEST_F(NotifierEmail, StarttlsRequiredSendsNothingToAServerWithoutIt) {
  config_.smtp_url = "smtp+starttls://peto:s3cret@127.0.0.1:" + std::to_string(smtp_.port());
  plugin::Outcome r = send(email_notifier(), nlohmann::json::object());
  EXPECT_EQ(r.kind, Outcome::retry) << r.message;
  EXPECT_NE(r.message.find("STARTTLS"), std::string::npos) << r.message;
  EXPECT_TRUE(smtp_.mails().empty());
  for (const auto& verb : smtp_.verbs()) {
    EXPECT_NE(verb, "AUTH");
    EXPECT_NE(verb, "MAIL");
  }
  // The same server through smtp:// takes it (STARTTLS only when offered).
  config_.smtp_url = "smtp://127.0.0.1:" + std::to_string(smtp_.port());
  EXPECT_EQ(send(email_notifier(), nlohmann::json::object()).kind, Outcome::done);
  ASSERT_EQ(smtp_.mails().size(), 1u);
  EXPECT_EQ(smtp_.mails()[0].from, "<peto@example.org>");
}

TEST_F(NotifierEmail, PermanentRejectIsFinalTemporaryIsRetried) {
  plugin::Outcome r = send(email_notifier(), {{"to", "reject@example.org"}});
  EXPECT_EQ(r.kind, Outcome::final) << r.message;
  EXPECT_NE(r.message.find("550"), std::string::npos) << r.message;
  r = send(email_notifier(), {{"to", "later@example.org"}});
  EXPECT_EQ(r.kind, Outcome::retry) << r.message;
  EXPECT_TRUE(smtp_.mails().empty());
}

TEST_F(NotifierEmail, WithoutAServerItSaysSo) {
  config_.smtp_url.clear();
  plugin::Outcome r = send(email_notifier(), nlohmann::json::object());
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_NE(r.message.find("PETO_SMTP_URL"), std::string::npos) << r.message;
  EXPECT_EQ(email_notifier().validate(nlohmann::json::object(), config_).count(""), 1u);
}

TEST_F(NotifierEmail, TheMailServerPassesTheDestinationPolicy) {
  config_.allow_private_destinations = false;
  plugin::Outcome r = send(email_notifier(), nlohmann::json::object());
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_NE(r.message.find("loopback"), std::string::npos) << r.message;
  config_.smtp_url = "smtp://localhost:" + std::to_string(smtp_.port());
  r = send(email_notifier(), nlohmann::json::object());
  EXPECT_EQ(r.kind, Outcome::final) << r.message;
  EXPECT_EQ(smtp_.connections(), 0);
}

// A name is resolved once, checked, and curl is pinned to that first
// address: when it is 127.0.0.1 the mail arrives there.
TEST_F(NotifierEmail, ANameIsResolvedCheckedAndPinned) {
  auto addresses = system_resolver()("localhost");
  if (addresses.empty() || addresses.front() != "127.0.0.1")
    GTEST_SKIP() << "localhost does not resolve to 127.0.0.1 first here";
  config_.smtp_url = "smtp://localhost:" + std::to_string(smtp_.port());
  plugin::Outcome r = send(email_notifier(), nlohmann::json::object());
  EXPECT_EQ(r.kind, Outcome::done) << r.message;
  EXPECT_EQ(smtp_.mails().size(), 1u);
}

TEST_F(NotifierEmail, AnUnreachableServerIsRetried) {
  config_.smtp_url = "smtp://127.0.0.1:" + std::to_string(closed_port());
  plugin::Outcome r = send(email_notifier(), nlohmann::json::object());
  EXPECT_EQ(r.kind, Outcome::retry);
  EXPECT_NE(r.message.find("Could not connect"), std::string::npos) << r.message;
}

TEST_F(NotifierEmail, NoAddressToSendToIsFinal) {
  recipient_.email.clear();
  EXPECT_EQ(send(email_notifier(), nlohmann::json::object()).kind, Outcome::final);
  EXPECT_EQ(send(email_notifier(), {{"to", "a@b\r\nRCPT TO:<c@d>"}}).kind, Outcome::final);
  EXPECT_TRUE(smtp_.mails().empty());
  EXPECT_EQ(email_notifier().validate({{"to", "not an address"}}, config_).count("to"), 1u);
  EXPECT_TRUE(email_notifier().validate({{"to", "camille@example.fr"}}, config_).empty());
}

// ------------------------------------------------------------------- ntfy

TEST_F(NotifierTest, NtfyPublishesJsonToTheServer) {
  nlohmann::json config = {{"server", local("/")}, {"topic", "peto-ada_42"}, {"token", "tk_abc"}};
  plugin::Outcome r = send(ntfy_notifier(), config);
  ASSERT_EQ(r.kind, Outcome::done) << r.message;
  auto got = seen();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].path, "/");
  EXPECT_EQ(got[0].header("Authorization"), "Bearer tk_abc");
  EXPECT_EQ(got[0].header("Content-Type"), "application/json");
  EXPECT_EQ(
      nlohmann::json::parse(got[0].body),
      (nlohmann::json{
          {"topic", "peto-ada_42"}, {"title", n_.title}, {"message", n_.body}, {"click", n_.url}}));

  // No token, no Authorization; a bare path is no place to click to.
  n_.url = "/reminders/7";
  ASSERT_EQ(send(ntfy_notifier(), {{"server", local("")}, {"topic", "t"}}).kind, Outcome::done);
  got = seen();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].header("Authorization"), "");
  EXPECT_FALSE(nlohmann::json::parse(got[1].body).contains("click"));
}

TEST_F(NotifierTest, NtfyRefusingTheTokenRetiresTheConnection) {
  for (int status : {401, 403}) {
    answer_with(status);
    plugin::Outcome r =
        send(ntfy_notifier(), {{"server", local("")}, {"topic", "t"}, {"token", "x"}});
    EXPECT_EQ(r.kind, Outcome::unusable) << status;
    EXPECT_FALSE(r.keep_secrets);
    EXPECT_EQ(r.http_status, status);
  }
  answer_with(429);
  EXPECT_EQ(send(ntfy_notifier(), {{"server", local("")}, {"topic", "t"}}).kind, Outcome::retry);
}

TEST(NotifierNtfyValidate, TopicAndServer) {
  const Notifier& ntfy = ntfy_notifier();
  Config c;
  EXPECT_TRUE(ntfy.validate({{"topic", "job-search_2026"}}, c).empty());  // default server
  EXPECT_EQ(ntfy.fields()[0].default_value, "https://ntfy.sh");
  EXPECT_EQ(ntfy.summary({{"topic", "abc"}}), "https://ntfy.sh/abc");
  for (std::string bad :
       std::vector<std::string>{"", "has space", "a/b", std::string(65, 'a'), "é"})
    EXPECT_EQ(ntfy.validate({{"topic", bad}}, c).count("topic"), 1u) << bad;
  EXPECT_EQ(ntfy.validate({{"topic", "t"}, {"server", "http://10.0.0.1"}}, c).count("server"), 1u);
}

// ----------------------------------------------------------------- Gotify

TEST_F(NotifierTest, GotifyPostsAMessageWithItsToken) {
  nlohmann::json config = {{"server", local("/")}, {"token", "AbCdEf.123"}};
  plugin::Outcome r = send(gotify_notifier(), config);
  ASSERT_EQ(r.kind, Outcome::done) << r.message;
  auto got = seen();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].path, "/message");
  EXPECT_EQ(got[0].header("X-Gotify-Key"), "AbCdEf.123");
  nlohmann::json body = nlohmann::json::parse(got[0].body);
  EXPECT_EQ(body["title"], n_.title);
  EXPECT_EQ(body["message"], n_.body);
  EXPECT_EQ(body["priority"], 5);
  EXPECT_EQ(body["extras"]["client::notification"]["click"]["url"], n_.url);

  n_.url = "/reminders/7";
  ASSERT_EQ(send(gotify_notifier(), config).kind, Outcome::done);
  EXPECT_FALSE(nlohmann::json::parse(seen().back().body).contains("extras"));

  for (int status : {401, 403}) {
    answer_with(status);
    r = send(gotify_notifier(), config);
    EXPECT_EQ(r.kind, Outcome::unusable) << status;
    EXPECT_FALSE(r.keep_secrets);
  }
  answer_with(500);
  EXPECT_EQ(send(gotify_notifier(), config).kind, Outcome::retry);
}

// --------------------------------------------------------------- Telegram

TEST_F(NotifierTest, TelegramSendsThroughTheBotApi) {
  nlohmann::json config = {{"bot_token", kBotToken}, {"chat_id", "-1001234567890"}};
  plugin::Outcome r = send(telegram_notifier(), config);
  ASSERT_EQ(r.kind, Outcome::done) << r.message;
  auto got = seen();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].path, std::string("/bot") + kBotToken + "/sendMessage");
  EXPECT_EQ(nlohmann::json::parse(got[0].body),
            (nlohmann::json{{"chat_id", "-1001234567890"},
                            {"text", n_.title + "\n\n" + n_.body + "\n\n" + n_.url},
                            {"disable_web_page_preview", true}}));
}

TEST_F(NotifierTest, TelegramMapsItsRefusals) {
  nlohmann::json config = {{"bot_token", kBotToken}, {"chat_id", "12345"}};
  answer_with(401, R"({"ok":false,"error_code":401,"description":"Unauthorized"})");
  plugin::Outcome r = send(telegram_notifier(), config);
  EXPECT_EQ(r.kind, Outcome::unusable);
  EXPECT_FALSE(r.keep_secrets);

  answer_with(
      403,
      R"({"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"})");
  r = send(telegram_notifier(), config);
  EXPECT_EQ(r.kind, Outcome::unusable);
  EXPECT_TRUE(r.keep_secrets);

  answer_with(400, R"({"ok":false,"error_code":400,"description":"Bad Request: chat not found"})");
  r = send(telegram_notifier(), config);
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_NE(r.message.find("chat not found"), std::string::npos) << r.message;

  answer_with(429, R"({"ok":false,"error_code":429,"parameters":{"retry_after":5}})");
  EXPECT_EQ(send(telegram_notifier(), config).kind, Outcome::retry);
}

TEST_F(NotifierTest, TelegramNeverRepeatsTheToken) {
  nlohmann::json config = {{"bot_token", kBotToken}, {"chat_id", "12345"}};
  answer_with(400, std::string(R"({"ok":false,"description":"bad token )") + kBotToken + "\"}");
  plugin::Outcome r = send(telegram_notifier(), config);
  EXPECT_EQ(r.message.find(kBotToken), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("AAHdqTcvCH1vGWJx"), std::string::npos) << r.message;

  config_.telegram_api_url = "http://127.0.0.1:" + std::to_string(closed_port());
  r = send(telegram_notifier(), config);
  EXPECT_EQ(r.kind, Outcome::retry);
  EXPECT_EQ(r.message.find("AAHdqTcvCH1vGWJx"), std::string::npos) << r.message;

  config_.telegram_api_url = "not a url";
  r = send(telegram_notifier(), config);
  EXPECT_EQ(r.kind, Outcome::final);
  EXPECT_EQ(r.message.find("AAHdqTcvCH1vGWJx"), std::string::npos) << r.message;
}

TEST(NotifierTelegramValidate, TokenAndChat) {
  const Notifier& tg = telegram_notifier();
  Config c;
  EXPECT_TRUE(tg.validate({{"bot_token", kBotToken}, {"chat_id", "12345"}}, c).empty());
  EXPECT_TRUE(tg.validate({{"bot_token", kBotToken}, {"chat_id", "@peto_news"}}, c).empty());
  auto errors = tg.validate({{"bot_token", "12345"}, {"chat_id", "me"}}, c);
  EXPECT_EQ(errors["bot_token"], "error_telegram_token");
  EXPECT_EQ(errors["chat_id"], "error_telegram_chat");
  EXPECT_EQ(tg.summary({{"bot_token", kBotToken}, {"chat_id", "12345"}}).find("AAHd"),
            std::string::npos);
}

}  // namespace
}  // namespace peto::notify
