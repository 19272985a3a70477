// /profile/export and /profile/import: a person's data as a zip archive and
// back (media/exports.h).
//
//   GET  /profile/export                the errand's state and the archives
//   POST /profile/export                starts the export errand (one at a time)
//   GET  /profile/export/{id}/download  the archive, to its owner only, for a day
//   GET  /profile/import                the upload form
//   POST /profile/import                (streamed) checks and imports the archive
//
// While the errand is waiting or running the page refreshes itself every few
// seconds (a Refresh header; the page also has a link). Somebody else's
// archive, or one past its day, is the 404 page. An import that is refused
// changes nothing and says why (422; 409 for an account with records and
// the box "add to what I have" left unticked).
#include <filesystem>
#include <optional>
#include <string>

#include "core/log.h"
#include "core/token.h"
#include "http/form.h"
#include "http/multipart.h"
#include "media/exports.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

namespace {

using nlohmann::json;

// The largest archive the page accepts; bigger ones go through `peto import`.
constexpr std::size_t kWebImportMaxMb = 512;

std::string size_text(std::int64_t bytes) {
  if (bytes >= (1 << 20)) return std::to_string(bytes >> 20) + " MB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KB";
  return std::to_string(bytes) + " B";
}

Response export_page(Site& site, const Request& r, const Visitor& v, int status,
                     const std::string& error) {
  const Millis now = site.clock().now_ms();
  json archives = json::array();
  for (const auto& a : media::list_archives(site.db(), v.account.id, now))
    archives.push_back({{"id", a.id},
                        {"filename", a.filename},
                        {"size", size_text(a.size)},
                        {"created", site.format_time(v, a.created_at)},
                        {"expires", site.format_time(v, a.expires_at)},
                        {"href", "/profile/export/" + std::to_string(a.id) + "/download"}});
  json data = {{"archives", archives}, {"has_archives", !archives.empty()}};
  bool working = false;
  if (auto s = media::export_state(site.db(), site.clock(), v.account.id)) {
    working = s->state == "available" || s->state == "running";
    if (working) {
      const auto& p = s->progress;
      data["progress"] = site.catalogue().fill(v.language, "exports_progress",
                                               {{"records_done", std::to_string(p.records_done)},
                                                {"records_total", std::to_string(p.records_total)},
                                                {"files_done", std::to_string(p.files_done)},
                                                {"files_total", std::to_string(p.files_total)}});
    } else if (s->state == "failed") {
      data["failed"] =
          s->error.empty() ? site.catalogue().text(v.language, "exports_failed") : s->error;
    }
  }
  data["working"] = working;
  if (!error.empty()) data["form_error"] = error;
  Response out = site.render(r, v, status, "exports", data);
  if (working) out.set_header("Refresh", "3");
  return out;
}

Response get_export(Site& site, Request& r, const Visitor& v) {
  return export_page(site, r, v, 200, "");
}

Response post_export(Site& site, Request& r, const Visitor& v) {
  auto started = media::start_export(site.db(), site.clock(), site.settings(), v.account.id);
  if (!started) {
    log::error("web", "export failed",
               {{"user", v.account.id}, {"error", started.status().message()}});
    return export_page(site, r, v, 500, site.catalogue().text(v.language, "exports_failed"));
  }
  log::info("web", "export started", {{"user", v.account.id}, {"task", *started}});
  return Site::redirect("/profile/export");
}

Response get_download(Site& site, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return site.not_found(r, v);
  auto a = media::find_archive(site.db(), v.account.id, *id, site.clock().now_ms());
  if (!a || a->file.find('/') != std::string::npos) return site.not_found(r, v);
  Response out;
  out.status = 200;
  out.body_file = site.settings().exports_dir() + "/" + a->file;
  out.set_header("Content-Type", "application/zip");
  out.set_header("Content-Disposition", "attachment; filename=\"" + a->filename + "\"");
  out.set_header("X-Content-Type-Options", "nosniff");
  out.set_header("Content-Security-Policy", "default-src 'none'; sandbox");
  return out;
}

Response import_page(Site& site, const Request& r, const Visitor& v, int status,
                     const std::string& error, const std::string& done) {
  json data = {{"max_mb", std::to_string(kWebImportMaxMb)}};
  if (!error.empty()) data["form_error"] = error;
  if (!done.empty()) data["done"] = done;
  return site.render(r, v, status, "export_import", std::move(data));
}

Response get_import(Site& site, Request& r, const Visitor& v) {
  return import_page(site, r, v, 200, "", "");
}

Response post_import(Site& site, Request& r, const Visitor& v) {
  const Config& config = site.settings();
  const std::string path = config.data_dir + "/tmp/import-" + random_token(12) + ".zip";
  Form fields;
  std::optional<FileSink> file;
  Status read = read_multipart(r, fields, [&](const Part& p) -> Sink* {
    if (p.name != "archive" || file || p.filename.empty()) return nullptr;
    file.emplace(path, static_cast<std::int64_t>(kWebImportMaxMb) << 20);
    return &*file;
  });
  auto say = [&](const std::string& key, const std::map<std::string, std::string>& vars = {}) {
    return site.catalogue().fill(v.language, key, vars);
  };
  if (!read || !file) {
    bool too_large = file && file->too_large();
    return import_page(site, r, v, too_large ? 413 : 422,
                       say(too_large ? "exports_import_too_large" : "exports_import_no_file",
                           {{"mb", std::to_string(kWebImportMaxMb)}}),
                       "");
  }
  if (Status f = file->finish(); !f) throw std::runtime_error(f.message());
  const bool force = fields.get("force") == "yes";
  auto done = media::import_archive(site.db(), site.clock(), config.media_dir(), v.account.id, path,
                                    media::ImportLimits::from(config), force);
  // `file` removes the uploaded archive when it goes.
  if (!done) {
    bool conflict = done.status().code() == Status::Code::conflict;
    return import_page(site, r, v, conflict ? 409 : 422,
                       conflict
                           ? say("exports_import_not_empty")
                           : say("exports_import_refused", {{"reason", done.status().message()}}),
                       "");
  }
  log::info("web", "archive imported",
            {{"user", v.account.id}, {"records", done->records}, {"files", done->files}});
  return import_page(site, r, v, 200, "",
                     say("exports_import_done", {{"records", std::to_string(done->records)},
                                                 {"files", std::to_string(done->files)}}));
}

}  // namespace

void add_export_routes(Router& router, Site& site) {
  Site* s = &site;
  auto page = [s](Response (*fn)(Site&, Request&, const Visitor&)) {
    return s->signed_in([s, fn](Request& r, const Visitor& v) { return fn(*s, r, v); });
  };
  const Config& config = site.settings();
  Spool spool{config.data_dir + "/tmp", (kWebImportMaxMb << 20) + kMultipartMargin,
              site.catalogue().fill("en", "exports_import_too_large",
                                    {{"mb", std::to_string(kWebImportMaxMb)}}),
              [s](const Request& r) { return s->admit_upload(r); }};
  router.add("GET", "/profile/export", page(get_export), "Export your data");
  router.add("POST", "/profile/export", page(post_export), "Start an export");
  router.add("GET", "/profile/export/{id}/download", page(get_download), "Download an export");
  router.add("GET", "/profile/import", page(get_import), "The import form");
  router.add_streamed("POST", "/profile/import", page(post_import), spool, "Import an archive");
}

}  // namespace peto::web
