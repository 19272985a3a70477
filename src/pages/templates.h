// Templates: the mustache files of one folder, rendered with JSON data.
//
//   Templates t("templates", {{"version", "0.1.0"}});
//   std::string html = t.render_page("home", {{"title", "Start"}});
//
// A template `name` is the file `<folder>/<name>.mustache`; `{{> name}}` in
// any template includes another one as a partial. Values are HTML-escaped
// unless written `{{{triple}}}`, which is kept for HTML that peto rendered
// itself (the page inside the layout). Data is JSON: objects and arrays become
// sections, false, null, "" and [] hide a section, numbers render as written.
//
// Data that many renders share (a language's messages, the globals) can be
// converted once with share() and passed to render_page: it sits under the
// page's own data without being copied, which is most of a render's cost.
//
// Files are read on first use and kept: restart to pick up edits. Parsed
// templates are pooled and reused. A missing
// or malformed template is a deployment error: load() reports it at start-up
// as a Status, and render() throws std::runtime_error (the server logs it and
// answers 500). Thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace peto::web {

class Templates {
 public:
  // `globals` are visible to every template (a page's own data wins).
  explicit Templates(std::filesystem::path folder,
                     nlohmann::json globals = nlohmann::json::object());
  ~Templates();

  // Converted, immutable data for render_page's `shared` (see above).
  class Shared;
  std::shared_ptr<const Shared> share(const nlohmann::json& data) const;

  // Reads and checks every *.mustache in the folder.
  Status load();

  // Renders one template with `data`.
  std::string render(const std::string& name, const nlohmann::json& data) const;

  // Renders page `name`, then "layout" with the same data plus "content"
  // holding the page's HTML.
  std::string render_page(const std::string& name, const nlohmann::json& data) const;
  // The same with `shared` (and the globals) under `data`; `shared` may be null.
  std::string render_page(const std::string& name, const nlohmann::json& data,
                          const Shared* shared) const;

  const std::filesystem::path& folder() const { return folder_; }

  // The source of template `name`; throws std::runtime_error when missing.
  std::string source(const std::string& name) const;
  // The same with every `{{> partial}}` replaced by the partial's own text.
  std::string expanded(const std::string& name) const;

 private:
  std::filesystem::path folder_;
  nlohmann::json globals_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::string> sources_;
  struct Pool;  // parsed templates ready for reuse
  std::unique_ptr<Pool> pool_;
  std::shared_ptr<const Shared> globals_shared_;

  std::string expand(const std::string& name, int depth) const;
  std::string render_with(const std::string& name, const nlohmann::json& data,
                          const Shared* shared) const;
  // `data` is the converted mustache data (kept out of this header).
  std::string render_data(const std::string& name, const void* data, const Shared* shared) const;
};

}  // namespace peto::web
