// /documents: a person's uploads (CV variants, letters, a portfolio), their
// versions, downloads and the "sent with this application" record.
//
// Uploads are streamed (http/multipart.h): the body is spooled to the data
// folder's tmp/, the file part is written under the media folder while it is
// hashed, and media::Documents decides (type sniffed from the bytes, size,
// fields) and writes the row; a refusal leaves no row and no file. Files
// are served only to their owner, as attachments with nosniff and the
// sniffed type; somebody else's document is the 404 page, for the page and
// the file alike.
#include <optional>
#include <string>

#include "connections/tries.h"
#include "core/log.h"
#include "http/form.h"
#include "http/multipart.h"
#include "media/copies.h"
#include "media/documents.h"
#include "net/http.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

namespace {

using media::Document;
using nlohmann::json;

media::Documents documents_of(Site& site) {
  return media::Documents(site.db(), site.clock(), site.settings());
}

std::string href_of(std::int64_t id) { return "/documents/" + std::to_string(id); }

std::string size_text(std::int64_t bytes) {
  char buf[32];
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1024);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1024 * 1024));
  }
  return buf;
}

std::string kind_label(const Site& site, const Visitor& v, const std::string& kind) {
  return site.catalogue().text(v.language, "documents_kind_" + kind);
}

std::string damage_text(const Site& site, const Visitor& v, const std::string& damage) {
  if (damage.empty()) return "";
  return site.catalogue().text(v.language, "documents_damage_" + damage);
}

json view_of(const Site& site, const Visitor& v, const Document& d) {
  const auto& t = site.catalogue().messages(v.language);
  return {{"id", d.id},
          {"href", href_of(d.id)},
          {"file_href", href_of(d.id) + "/file"},
          {"title", d.title},
          {"kind_label", kind_label(site, v, d.kind)},
          {"version", d.version},
          {"size", size_text(d.size)},
          // The exact count beside a rounded size; a size under 1 KB is exact already.
          {"bytes", d.size >= 1024 ? nlohmann::json(d.size) : nlohmann::json()},
          {"content_type", d.content_type},
          {"filename", d.filename},
          {"language", d.language},
          {"notes", d.notes},
          {"sha256", d.sha256},
          {"created", site.format_time(v, d.created_at)},
          {"verified", d.verified_at > 0 ? site.format_time(v, d.verified_at)
                                         : t.value("documents_never_checked", "")},
          {"damage", damage_text(site, v, d.damage)},
          {"damaged", !d.damage.empty()}};
}

// What the person may attach a document to: their applications and listings.
json subject_options(Site& site, const Visitor& v, const std::string& chosen) {
  const auto& t = site.catalogue().messages(v.language);
  json options = json::array();
  options.push_back({{"value", ""},
                     {"label", t.value("documents_subject_none", "")},
                     {"selected", chosen.empty()}});
  auto add = [&](const std::string& kind, const std::vector<domain::Subject>& subjects,
                 const std::string& key) {
    for (const auto& s : subjects) {
      std::string value = kind + ":" + std::to_string(s.id);
      std::string label =
          site.catalogue().fill(v.language, key, {{"role", s.role}, {"company", s.company}});
      options.push_back({{"value", value}, {"label", label}, {"selected", value == chosen}});
    }
  };
  add("application", domain::recent_applications(site.db(), v.account.id, 200),
      "documents_subject_application");
  add("listing", domain::recent_listings(site.db(), v.account.id, 200),
      "documents_subject_listing");
  return options;
}

json kind_options(const Site& site, const Visitor& v, const std::string& chosen) {
  json options = json::array();
  for (const std::string& k : media::document_kinds())
    options.push_back({{"value", k},
                       {"label", kind_label(site, v, k)},
                       {"selected", k == (chosen.empty() ? "cv" : chosen)}});
  return options;
}

