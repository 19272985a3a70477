#include "core/config.h"

#include "core/mailbox.h"
#include "core/token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace peto {

namespace {

using Getenv = std::function<const char*(const char*)>;

std::optional<std::string> lookup(const Getenv& getenv, const char* name) {
  const char* v = getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

// One line whatever the value held: its control characters are shown as \xNN.
Status bad(const char* name, const std::string& expected, const std::string& got) {
  std::string shown;
  for (char ch : got) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 32 && c != 127) {
      shown += ch;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      shown += hex;
    }
  }
  return Status::invalid(std::string(name) + ": expected " + expected + ", got '" + shown + "'");
}

Status parse_int(const Getenv& env, const char* name, int min, int max, int* out) {
  auto v = lookup(env, name);
  if (!v) return Status::ok();
  int n = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (v->empty() || ec != std::errc() || p != v->data() + v->size() || n < min || n > max)
    return bad(name, "a whole number from " + std::to_string(min) + " to " + std::to_string(max),
               *v);
  *out = n;
  return Status::ok();
}

Status parse_bool(const Getenv& env, const char* name, bool* out) {
  auto v = lookup(env, name);
  if (!v) return Status::ok();
  std::string s = *v;
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "1" || s == "yes" || s == "on")
    *out = true;
  else if (s == "false" || s == "0" || s == "no" || s == "off")
    *out = false;
  else
    return bad(name, "true or false", *v);
  return Status::ok();
}

Status parse_listen(const Getenv& env, Config* c) {
  auto v = lookup(env, "PETO_LISTEN");
  if (!v) return Status::ok();
  auto colon = v->rfind(':');
  if (colon == std::string::npos || colon == 0) return bad("PETO_LISTEN", "HOST:PORT", *v);
  std::string host = v->substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  std::string port_text = v->substr(colon + 1);
  unsigned port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || p != port_text.data() + port_text.size() ||
      port > 65535)
    return bad("PETO_LISTEN", "HOST:PORT with a port from 0 to 65535", *v);
  c->listen_host = host;
  c->listen_port = static_cast<std::uint16_t>(port);
  return Status::ok();
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

