// E-mail over SMTP: one plain-text message per notification, through the
// instance's mail server (PETO_SMTP_URL), from PETO_SMTP_FROM.
//
// SMTP is not HTTP, so it does not go through net::HttpClient, but it keeps the
// same door: the server's name is resolved here, every address must pass the
// destination policy, and curl is pinned to the checked address
// (CURLOPT_RESOLVE, plus a socket callback that refuses any other).
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sodium.h>
#include <sys/socket.h>

#include <boost/url.hpp>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>

#include "core/mailbox.h"
#include "core/token.h"
#include "core/utf8.h"
#include "net/destination.h"
#include "net/pinned_socket.h"
#include "notify/builtin.h"
#include "notify/notifiers.h"

namespace peto::notify {
namespace {

constexpr long kTimeoutMs = 30000;
constexpr long kConnectTimeoutMs = 10000;

bool is_space_or_control(unsigned char c) { return c <= 32 || c == 127; }

// Every run of whitespace and control characters (CR and LF among them)
// becomes one space, and the ends are trimmed: a value that cannot start a
// new header line.
std::string collapse(std::string_view s) {
  std::string out;
  bool gap = false;
  for (char ch : s) {
    if (is_space_or_control(static_cast<unsigned char>(ch))) {
      gap = !out.empty();
      continue;
    }
    if (gap) out += ' ';
    gap = false;
    out += ch;
  }
  return out;
}

bool is_ascii(std::string_view s) {
  for (char ch : s)
    if (static_cast<unsigned char>(ch) >= 128) return false;
  return true;
}

// RFC 2047 "B" encoded words of at most 39 bytes of whole UTF-8 characters
// each, folded onto continuation lines, so every line stays under 78.
std::string encoded_words(std::string_view text) {
  constexpr std::size_t kChunk = 39;  // 52 base64 characters: "Subject: " + a word < 78
  std::string out;
  while (!text.empty()) {
    std::size_t n = utf8_prefix(text, kChunk);
    if (n == 0) n = std::min(kChunk, text.size());  // not UTF-8: cut anywhere
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + base64(text.substr(0, n)) + "?=";
    text.remove_prefix(n);
  }
  return out;
}

// `name: value` with the value folded at its spaces (RFC 5322 §2.2.3), so
// that no line is longer than 78; a value that has a word too long to fold
// that way, or that is not ASCII, goes as encoded words, which fold anywhere.
std::string header(std::string_view name, std::string_view value) {
  std::string out = std::string(name) + ":";
  std::size_t width = out.size();
  bool foldable = is_ascii(value);
  for (std::size_t at = 0; foldable && at < value.size();) {
    std::size_t end = std::min(value.find(' ', at), value.size());
    foldable = end - at < 78 - width;  // each word fits even on the first line
    at = end + 1;
  }
  if (!foldable) return out + " " + encoded_words(value) + "\r\n";
  for (std::size_t at = 0; at < value.size();) {
    std::size_t end = std::min(value.find(' ', at), value.size());
    std::string_view word = value.substr(at, end - at);
    if (width + 1 + word.size() > 78) {
      out += "\r\n";
      width = 0;
    }
    out += " ";
    out += word;
    width += 1 + word.size();
    at = end + 1;
  }
  return out + "\r\n";
}

// RFC 5322 atext and spaces: a display name that needs no quotes.
bool plain_phrase(std::string_view name) {
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) &&
        std::strchr(" !#$%&'*+-/=?^_`{|}~", ch) == nullptr)
      return false;
  return true;
}

// The From field's value: "name <address>", the name as it is, quoted, or
// in encoded words when it is not ASCII.
std::string from_field(const Mailbox& from) {
  if (from.name.empty()) return from.address;
  std::string name;
  if (!is_ascii(from.name)) {
    name = encoded_words(from.name);
  } else if (plain_phrase(from.name)) {
    name = from.name;
  } else {
    name = "\"";
    for (char ch : from.name) {
      if (ch == '"' || ch == '\\') name += '\\';
      name += ch;
    }
    name += '"';
  }
  return name + " <" + from.address + ">";
}