std::string subject_href(const Document& d) {
  if (d.subject_kind.empty() || !d.subject_id) return "";
  return (d.subject_kind == "application" ? "/applications/" : "/listings/") +
         std::to_string(*d.subject_id);
}

// What a document is attached to, by name ("SRE · Acme"); "" when that
// record is gone (to the trash, say).
std::string subject_text(Site& site, const Visitor& v, const Document& d) {
  if (d.subject_kind.empty() || !d.subject_id) return "";
  const bool application = d.subject_kind == "application";
  domain::Records records(site.db(), site.clock());
  auto rec = records.get(v.account.id, domain::kind(application ? "applications" : "listings"),
                         *d.subject_id);
  if (!rec) return "";
  const nlohmann::json& role = (*rec)[application ? "listing_role" : "role"];
  const nlohmann::json& company = (*rec)["company_name"];
  std::string out = role.is_string() ? role.get<std::string>() : "";
  if (company.is_string()) out += (out.empty() ? "" : " · ") + company.get<std::string>();
  return out;
}

// The upload form: `values` as typed (or preselected), `errors` translated.
Response form_page(Site& site, const Request& r, const Visitor& v, int status, const json& values,
                   const json& errors) {
  const std::string subject = values.value("subject", "");
  json data = {{"values", values},
               {"errors", errors},
               {"has_errors", !errors.empty()},
               {"kinds", kind_options(site, v, values.value("kind", ""))},
               {"subjects", subject_options(site, v, subject)},
               {"max_mb", site.settings().upload_max_mb},
               {"limit_hint",
                site.catalogue().fill(v.language, "documents_limit_hint",
                                      {{"mb", std::to_string(site.settings().upload_max_mb)}})}};
  return site.render(r, v, status, "document_form", std::move(data));
}

Response list_page(Site& site, Request& r, const Visitor& v) {
  json items = json::array();
  for (const Document& d : documents_of(site).list(v.account.id))
    items.push_back(view_of(site, v, d));
  json data = {{"items", items}, {"has_items", !items.empty()}};
  std::string done = Form::from_query(r).get("done");
  if (done == "deleted")
    data["flash"] = {{"kind", "success"},
                     {"message", site.catalogue().text(v.language, "documents_done_deleted")}};
  return site.render(r, v, 200, "documents", std::move(data));
}

Response get_new(Site& site, Request& r, const Visitor& v) {
  Form q = Form::from_query(r);
  json values = json::object();
  if (auto id = parse_id(q.get("application")))
    values["subject"] = "application:" + std::to_string(*id);
  else if (auto lid = parse_id(q.get("listing")))
    values["subject"] = "listing:" + std::to_string(*lid);
  return form_page(site, r, v, 200, values, json::object());
}

// One upload read from the request: the form's text fields and the file part
// "file", written at `target` while hashed. `errors` says what went wrong.
struct Upload {
  Form fields;
  std::optional<FileSink> file;
  std::string filename;
  domain::FieldErrors errors;
  bool too_large = false;
};

void read_upload(const Request& r, const std::string& target, std::int64_t max_bytes, Upload& up) {
  Status s = read_multipart(r, up.fields, [&](const Part& p) -> Sink* {
    if (p.name != "file" || up.file || p.filename.empty()) return nullptr;
    up.filename = p.filename;
    up.file.emplace(target, max_bytes);
    return &*up.file;
  });
  if (!s) {
    up.too_large = up.file && up.file->too_large();
    up.errors.add("file", up.too_large ? "documents_error_too_large" : "documents_error_form");
    up.file.reset();  // removes what was written
    return;
  }
  if (!up.file) {
    up.errors.add("file", "documents_error_no_file");
    return;
  }
  if (Status f = up.file->finish(); !f) throw std::runtime_error(f.message());
}

