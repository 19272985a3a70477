// Logging: one call, JSON lines on stderr (or plain text).
//
//   log::info("scheduler", "pass finished", {{"reminders", 3}});
//
// Every line carries the time, level, logger, message, the current scope id
// (one request, pass or task: see Scope) and the fields given. Lines below the
// configured level cost one comparison. Thread-safe; a line is written whole.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace peto::log {

enum class Level { debug = 0, info = 1, warning = 2, error = 3, off = 4 };
enum class Format { json, text };

// Parses "debug", "info", "warning" (or "warn"), "error", "off".
bool parse_level(std::string_view text, Level* out);

void configure(Level level, Format format);
Level level();
inline bool enabled(Level l) { return l >= level(); }

void write(Level l, std::string_view logger, std::string_view message,
           const nlohmann::json& fields = nlohmann::json::object());

inline void debug(std::string_view logger, std::string_view m,
                  const nlohmann::json& f = nlohmann::json::object()) {
  if (enabled(Level::debug)) write(Level::debug, logger, m, f);
}
inline void info(std::string_view logger, std::string_view m,
                 const nlohmann::json& f = nlohmann::json::object()) {
  if (enabled(Level::info)) write(Level::info, logger, m, f);
}
inline void warn(std::string_view logger, std::string_view m,
                 const nlohmann::json& f = nlohmann::json::object()) {
  if (enabled(Level::warning)) write(Level::warning, logger, m, f);
}
inline void error(std::string_view logger, std::string_view m,
                  const nlohmann::json& f = nlohmann::json::object()) {
  if (enabled(Level::error)) write(Level::error, logger, m, f);
}

// A fresh id such as "pass-5f0c2a9e1b7d" (prefix, '-', 12 hex digits).
std::string new_scope_id(std::string_view prefix);

// While a Scope lives, every line this thread writes carries its id.
// Scopes nest; the innermost wins and the outer one returns when it ends.
class Scope {
 public:
  explicit Scope(std::string id);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  static const std::string& current();

 private:
  std::string previous_;
};

// Tests: sends every written line (already formatted) to `sink` as well as
// stderr, or, with `quiet`, instead of it. Pass nullptr to restore.
void set_test_sink(std::function<void(const std::string& line)> sink, bool quiet = true);

}  // namespace peto::log
