#include "core/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <mutex>

#include "core/clock.h"
#include "core/token.h"

namespace peto::log {

namespace {

std::atomic<Level> g_level{Level::info};
std::atomic<Format> g_format{Format::json};
thread_local std::string t_scope;

std::mutex g_test_mu;
std::function<void(const std::string&)> g_test_sink;
bool g_test_quiet = false;

const char* level_name(Level l) {
  switch (l) {
    case Level::debug:
      return "debug";
    case Level::info:
      return "info";
    case Level::warning:
      return "warning";
    case Level::error:
      return "error";
    default:
      return "off";
  }
}

// spdlog gives us a thread-safe, unbuffered stderr writer; the line itself is
// formatted here so that JSON is escaped properly.
spdlog::logger& out() {
  static auto logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto l = std::make_shared<spdlog::logger>("peto", sink);
    l->set_pattern("%v");
    l->set_level(spdlog::level::trace);
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return *logger;
}

std::string format_line(Level l, std::string_view logger, std::string_view message,
                        const nlohmann::json& fields) {
  std::string time = format_time(system_clock().now_ms());
  if (g_format.load() == Format::json) {
    nlohmann::json line = {
        {"time", time}, {"level", level_name(l)}, {"logger", logger}, {"message", message}};
    if (!t_scope.empty()) line["scope"] = t_scope;
    if (fields.is_object()) {
      for (auto it = fields.begin(); it != fields.end(); ++it)
        if (!line.contains(it.key())) line[it.key()] = it.value();
    }
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string text = time + " " + level_name(l) + " " + std::string(logger);
  if (!t_scope.empty()) text += " [" + t_scope + "]";
  text += " " + std::string(message);
  if (fields.is_object()) {
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      text += " " + it.key() + "=";
      text += it->is_string() ? it->get<std::string>()
                              : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  return text;
}

}  // namespace

bool parse_level(std::string_view text, Level* out_level) {
  if (text == "debug")
    *out_level = Level::debug;
  else if (text == "info")
    *out_level = Level::info;
  else if (text == "warning" || text == "warn")
    *out_level = Level::warning;
  else if (text == "error")
    *out_level = Level::error;
  else if (text == "off")
    *out_level = Level::off;
  else
    return false;
  return true;
}

void configure(Level l, Format f) {
  g_level = l;
  g_format = f;
}

Level level() { return g_level.load(std::memory_order_relaxed); }

void write(Level l, std::string_view logger, std::string_view message,
           const nlohmann::json& fields) {
  if (l < level()) return;
  std::string line = format_line(l, logger, message, fields);
  {
    std::lock_guard lock(g_test_mu);
    if (g_test_sink) {
      g_test_sink(line);
      if (g_test_quiet) return;
    }
  }
  out().info(line);
}

std::string new_scope_id(std::string_view prefix) {
  return std::string(prefix) + "-" + random_token(6);
}

Scope::Scope(std::string id) : previous_(std::move(t_scope)) { t_scope = std::move(id); }
Scope::~Scope() { t_scope = std::move(previous_); }
const std::string& Scope::current() { return t_scope; }

void set_test_sink(std::function<void(const std::string&)> sink, bool quiet) {
  std::lock_guard lock(g_test_mu);
  g_test_sink = std::move(sink);
  g_test_quiet = quiet;
}

}  // namespace peto::log
