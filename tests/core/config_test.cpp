#include "core/config.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "tests/support/backends.h"

namespace peto {
namespace {

Result<Config> load(const std::map<std::string, std::string>& env) {
  return Config::from_env([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(Config, DefaultsAreSafe) {
  auto c = load({});
  ASSERT_TRUE(c) << c.status().message();
  EXPECT_EQ(c->database_url, "sqlite://./data/peto.db");
  EXPECT_EQ(c->listen(), "127.0.0.1:8080");
  EXPECT_EQ(c->scrub_every_days, 7);
  EXPECT_TRUE(c->media_sweep);
  EXPECT_EQ(c->media_sweep_grace_hours, 24);
  EXPECT_FALSE(c->allow_private_destinations);
  EXPECT_EQ(c->log_level, log::Level::info);
  EXPECT_FALSE(c->log_format);  // text at a terminal, JSON elsewhere
}

TEST(Config, DatabaseFollowsDataDir) {
  auto c = load({{"PETO_DATA_DIR", "/srv/peto"}});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->database_url, "sqlite:///srv/peto/peto.db");
  EXPECT_EQ(c->media_dir(), "/srv/peto/media");
}

TEST(Config, ParsesGoodValues) {
  auto c = load({{"PETO_LISTEN", "[::1]:9000"},
                 {"PETO_DATABASE_URL", "postgres://u@h/db"},
                 {"PETO_SCRUB_EVERY_DAYS", "0"},
                 {"PETO_MEDIA_SWEEP", "off"},
                 {"PETO_PUBLIC_URL", "https://peto.example/"},
                 {"PETO_LOG_FORMAT", "text"},
                 {"PETO_LOG_LEVEL", "warning"},
                 {"PETO_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8 ::1"}});
  ASSERT_TRUE(c) << c.status().message();
  EXPECT_TRUE(c->trusted_proxies.contains("10.20.30.40"));
  EXPECT_TRUE(c->trusted_proxies.contains("::1"));
  EXPECT_FALSE(c->trusted_proxies.contains("192.0.2.1"));
  EXPECT_EQ(c->listen_host, "::1");
  EXPECT_EQ(c->listen_port, 9000);
  EXPECT_EQ(c->scrub_every_days, 0);
  EXPECT_FALSE(c->media_sweep);
  EXPECT_EQ(c->public_url, "https://peto.example");
  EXPECT_EQ(c->log_format, log::Format::text);
  EXPECT_EQ(c->log_level, log::Level::warning);
}

// PETO_SMTP_URL takes the three ways of reaching a mail server; PETO_SMTP_FROM
// an address, with or without a display name.
TEST(Config, MailServerAndSender) {
  for (const char* url :
       {"smtp+starttls://u:p@mail.example:587", "smtps://mail.example", "smtp://127.0.0.1:2525"}) {
    auto c = load({{"PETO_SMTP_URL", url}});
    ASSERT_TRUE(c) << url << ": " << c.status().message();
    EXPECT_EQ(c->smtp_url, url);
  }
  for (const char* from :
       {"peto@example.org", "peto <peto@example.org>", "\"Peto, notices\" <peto@example.org>"}) {
    auto c = load({{"PETO_SMTP_FROM", from}});
    ASSERT_TRUE(c) << from << ": " << c.status().message();
    EXPECT_EQ(c->smtp_from, from);
  }
}

struct BadValue {
  const char* name;
  const char* value;
};

class ConfigBadValue : public ::testing::TestWithParam<BadValue> {};

TEST_P(ConfigBadValue, IsRefusedNamingTheVariable) {
  auto c = load({{GetParam().name, GetParam().value}});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.status().message().rfind(std::string(GetParam().name) + ": ", 0), 0u)
      << c.status().message();
  EXPECT_EQ(c.status().message().find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Each, ConfigBadValue,
    ::testing::Values(
        BadValue{"PETO_DATABASE_URL", "mysql://x"}, BadValue{"PETO_DATA_DIR", ""},
        BadValue{"PETO_LISTEN", "8080"}, BadValue{"PETO_LISTEN", "h:99999"},
        BadValue{"PETO_LISTEN", "h:80x"}, BadValue{"PETO_PUBLIC_URL", "ftp://x"},
        BadValue{"PETO_SECRET_KEY", "short"}, BadValue{"PETO_SCRUB_EVERY_DAYS", "-1"},
        BadValue{"PETO_SCRUB_EVERY_DAYS", "seven"}, BadValue{"PETO_MEDIA_SWEEP", "maybe"},
        BadValue{"PETO_MEDIA_SWEEP_GRACE_HOURS", "0"},
        BadValue{"PETO_ALLOW_PRIVATE_DESTINATIONS", "2"}, BadValue{"PETO_SMTP_URL", "http://mail"},
        BadValue{"PETO_LOG_LEVEL", "loud"}, BadValue{"PETO_LOG_FORMAT", "xml"},
        BadValue{"PETO_BACKGROUND_WORK", "sometimes"}, BadValue{"PETO_UPLOAD_MAX_MB", "0"},
        BadValue{"PETO_TRUSTED_PROXIES", "proxy.example"},
        BadValue{"PETO_TRUSTED_PROXIES", "10.0.0.0/33"}, BadValue{"PETO_SMTP_FROM", "peto"},
        BadValue{"PETO_SMTP_FROM", "peto <not an address>"},
        BadValue{"PETO_SMTP_FROM", "a@example.org\r\nBcc: b@example.org"},
        BadValue{"PETO_SMTP_FROM", "pe<to <peto@example.org>"}),
    [](const auto& info) {
      return std::string(info.param.name).substr(5) + "_" + std::to_string(info.index);
    });

// The real binary: one line on stderr, exit code 2, for each bad value.
TEST(ConfigCli, BadValueIsOneLineAndExit2) {
  for (const char* assignment :
       {"PETO_LISTEN=nope", "PETO_LOG_FORMAT=xml", "PETO_SCRUB_EVERY_DAYS=x",
        "PETO_DATABASE_URL=mysql://x", "PETO_MEDIA_SWEEP_GRACE_HOURS=0"}) {
    std::string out;
    int code = testing::run_command(
        std::string("env ") + assignment + " " + testing::peto_binary() + " migrate --check", &out);
    EXPECT_EQ(code, 2) << assignment << ": " << out;
    std::string name = std::string(assignment).substr(0, std::string(assignment).find('='));
    EXPECT_NE(out.find(name), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

TEST(ConfigCli, UnknownCommandAndBadFlagAreOneLineAndExit2) {
  for (const char* args : {"frobnicate", "migrate --bogus", "healthcheck nothing", ""}) {
    std::string out;
    int code = testing::run_command(testing::peto_binary() + " " + args, &out);
    EXPECT_EQ(code, 2) << args << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << ": " << out;
  }
}

TEST(SecretKey, GeneratedOnceWithMode0600) {
  testing::TempDir dir;
  Config c;
  c.data_dir = dir.path().string();
  ASSERT_TRUE(ensure_secret_key(c));
  EXPECT_EQ(c.secret_key.size(), 64u);
  struct stat st {};
  ASSERT_EQ(stat((dir.path() / "secret_key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  Config again;
  again.data_dir = dir.path().string();
  ASSERT_TRUE(ensure_secret_key(again));
  EXPECT_EQ(again.secret_key, c.secret_key);
}

TEST(SecretKey, GivenKeyIsKept) {
  testing::TempDir dir;
  Config c;
  c.data_dir = dir.path().string();
  c.secret_key = std::string(40, 'k');
  ASSERT_TRUE(ensure_secret_key(c));
  EXPECT_EQ(c.secret_key, std::string(40, 'k'));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "secret_key"));
}

}  // namespace
}  // namespace peto