const std::vector<ConfigVariable>& config_variables() {
  static const std::vector<ConfigVariable> vars = {
      {"PETO_DATABASE_URL", "sqlite://./data/peto.db",
       "sqlite://PATH or postgres://USER:PASSWORD@HOST:PORT/DB"},
      {"PETO_DATA_DIR", "./data", "uploads, heartbeats, the generated secret key"},
      {"PETO_LISTEN", "127.0.0.1:8080", "address the web app listens on"},
      {"PETO_PUBLIC_URL", "(empty)",
       "absolute base for links in messages, e.g. https://peto.example"},
      {"PETO_TRUSTED_PROXIES", "(empty)",
       "reverse proxies whose X-Forwarded-For or Forwarded header names the client"},
      {"PETO_SECRET_KEY", "(generated)",
       "at least 32 characters; generated into DATA_DIR/secret_key (mode 0600) if unset"},
      {"PETO_SCRUB_EVERY_DAYS", "7", "days between checks of one upload; 0 = every pass"},
      {"PETO_MEDIA_SWEEP", "true", "remove files no record names"},
      {"PETO_MEDIA_SWEEP_GRACE_HOURS", "24", "age a file must reach before the sweep (at least 1)"},
      {"PETO_ALLOW_PRIVATE_DESTINATIONS", "false",
       "allow webhooks and stores on private, loopback and link-local addresses"},
      {"PETO_CAPTURE_ROBOTS", "true",
       "captures by link honour the site's robots.txt (false: an administrator's choice)"},
      {"PETO_CAPTURE_PAGE_KEEP_DAYS", "30",
       "days the kept source of a capture not accepted stays; 0 = kept for good"},
      {"PETO_SMTP_URL", "(empty)",
       "smtp+starttls://[USER:PASS@]HOST[:PORT] (TLS required, port 587), smtps://… (TLS "
       "from the start, 465) or smtp://… (STARTTLS only when offered, 25) for e-mail notices"},
      {"PETO_SMTP_FROM", "peto@localhost",
       "the From of e-mail notices: an address, or a name and an address (peto "
       "<peto@example.org>)"},
      {"PETO_TELEGRAM_API_URL", "https://api.telegram.org", "the Telegram Bot API's address"},
      {"PETO_LOG_LEVEL", "info", "debug, info, warning, error"},
      {"PETO_LOG_FORMAT", "text at a terminal, else json", "json or text"},
      {"PETO_BACKGROUND_WORK", "true", "a worker runs: slow work is queued, not done inline"},
      {"PETO_UPLOAD_MAX_MB", "25", "largest upload accepted, in MB"},
      {"PETO_BACKUP_DIR", "DATA_DIR/backups", "where backups are written"},
      {"PETO_BACKUP_SCHEDULE", "off", "off, daily or weekly: the scheduled backup"},
      {"PETO_BACKUP_HOUR", "3", "the hour (UTC, 0-23) of the scheduled backup"},
      {"PETO_BACKUP_WEEKDAY", "0", "the weekday of a weekly backup, 0 = Monday"},
      {"PETO_BACKUP_KEEP", "7", "scheduled backups kept (1-365); older ones are deleted"},
      {"PETO_STORE_LOCAL_ROOT", "DATA_DIR/stores",
       "each account's local-folder stores write only below <root>/<account id>"},
      {"PETO_OIDC_ISSUER", "(empty)",
       "an OpenID Connect provider's issuer address: sign-in through it (empty = off)"},
      {"PETO_OIDC_CLIENT_ID", "(empty)", "peto's client id at the provider"},
      {"PETO_OIDC_CLIENT_SECRET", "(empty)", "peto's client secret at the provider"},
      {"PETO_OIDC_SCOPES", "openid email profile", "the scopes asked for"},
      {"PETO_OIDC_AUTO_REGISTER", "false",
       "a person the provider vouches for (verified e-mail) gets an account at the first sign-in"},
      {"PETO_OIDC_NAME", "(empty)",
       "the provider's name on the sign-in button (empty: single sign-on)"},
  };
  return vars;
}