// Quoted-printable (RFC 2045 §6.7) with CRLF line ends; lines of at most 76.
std::string quoted_printable(std::string_view text) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  while (true) {
    auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    if (line.ends_with('\r')) line.remove_suffix(1);
    std::size_t width = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      auto c = static_cast<unsigned char>(line[i]);
      bool last = i + 1 == line.size();
      bool plain = (c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last);
      std::string piece = plain ? std::string(1, static_cast<char>(c))
                                : std::string{'=', kHex[c >> 4], kHex[c & 15]};
      if (width + piece.size() > 75) {  // room for the soft break's '='
        out += "=\r\n";
        width = 0;
      }
      out += piece;
      width += piece.size();
    }
    if (eol == std::string_view::npos) break;
    out += "\r\n";
    text.remove_prefix(eol + 1);
  }
  return out;
}

// RFC 5322 date in UTC: "Thu, 03 Dec 2026 09:56:46 +0000".
std::string mail_date(std::int64_t now_ms) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::time_t t = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[64];
  std::snprintf(out, sizeof(out), "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return out;
}

bool language_tag(std::string_view lang) {
  if (lang.empty() || lang.size() > 35) return false;
  for (char ch : lang)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-') return false;
  return true;
}

plugin::Outcome outcome(plugin::Outcome::Kind o, std::string message) {
  plugin::Outcome r;
  r.kind = o;
  r.message = std::move(message);
  return r;
}

// --------------------------------------------------------- the mail server

struct MailServer {
  std::string url;  // for curl: scheme://host:port, no user info
  std::string host;
  bool is_ip = false;
  int port = 0;
  bool require_tls = false;  // smtp+starttls://: STARTTLS or nothing is sent
  std::string user, password;
};

std::optional<MailServer> parse_server(const std::string& smtp_url) {
  auto parsed = boost::urls::parse_absolute_uri(smtp_url);
  if (!parsed) return std::nullopt;
  std::string scheme(parsed->scheme());
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "smtp" && scheme != "smtp+starttls" && scheme != "smtps") return std::nullopt;
  MailServer s;
  s.require_tls = scheme == "smtp+starttls";
  switch (parsed->host_type()) {
    case boost::urls::host_type::ipv4:
    case boost::urls::host_type::ipv6:
      s.host = std::string(parsed->host_address());
      s.is_ip = true;
      break;
    case boost::urls::host_type::name:
      s.host = std::string(parsed->host_address());  // decoded
      for (char& c : s.host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      break;
    default:
      return std::nullopt;
  }
  if (s.host.empty() || (!s.is_ip && s.host.find_first_of(":/@ \r\n") != std::string::npos))
    return std::nullopt;
  s.port = scheme == "smtps" ? 465 : s.require_tls ? 587 : 25;
  if (s.require_tls) scheme = "smtp";  // for curl, which the option below makes insist
  if (parsed->has_port() && !parsed->port().empty()) {
    s.port = static_cast<int>(parsed->port_number());
    if (s.port < 1 || s.port > 65535) return std::nullopt;
  }
  if (parsed->has_userinfo()) {
    s.user = std::string(parsed->user());
    s.password = std::string(parsed->password());
  }
  bool v6 = s.host.find(':') != std::string::npos;
  s.url = scheme + "://" + (v6 ? "[" + s.host + "]" : s.host) + ":" + std::to_string(s.port);
  return s;
}

struct Reader {
  std::string_view left;
};

size_t read_message(char* buffer, size_t size, size_t n, void* userp) {
  auto* r = static_cast<Reader*>(userp);
  std::size_t len = std::min(size * n, r->left.size());
  std::memcpy(buffer, r->left.data(), len);
  r->left.remove_prefix(len);
  return len;
}

