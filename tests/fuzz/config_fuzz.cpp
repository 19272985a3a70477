// Fuzzes peto's configuration (core/config.h, Config::from_env) with the
// environment the input describes: one NAME=value per line (the first '='
// splits; a later line for the same name wins, as in a shell).
//
// Promises checked: a value is accepted only inside what config.h and the
// README say the variable takes; a refusal names the variable and what it
// expects, and never shows the secret key.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/config.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using peto::fuzz::broken;

bool starts(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

void check(const peto::Config& c) {
  if (c.data_dir.empty()) broken("an empty data folder");
  if (!starts(c.database_url, "sqlite://") && !starts(c.database_url, "postgres://") &&
      !starts(c.database_url, "postgresql://"))
    broken("a database URL of another kind");
  if (!c.public_url.empty() && !starts(c.public_url, "http://") &&
      !starts(c.public_url, "https://"))
    broken("a public URL that is not http(s)");
  if (!c.public_url.empty() && c.public_url.back() == '/') broken("a public URL ending in '/'");
  if (!c.secret_key.empty() && c.secret_key.size() < 32) broken("a short secret key");
  auto in = [](int v, int lo, int hi) { return v >= lo && v <= hi; };
  if (!in(c.scrub_every_days, 0, 3650) || !in(c.media_sweep_grace_hours, 1, 24 * 365) ||
      !in(c.capture_page_keep_days, 0, 3650) || !in(c.upload_max_mb, 1, 4096) ||
      !in(c.backup_hour, 0, 23) || !in(c.backup_weekday, 0, 6) || !in(c.backup_keep, 1, 365))
    broken("a number out of its range");
  if (!c.smtp_url.empty() && !starts(c.smtp_url, "smtp://") && !starts(c.smtp_url, "smtps://"))
    broken("an SMTP URL of another kind");
  if (c.smtp_from.find('@') == std::string::npos ||
      c.smtp_from.find_first_of("\r\n<>") != std::string::npos)
    broken("a From address that is not one");
  if (c.backup_schedule != "off" && c.backup_schedule != "daily" && c.backup_schedule != "weekly")
    broken("an unknown backup schedule");
  if (c.log_level == peto::log::Level::off) broken("logging switched off");
  // What the server is started with must be a host and port it can print.
  if (c.listen() != c.listen_host + ":" + std::to_string(c.listen_port)) broken("listen()");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> env;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    // An environment variable cannot hold a NUL: the value ends there.
    std::string value(line.substr(eq + 1));
    value = value.substr(0, value.find('\0'));
    env[std::string(line.substr(0, eq))] = value;
  }
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto made = peto::Config::from_env(getenv);
  if (made) {
    check(*made);
    return 0;
  }
  const std::string& why = made.status().message();
  std::size_t colon = why.find(": expected ");
  if (!starts(why, "PETO_") || colon == std::string::npos)
    broken("a refusal that names no variable");
  const std::string name = why.substr(0, colon);
  if (env.count(name) == 0) broken("a refusal naming a variable that was not set");
  if (name == "PETO_SECRET_KEY" && why.find("got '" + env[name] + "'") != std::string::npos)
    broken("a refusal shows the secret key");
  return 0;
}