media::DocumentInput input_of(const Upload& up) {
  media::DocumentInput in;
  in.title = up.fields.get("title");
  in.kind = up.fields.get("kind");
  in.language = up.fields.get("language");
  in.notes = up.fields.get("notes");
  in.filename = up.filename;
  std::string subject = up.fields.get("subject");
  if (auto colon = subject.find(':'); colon != std::string::npos) {
    in.subject_kind = subject.substr(0, colon);
    in.subject_id = parse_id(subject.substr(colon + 1));
    if (!in.subject_id) in.subject_id = -1;  // refused as not the person's
  } else if (!subject.empty()) {
    in.subject_kind = subject;  // refused as an unknown choice
  }
  return in;
}

// The form's values to show again (never the CSRF token).
json values_of(const Form& f) {
  json values = f.to_json();
  values.erase("csrf");
  return values;
}

Response post_new(Site& site, Request& r, const Visitor& v) {
  media::Documents docs = documents_of(site);
  Upload up;
  read_upload(r, docs.incoming_path(v.account.id), docs.max_bytes(), up);
  if (!up.errors.empty())
    return form_page(site, r, v, up.too_large ? 413 : 422, values_of(up.fields),
                     site.error_texts(&v, r, up.errors));
  up.file->keep();  // create() removes it when it refuses
  auto made = docs.create(v.account.id, input_of(up),
                          {up.file->path().string(), up.file->size(), up.file->sha256()});
  if (auto* e = std::get_if<domain::FieldErrors>(&made))
    return form_page(site, r, v, 422, values_of(up.fields), site.error_texts(&v, r, *e));
  if (!std::holds_alternative<Document>(made)) return site.not_found(r, v);
  return Site::redirect(href_of(std::get<Document>(made).id) + "?done=added");
}

Response detail_page(Site& site, Request& r, const Visitor& v, const Document& d, int status,
                     const json& errors) {
  media::Documents docs = documents_of(site);
  json doc = view_of(site, v, d);
  json versions = json::array();
  for (const Document& other : docs.versions(v.account.id, d.id)) {
    json item = view_of(site, v, other);
    item["current"] = other.id == d.id;
    versions.push_back(std::move(item));
  }
  json copies = json::array();
  {
    auto conn = site.db().acquire();
    for (const auto& c : media::list_copies(*conn, v.account.id, d.id)) {
      json item = {{"store", c.store_label},
                   {"plugin", c.plugin},
                   {"status", site.catalogue().text(v.language, "documents_copy_" + c.status)},
                   {"attempts", c.attempts},
                   {"last_error", c.last_error},
                   {"external_url", c.external_url},
                   {"send_action", href_of(d.id) + "/copies/" + std::to_string(c.id) + "/send"},
                   {"can_send", c.status != "sent"}};
      if (c.sent_at) item["sent"] = site.format_time(v, *c.sent_at);
      if (!c.external_url.starts_with("https://") && !c.external_url.starts_with("http://"))
        item.erase("external_url");
      copies.push_back(std::move(item));
    }
  }
  json data = {{"title", d.title},
               {"doc", doc},
               {"versions", versions},
               {"has_versions", versions.size() > 1},
               {"copies", copies},
               {"has_copies", !copies.empty()},
               {"subject_href", subject_href(d)},
               {"subject_text", subject_text(site, v, d)},
               {"version_action", href_of(d.id) + "/versions"},
               {"delete_action", href_of(d.id) + "/delete"},
               // Copies peto typeset can be compared with the others made
               // from the same CV or letter (pages/sent_pages.cpp).
               {"compare_href", d.made_from.empty() ? "" : href_of(d.id) + "/compare"},
               {"errors", errors},
               {"limit_hint",
                site.catalogue().fill(v.language, "documents_limit_hint",
                                      {{"mb", std::to_string(site.settings().upload_max_mb)}})}};
  std::string done = Form::from_query(r).get("done");
  if (done == "added" || done == "version")
    data["flash"] = {{"kind", "success"},
                     {"message", site.catalogue().text(v.language, "documents_done_" + done)}};
  // The outcome of "Send now" (pages/copy_pages.cpp): a fixed set, nothing from
  // the query string is echoed; or, at ?try=<errand>, where the errand is.
  std::string copy = Form::from_query(r).get("copy");
  bool trying = false;
  if (auto task = parse_id(Form::from_query(r).get("try"))) {
    static const net::HttpClient http;
    auto seen = connections::Tries(site.db(), site.clock(), site.settings(), http)
                    .seen(v.account.id, *task);
    if (seen && seen->kind == connections::Try::copy &&
        media::Copies(site.db(), site.clock(), site.settings(), http)
            .is_copy_of(v.account.id, seen->subject, d.id)) {
      trying = seen->working;
      if (seen->outcome) copy = seen->outcome->outcome;
      if (!seen->working && !seen->outcome) copy = "interrupted";
    }
  }
  if (trying)
    data["flash"] = {{"kind", "info"},
                     {"message", site.catalogue().text(v.language, "copies_working")}};
  if (copy == "sent" || copy == "failed" || copy == "declined" || copy == "refused" ||
      copy == "busy")
    data["flash"] = {{"kind", copy == "sent" ? "success" : "error"},
                     {"message", site.catalogue().text(v.language, "copies_" + copy)}};
  if (copy == "too_many" || copy == "interrupted" || copy == "gone")
    data["flash"] = {{"kind", "error"},
                     {"message", site.catalogue().text(v.language, "tries_" + copy)}};
  Response out = site.render(r, v, status, "document", data);
  if (trying) out.set_header("Refresh", "2");
  return out;
}