struct CurlFree {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// The checked address of the mail server, or why there is none.
std::variant<std::string, plugin::Outcome> approve(const MailServer& server, bool allow_private) {
  std::vector<std::string> addresses;
  if (server.is_ip) {
    addresses.push_back(server.host);
  } else {
    addresses = net::system_resolver()(server.host);
    if (addresses.empty())
      return outcome(plugin::Outcome::Kind::retry,
                     "Could not find the address of the mail server " + server.host + ".");
  }
  net::DestinationPolicy policy{allow_private};
  for (const auto& a : addresses) {
    if (Status s = policy.check(a); !s) {
      std::string why = server.is_ip ? s.message()
                                     : "The mail server " + server.host + " resolves to " + a +
                                           ", and " + s.message();
      return outcome(plugin::Outcome::Kind::final, why + ".");
    }
  }
  return addresses.front();
}

// The CURLOPT_RESOLVE entry that pins the server's name to the checked
// address `ip`, or none when the server was given as an address.
std::unique_ptr<curl_slist, CurlFree> pinned_resolve(const MailServer& server,
                                                     const std::string& ip) {
  std::unique_ptr<curl_slist, CurlFree> resolve;
  if (!server.is_ip) {
    std::string pinned = ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
    resolve.reset(curl_slist_append(
        nullptr, (server.host + ":" + std::to_string(server.port) + ":" + pinned).c_str()));
    if (!resolve) throw std::bad_alloc();
  }
  return resolve;
}

// How `c` reaches the server: no proxy, the timeouts, only the pinned address,
// TLS when it can, and the instance's credentials.
void set_connection_options(CURL* c, const MailServer& server, curl_slist* resolve,
                            net::PinnedSocket& pin) {
  curl_easy_setopt(c, CURLOPT_URL, server.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, kTimeoutMs);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  if (resolve != nullptr) curl_easy_setopt(c, CURLOPT_RESOLVE, resolve);
  pin.install(c);
  // smtp+starttls://: STARTTLS, or nothing is sent (not even the login);
  // smtp://: STARTTLS whenever the server offers it; smtps:// is TLS from the
  // start.
  curl_easy_setopt(c, CURLOPT_USE_SSL,
                   static_cast<long>(server.require_tls ? CURLUSESSL_ALL : CURLUSESSL_TRY));
  if (!server.user.empty()) {
    curl_easy_setopt(c, CURLOPT_USERNAME, server.user.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, server.password.c_str());
  }
}

// What `c` sends: the envelope, then `message` read through `reader`.
void set_message_options(CURL* c, const std::string& mail_from, curl_slist* rcpts,
                         const std::string& message, Reader& reader, char* error_text) {
  curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpts);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(message.size()));
  curl_easy_setopt(c, CURLOPT_READFUNCTION, &read_message);
  curl_easy_setopt(c, CURLOPT_READDATA, &reader);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
}

// The plugin::Outcome of a transfer on `c` that ended with `rc`, not CURLE_OK:
// failed (to be retried) or final when the server refused the recipient.
plugin::Outcome failure_of(CURL* c, CURLcode rc, const char* error_text, const MailServer& server,
                           const std::string& rcpt) {
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  std::string detail = error_text[0] != 0 ? error_text : curl_easy_strerror(rc);
  using Kind = plugin::Outcome::Kind;
  switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
      return outcome(Kind::retry, "The mail server " + server.host + " did not answer within " +
                                      std::to_string(kTimeoutMs / 1000) + " s.");
    case CURLE_COULDNT_CONNECT:
      return outcome(Kind::retry,
                     "Could not connect to the mail server " + server.host + ": " + detail + ".");
    case CURLE_USE_SSL_FAILED:
      return outcome(Kind::retry, "The mail server " + server.host +
                                      " does not offer STARTTLS, which PETO_SMTP_URL "
                                      "(smtp+starttls://) requires; nothing was sent.");
    case CURLE_LOGIN_DENIED:
      // The instance's account at its mail server, not this connection: an
      // administrator can mend it before the retries run out.
      return outcome(Kind::retry, "The mail server " + server.host +
                                      " refused peto's user name or password; the "
                                      "administrator should check PETO_SMTP_URL.");
    default:
      break;
  }
  plugin::Outcome r;
  if (code >= 500 && code < 600) {
    r = outcome(Kind::final, "The mail server refused the message for " + rcpt + " (" +
                                 std::to_string(code) + "): " + detail + ".");
  } else {
    r = outcome(Kind::retry,
                "Sending the e-mail through " + server.host + " failed: " + detail + ".");
  }
  if (code > 0) r.http_status = static_cast<int>(code);
  return r;
}

plugin::Outcome deliver(const MailServer& server, const std::string& ip, const std::string& from,
                        const std::string& rcpt, const std::string& message) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, CurlFree> h(curl_easy_init());
  if (!h) throw std::bad_alloc();
  CURL* c = h.get();

  net::PinnedSocket pin;
  if (!pin.set(ip, server.port))
    return outcome(plugin::Outcome::Kind::final, "'" + ip + "' is not an address to connect to.");
  std::unique_ptr<curl_slist, CurlFree> resolve = pinned_resolve(server, ip);
  std::unique_ptr<curl_slist, CurlFree> rcpts(
      curl_slist_append(nullptr, ("<" + rcpt + ">").c_str()));
  if (!rcpts) throw std::bad_alloc();
  std::string mail_from = "<" + from + ">";
  Reader reader{message};
  char error_text[CURL_ERROR_SIZE] = {0};

  set_connection_options(c, server, resolve.get(), pin);
  set_message_options(c, mail_from, rcpts.get(), message, reader, error_text);

  CURLcode rc = curl_easy_perform(c);
  if (pin.refused)
    return outcome(plugin::Outcome::Kind::final, "peto refused to connect to the mail server " +
                                                     server.host +
                                                     " at an address it had not checked.");
  if (rc == CURLE_OK) return outcome(plugin::Outcome::Kind::done, "");
  return failure_of(c, rc, error_text, server, rcpt);
}