namespace {

// Where peto keeps its data: PETO_DATA_DIR, PETO_DATABASE_URL.
Status read_storage(const Getenv& env, Config& c) {
  if (auto v = lookup(env, "PETO_DATA_DIR")) {
    if (v->empty()) return bad("PETO_DATA_DIR", "a folder path", *v);
    c.data_dir = *v;
  }
  c.database_url = "sqlite://" + c.data_dir + "/peto.db";
  if (auto v = lookup(env, "PETO_DATABASE_URL")) {
    bool sqlite = starts_with(*v, "sqlite://") && v->size() > 9;
    bool pg = starts_with(*v, "postgres://") || starts_with(*v, "postgresql://");
    if (!sqlite && !pg) return bad("PETO_DATABASE_URL", "sqlite://PATH or postgres://…", *v);
    c.database_url = *v;
  }
  return Status::ok();
}

// The web side: PETO_LISTEN, PETO_PUBLIC_URL, PETO_TRUSTED_PROXIES,
// PETO_SECRET_KEY.
Status read_web(const Getenv& env, Config& c) {
  if (auto s = parse_listen(env, &c); !s) return s;
  if (auto v = lookup(env, "PETO_PUBLIC_URL")) {
    std::string u = *v;
    while (!u.empty() && u.back() == '/') u.pop_back();
    if (!u.empty() && !starts_with(u, "http://") && !starts_with(u, "https://"))
      return bad("PETO_PUBLIC_URL", "an http:// or https:// URL", *v);
    c.public_url = u;
  }
  if (auto v = lookup(env, "PETO_TRUSTED_PROXIES")) {
    auto proxies = AddressSet::parse(*v);
    if (!proxies)
      return bad("PETO_TRUSTED_PROXIES", "IP addresses or networks such as 10.0.0.0/8", *v);
    c.trusted_proxies = std::move(*proxies);
  }
  if (auto v = lookup(env, "PETO_SECRET_KEY")) {
    if (v->size() < 32) return bad("PETO_SECRET_KEY", "at least 32 characters", "(hidden)");
    c.secret_key = *v;
  }
  return Status::ok();
}

// Documents, captures and outgoing requests.
Status read_media(const Getenv& env, Config& c) {
  if (auto s = parse_int(env, "PETO_SCRUB_EVERY_DAYS", 0, 3650, &c.scrub_every_days); !s) return s;
  if (auto s = parse_bool(env, "PETO_MEDIA_SWEEP", &c.media_sweep); !s) return s;
  if (auto s =
          parse_int(env, "PETO_MEDIA_SWEEP_GRACE_HOURS", 1, 24 * 365, &c.media_sweep_grace_hours);
      !s)
    return s;
  if (auto s = parse_bool(env, "PETO_ALLOW_PRIVATE_DESTINATIONS", &c.allow_private_destinations);
      !s)
    return s;
  if (auto s = parse_bool(env, "PETO_CAPTURE_ROBOTS", &c.capture_robots); !s) return s;
  if (auto s = parse_int(env, "PETO_CAPTURE_PAGE_KEEP_DAYS", 0, 3650, &c.capture_page_keep_days);
      !s)
    return s;
  return Status::ok();
}

// E-mail and Telegram notices.
Status read_notices(const Getenv& env, Config& c) {
  if (auto v = lookup(env, "PETO_SMTP_URL")) {
    if (!v->empty() && !starts_with(*v, "smtp://") && !starts_with(*v, "smtp+starttls://") &&
        !starts_with(*v, "smtps://"))
      return bad("PETO_SMTP_URL",
                 "smtp+starttls://HOST[:PORT], smtps://HOST[:PORT] or smtp://HOST[:PORT]", *v);
    c.smtp_url = *v;
  }
  if (auto v = lookup(env, "PETO_SMTP_FROM")) {
    if (!parse_mailbox(*v))
      return bad("PETO_SMTP_FROM", "an e-mail address, or a name and one: peto <peto@example.org>",
                 *v);
    c.smtp_from = *v;
  }
  if (auto v = lookup(env, "PETO_TELEGRAM_API_URL")) {
    std::string u = *v;
    while (!u.empty() && u.back() == '/') u.pop_back();
    if (!starts_with(u, "http://") && !starts_with(u, "https://"))
      return bad("PETO_TELEGRAM_API_URL", "an http:// or https:// URL", *v);
    c.telegram_api_url = u;
  }
  return Status::ok();
}

// Logging, background work and upload size.
Status read_running(const Getenv& env, Config& c) {
  if (auto v = lookup(env, "PETO_LOG_LEVEL")) {
    if (!log::parse_level(*v, &c.log_level) || c.log_level == log::Level::off)
      return bad("PETO_LOG_LEVEL", "debug, info, warning or error", *v);
  }
  if (auto v = lookup(env, "PETO_LOG_FORMAT")) {
    if (*v == "json")
      c.log_format = log::Format::json;
    else if (*v == "text")
      c.log_format = log::Format::text;
    else
      return bad("PETO_LOG_FORMAT", "json or text", *v);
  }
  if (auto s = parse_bool(env, "PETO_BACKGROUND_WORK", &c.background_work); !s) return s;
  if (auto s = parse_int(env, "PETO_UPLOAD_MAX_MB", 1, 4096, &c.upload_max_mb); !s) return s;
  return Status::ok();
}

// Backups and the local store's root.
Status read_backups(const Getenv& env, Config& c) {
  if (auto v = lookup(env, "PETO_BACKUP_DIR")) c.backup_dir = *v;
  if (auto v = lookup(env, "PETO_BACKUP_SCHEDULE")) {
    if (*v != "off" && *v != "daily" && *v != "weekly")
      return bad("PETO_BACKUP_SCHEDULE", "off, daily or weekly", *v);
    c.backup_schedule = *v;
  }
  if (auto s = parse_int(env, "PETO_BACKUP_HOUR", 0, 23, &c.backup_hour); !s) return s;
  if (auto s = parse_int(env, "PETO_BACKUP_WEEKDAY", 0, 6, &c.backup_weekday); !s) return s;
  if (auto s = parse_int(env, "PETO_BACKUP_KEEP", 1, 365, &c.backup_keep); !s) return s;
  if (auto v = lookup(env, "PETO_STORE_LOCAL_ROOT")) c.store_local_root = *v;
  return Status::ok();
}

// Sign-in through an OpenID Connect provider.
Status read_oidc(const Getenv& env, Config& c) {
  if (auto v = lookup(env, "PETO_OIDC_ISSUER")) {
    // Kept exactly as given: the ID token's `iss` must equal it, trailing
    // slash and all.
    if (!v->empty() && !starts_with(*v, "https://") && !starts_with(*v, "http://"))
      return bad("PETO_OIDC_ISSUER", "the provider's https:// address (its issuer)", *v);
    c.oidc_issuer = *v;
  }
  if (auto v = lookup(env, "PETO_OIDC_CLIENT_ID")) c.oidc_client_id = *v;
  if (auto v = lookup(env, "PETO_OIDC_CLIENT_SECRET")) c.oidc_client_secret = *v;
  if (auto v = lookup(env, "PETO_OIDC_SCOPES")) {
    if (v->find("openid") == std::string::npos)
      return bad("PETO_OIDC_SCOPES", "scopes separated by spaces, openid among them", *v);
    c.oidc_scopes = *v;
  }
  if (auto s = parse_bool(env, "PETO_OIDC_AUTO_REGISTER", &c.oidc_auto_register); !s) return s;
  if (auto v = lookup(env, "PETO_OIDC_NAME")) c.oidc_name = *v;
  if (!c.oidc_issuer.empty() && (c.oidc_client_id.empty() || c.oidc_client_secret.empty()))
    return bad("PETO_OIDC_CLIENT_ID",
               "a client id and PETO_OIDC_CLIENT_SECRET whenever PETO_OIDC_ISSUER is set",
               c.oidc_client_id.empty() ? "(empty)" : c.oidc_client_id);
  return Status::ok();
}

}  // namespace