std::optional<Document> owned(Site& site, const Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return std::nullopt;
  return documents_of(site).get(v.account.id, *id);
}

Response get_detail(Site& site, Request& r, const Visitor& v) {
  auto d = owned(site, r, v);
  if (!d) return site.not_found(r, v);
  return detail_page(site, r, v, *d, 200, json::object());
}

Response get_file(Site& site, Request& r, const Visitor& v) {
  auto d = owned(site, r, v);
  if (!d) return site.not_found(r, v);
  // A file outside peto's media folder is never served (core/stored_path.h).
  const std::string path = documents_of(site).path_of(*d);
  if (path.empty()) return site.not_found(r, v);
  // The original name with the extension of what the bytes are.
  std::string stem = d->filename.empty() ? "document-" + std::to_string(d->id) : d->filename;
  if (auto dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
  std::string ext = d->file.substr(d->file.rfind('.') + 1);
  Response out;
  out.status = 200;
  out.body_file = path;
  out.set_header("Content-Type",
                 d->content_type.empty() ? "application/octet-stream" : d->content_type);
  out.set_header("Content-Disposition", content_disposition("attachment", stem + "." + ext));
  out.set_header("X-Content-Type-Options", "nosniff");
  out.set_header("Content-Security-Policy", "default-src 'none'; sandbox");
  return out;
}

Response post_version(Site& site, Request& r, const Visitor& v) {
  auto d = owned(site, r, v);
  if (!d) return site.not_found(r, v);
  media::Documents docs = documents_of(site);
  Upload up;
  read_upload(r, docs.incoming_path(v.account.id), docs.max_bytes(), up);
  if (!up.errors.empty())
    return detail_page(site, r, v, *d, up.too_large ? 413 : 422,
                       site.error_texts(&v, r, up.errors));
  up.file->keep();
  media::DocumentInput in;
  in.filename = up.filename;
  in.notes = up.fields.get("notes");
  auto made = docs.add_version(v.account.id, d->id, in,
                               {up.file->path().string(), up.file->size(), up.file->sha256()});
  if (auto* e = std::get_if<domain::FieldErrors>(&made))
    return detail_page(site, r, v, *d, 422, site.error_texts(&v, r, *e));
  if (!std::holds_alternative<Document>(made)) return site.not_found(r, v);
  return Site::redirect(href_of(std::get<Document>(made).id) + "?done=version");
}

Response post_delete(Site& site, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id || !documents_of(site).remove(v.account.id, *id)) return site.not_found(r, v);
  return Site::redirect("/documents?done=deleted");
}