class Email final : public Notifier {
 public:
  std::string_view name() const override { return "email"; }
  std::string_view label_key() const override { return "notifier_email"; }

  std::vector<FieldSpec> fields() const override {
    return {builtin::field("email", "to", FieldSpec::Type::email, {.required = false})};
  }

  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const override {
    ConfigErrors errors;
    if (instance.smtp_url.empty()) errors[""] = "error_email_no_smtp";
    std::string to = builtin::text(config, "to");
    if (!to.empty() && !plausible_address(to)) errors["to"] = "error_email_invalid";
    return errors;
  }

  std::string summary(const nlohmann::json& config) const override {
    std::string to = builtin::text(config, "to");
    return to.empty() ? "(the account's e-mail address)" : to;
  }

  plugin::Outcome send(const Notification& n, const nlohmann::json& config, const Recipient& to,
                       const SendContext& ctx) const override {
    using Kind = plugin::Outcome::Kind;
    if (ctx.config.smtp_url.empty())
      return outcome(Kind::final,
                     "E-mail is not set up on this peto: the administrator has to set "
                     "PETO_SMTP_URL.");
    auto server = parse_server(ctx.config.smtp_url);
    if (!server)
      return outcome(Kind::final,
                     "PETO_SMTP_URL is not a usable smtp+starttls://, smtps:// or smtp:// "
                     "address; the administrator has to correct it.");
    std::string rcpt = builtin::text(config, "to");
    if (rcpt.empty()) rcpt = to.email;
    if (!plausible_address(rcpt))
      return outcome(Kind::final,
                     "There is no valid e-mail address to send "
                     "to; set one on the connection.");
    auto from = parse_mailbox(ctx.config.smtp_from);
    if (!from)
      return outcome(Kind::final,
                     "PETO_SMTP_FROM is not a usable e-mail "
                     "address; the administrator has to "
                     "correct it.");
    auto ip = approve(*server, ctx.config.allow_private_destinations);
    if (auto* refused = std::get_if<plugin::Outcome>(&ip)) return *refused;
    return deliver(*server, std::get<std::string>(ip), from->address, rcpt,
                   email_message(n, ctx.config.smtp_from, rcpt, ctx.clock.now_ms()));
  }
};

}  // namespace

const Notifier& email_notifier() {
  static const Email email;
  return email;
}

std::string email_message(const Notification& n, std::string_view from, std::string_view to,
                          std::int64_t now_ms) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
  std::string subject = collapse("[peto] " + n.title);
  Mailbox sender = parse_mailbox(from).value_or(Mailbox{"", collapse(from)});
  std::string domain = sender.address.substr(sender.address.rfind('@') + 1);  // npos + 1 == 0
  if (domain.empty()) domain = "peto";
  unsigned char id[16];
  randombytes_buf(id, sizeof(id));
  char id_hex[sizeof(id) * 2 + 1];
  sodium_bin2hex(id_hex, sizeof(id_hex), id, sizeof(id));

  std::string text = n.title;
  for (const std::string* part : {&n.body, &n.url})
    if (!part->empty()) text += "\n\n" + *part;
  text += "\n";

  std::string m;
  m += "From: " + from_field(sender) + "\r\n";
  m += "To: " + collapse(to) + "\r\n";
  m += header("Subject", subject);
  m += "Date: " + mail_date(now_ms) + "\r\n";
  m += "Message-ID: <" + std::string(id_hex) + "@" + domain + ">\r\n";
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: text/plain; charset=UTF-8\r\n";
  m += "Content-Transfer-Encoding: quoted-printable\r\n";
  if (language_tag(n.language)) m += "Content-Language: " + n.language + "\r\n";
  m += "Auto-Submitted: auto-generated\r\n";  // RFC 3834: no vacation replies,
                                              // please
  m += "\r\n";
  m += quoted_printable(text);
  return m;
}

}  // namespace peto::notify