Result<Config> Config::from_env(const Getenv& getenv_in) {
  Getenv env = getenv_in ? getenv_in : Getenv([](const char* n) { return std::getenv(n); });
  Config c;
  for (auto* read :
       {read_storage, read_web, read_media, read_notices, read_running, read_backups, read_oidc})
    if (auto s = read(env, c); !s) return s;
  return c;
}

Status ensure_secret_key(Config& config) {
  if (!config.secret_key.empty()) return Status::ok();
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(config.data_dir, ec);
  if (ec)
    return Status::unavailable("PETO_DATA_DIR: cannot create '" + config.data_dir +
                               "': " + ec.message());
  fs::path path = fs::path(config.data_dir) / "secret_key";
  if (std::ifstream in(path); in) {
    std::string key;
    std::getline(in, key);
    if (key.size() < 32)
      return Status::invalid(path.string() +
                             " is damaged (shorter than 32 characters); "
                             "remove it to make a new key, or set PETO_SECRET_KEY");
    config.secret_key = key;
    return Status::ok();
  }
  const std::string hex = random_token(32);
  // Written whole to a temp file, then linked into place: link() fails if the
  // key exists, so two processes starting at once agree on one key and neither
  // ever reads a half-written file.
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return Status::unavailable("cannot write " + tmp.string() + ": " + std::strerror(errno));
  std::string line = std::string(hex) + "\n";
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ok = (::fsync(fd) == 0) && ok;
  ::close(fd);
  int linked = ok ? ::link(tmp.c_str(), path.c_str()) : -1;
  int link_errno = errno;
  ::unlink(tmp.c_str());
  if (!ok) return Status::unavailable("cannot write " + tmp.string());
  if (linked != 0) {
    if (link_errno == EEXIST) return ensure_secret_key(config);
    return Status::unavailable("cannot write " + path.string() + ": " + std::strerror(link_errno));
  }
  config.secret_key = hex;
  return Status::ok();
}

std::string absolute_url(const std::string& public_url, const std::string& path) {
  if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) return path;
  if (public_url.empty()) return path;
  std::string base = public_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + path;
}

}  // namespace peto
