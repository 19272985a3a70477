// Catalogue: the interface text of every language peto speaks.
//
// locales/<lang>/*.json hold flat objects, key → text; all files of one
// language are merged (a module owns its own file: accounts.json,
// records.json…). English is complete and the fallback: a key missing from a
// language reads as its English text, and a key missing everywhere reads as
// the key itself (so plain English passed as a "key" shows as written).
// Templates use the texts as `{{t.key}}`; keys are [a-z0-9_].
//
// load() reads everything once at start-up; a malformed file, a non-text
// value or a missing English folder is a Status. After load() the catalogue
// is only read: thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace peto {

class Catalogue {
 public:
  explicit Catalogue(std::filesystem::path locales_dir);
  Status load();

  // Every key of `lang` (English filling the gaps); English for an unknown
  // language.
  const nlohmann::json& messages(const std::string& lang) const;
  std::vector<std::string> languages() const;  // sorted codes, "en" among them
  bool has_language(const std::string& lang) const { return merged_.count(lang) != 0; }
  // The language to show: the profile's when it has a catalogue, else the
  // best match of Accept-Language (q-values; "fr-FR" matches "fr"), else "en".
  std::string choose(const std::string& profile_language, const std::string* accept_language) const;
  std::string text(const std::string& lang, const std::string& key) const;
  // text() with each "{name}" replaced by vars' value ("{role} at {company}").
  std::string fill(const std::string& lang, const std::string& key,
                   const std::map<std::string, std::string>& vars) const;

  // The catalogue of this installation (PETO_ASSETS_DIR, else the source
  // tree, + /locales), loaded on first use: for words made outside a request
  // (notices the scheduler sends). A catalogue that fails to load is logged
  // once and left empty, so keys read as themselves.
  static const Catalogue& shared();

 private:
  std::filesystem::path dir_;
  std::map<std::string, nlohmann::json> merged_;
  nlohmann::json empty_ = nlohmann::json::object();
};

}  // namespace peto
