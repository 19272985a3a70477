#include "core/i18n.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "core/log.h"
#include "core/text.h"

namespace peto {

namespace fs = std::filesystem;

namespace {

// Reads every *.json of one language folder, in file-name order.
Status read_language(const fs::path& folder, nlohmann::json& out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return Status::invalid(file.string() + ": not a JSON object");
    for (const auto& [k, v] : j.items()) {
      if (!v.is_string()) return Status::invalid(file.string() + ": " + k + " is not text");
      out[k] = v;
    }
  }
  return Status::ok();
}

}  // namespace

Catalogue::Catalogue(fs::path locales_dir) : dir_(std::move(locales_dir)) {}

Status Catalogue::load() {
  std::error_code ec;
  if (!fs::is_directory(dir_ / "en", ec)) {
    return Status::unavailable("locales folder " + (dir_ / "en").string() + " does not exist");
  }
  std::map<std::string, nlohmann::json> raw;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (!entry.is_directory()) continue;
    nlohmann::json messages = nlohmann::json::object();
    if (Status s = read_language(entry.path(), messages); !s) return s;
    raw[entry.path().filename().string()] = std::move(messages);
  }
  merged_.clear();
  for (auto& [lang, messages] : raw) {
    nlohmann::json all = raw["en"];
    for (const auto& [k, v] : messages.items()) all[k] = v;
    merged_[lang] = std::move(all);
  }
  return Status::ok();
}

const nlohmann::json& Catalogue::messages(const std::string& lang) const {
  auto it = merged_.find(lang);
  if (it == merged_.end()) it = merged_.find("en");
  return it == merged_.end() ? empty_ : it->second;
}

std::vector<std::string> Catalogue::languages() const {
  std::vector<std::string> out;
  out.reserve(merged_.size());
  for (const auto& [lang, m] : merged_) out.push_back(lang);
  return out;
}

std::string Catalogue::choose(const std::string& profile_language,
                              const std::string* accept_language) const {
  if (!profile_language.empty() && has_language(profile_language)) return profile_language;
  if (accept_language == nullptr) return "en";
  std::string best = "en";
  double best_q = 0;
  for (std::string_view item : text::split(*accept_language, ',')) {
    double q = 1.0;
    if (std::size_t semi = item.find(';'); semi != std::string_view::npos) {
      std::string param = text::trimmed(item.substr(semi + 1));
      if (param.starts_with("q=")) q = std::strtod(param.c_str() + 2, nullptr);
      item = item.substr(0, semi);
    }
    std::string tag = text::lower(text::trim(item));
    if (tag.empty() || q <= best_q) continue;
    std::string found;
    if (has_language(tag)) {
      found = tag;
    } else if (std::string primary = tag.substr(0, tag.find('-')); has_language(primary)) {
      found = primary;
    }
    if (!found.empty()) {
      best = found;
      best_q = q;
    }
  }
  return best;
}

std::string Catalogue::text(const std::string& lang, const std::string& key) const {
  const nlohmann::json& m = messages(lang);
  auto it = m.find(key);
  return it == m.end() ? key : it->get<std::string>();
}

std::string Catalogue::fill(const std::string& lang, const std::string& key,
                            const std::map<std::string, std::string>& vars) const {
  std::string t = text(lang, key);
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '{') {
      std::size_t close = t.find('}', i);
      if (close != std::string::npos) {
        auto it = vars.find(t.substr(i + 1, close - i - 1));
        if (it != vars.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += t[i++];
  }
  return out;
}

const Catalogue& Catalogue::shared() {
  static const Catalogue catalogue = [] {
    const char* assets = std::getenv("PETO_ASSETS_DIR");
    Catalogue c(fs::path(assets ? assets : PETO_SOURCE_DIR) / "locales");
    if (Status s = c.load(); !s)
      log::warn("i18n", "the interface texts could not be read", {{"error", s.message()}});
    return c;
  }();
  return catalogue;
}

}  // namespace peto