// "Record as sent" on the application page: a timeline entry naming the
// version chosen.
Response post_sent(Site& site, Request& r, const Visitor& v) {
  auto app = path_id(r);
  if (!app) return site.not_found(r, v);
  Form f = Form::parse(r);
  auto upload = parse_id(f.get("upload"));
  auto sent =
      documents_of(site).record_sent(v.account.id, *app, upload.value_or(-1), f.get("note"));
  if (std::holds_alternative<domain::NotFound>(sent)) return site.not_found(r, v);
  if (auto* e = std::get_if<domain::FieldErrors>(&sent)) {
    const auto& t = site.catalogue().messages(v.language);
    std::string detail;
    for (const auto& [_, key] : e->by_field)
      detail += (detail.empty() ? "" : " ") + site.catalogue().text(v.language, key);
    return site.render(r, v, 422, "error",
                       {{"title", t.value("documents_error_sent_title", "")},
                        {"status", 422},
                        {"detail", detail}});
  }
  return Site::redirect("/applications/" + std::to_string(*app));
}

}  // namespace

json document_section(Site& site, const Visitor& v, const std::string& subject_kind,
                      std::int64_t subject_id) {
  media::Documents docs = documents_of(site);
  json attached = json::array();
  for (const Document& d : docs.list_for(v.account.id, subject_kind, subject_id))
    attached.push_back(view_of(site, v, d));
  json data = {{"attached", attached},
               {"has_attached", !attached.empty()},
               {"new_href", "/documents/new?" + subject_kind + "=" + std::to_string(subject_id)}};
  if (subject_kind == "application") {
    // Any of the person's documents may have been sent, attached here or not.
    json choices = json::array();
    for (const Document& d : docs.list(v.account.id))
      choices.push_back(
          {{"id", d.id},
           {"label", site.catalogue().fill(v.language, "documents_sent_choice",
                                           {{"title", d.title},
                                            {"version", std::to_string(d.version)},
                                            {"kind", kind_label(site, v, d.kind)}})}});
    data["sent_action"] = "/applications/" + std::to_string(subject_id) + "/documents/sent";
    data["sent_choices"] = choices;
    data["can_record_sent"] = !choices.empty();
  }
  return data;
}

void add_document_routes(Router& router, Site& site) {
  Site* s = &site;
  auto page = [s](Response (*fn)(Site&, Request&, const Visitor&)) {
    return s->signed_in([s, fn](Request& r, const Visitor& v) { return fn(*s, r, v); });
  };
  const Config& config = site.settings();
  const std::size_t limit =
      (static_cast<std::size_t>(config.upload_max_mb) << 20) + kMultipartMargin;
  const std::string too_large = site.catalogue().fill(
      "en", "documents_error_too_large_mb", {{"mb", std::to_string(config.upload_max_mb)}});
  Spool spool{config.data_dir + "/tmp", limit, too_large,
              [s](const Request& r) { return s->admit_upload(r); }};
  router.add("GET", "/documents", page(list_page), "Your documents");
  router.add("GET", "/documents/new", page(get_new), "The upload form");
  router.add_streamed("POST", "/documents/new", page(post_new), spool, "Upload a document");
  router.add("GET", "/documents/{id}", page(get_detail), "A document, its versions and copies");
  router.add("GET", "/documents/{id}/file", page(get_file), "Download a document");
  router.add_streamed("POST", "/documents/{id}/versions", page(post_version), spool,
                      "Upload a new version");
  router.add("POST", "/documents/{id}/delete", page(post_delete), "Remove one version");
  router.add("POST", "/applications/{id}/documents/sent", page(post_sent),
             "Record which version was sent with an application");
}

}  // namespace peto::web
