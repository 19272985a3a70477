// Letters and what was sent: a letter template's preview and downloads,
// "Record as sent" on an application, its progress while the worker
// typesets, and the difference between two sent copies.
//
//   GET  /letters/{id}/letter.pdf?application=N   the letter filled for N
//   GET  /letters/{id}/letter.txt?application=N   (no application: an example)
//   POST /applications/{id}/send                  cv_id, letter_id, note
//   GET  /applications/{id}/send/{task}           the errand, refreshing
//   GET  /documents/{id}/compare?with=M           the text difference
#include <dtl/dtl.hpp>
#include <string>
#include <variant>
#include <vector>

#include "core/timezone.h"
#include "media/cv.h"
#include "media/documents.h"
#include "media/letter.h"
#include "media/sent.h"
#include "pages/record_pages_internal.h"
#include "typeset/document.h"

namespace peto::web {
namespace {

using nlohmann::json;

// The person's records of a kind, newest first (at most 200: a choice list).
std::vector<json> records_of(RecordPages& p, std::int64_t owner, const char* kind) {
  domain::ListQuery q;
  q.limit = 200;
  q.tab = "all";
  return p.records.list(owner, domain::kind(kind), q).items;
}

std::optional<std::int64_t> query_id(const Request& r, const std::string& name) {
  return parse_id(Form::from_query(r).get(name));
}

// "Backend engineer — Acme" for an application choice.
std::string application_label(const json& a) {
  std::string role = a.value("listing_role", std::string());
  std::string company = a.value("company_name", std::string());
  return company.empty() ? role : role + " — " + company;
}

struct FilledLetter {
  std::optional<typeset::Document> doc;
  std::string problem;  // why the template cannot be filled
};

// The letter filled for the application (one of the person's) or, without
// one, with example values.
FilledLetter fill(RecordPages& p, const Visitor& v, const json& letter,
                  std::optional<std::int64_t> application) {
  std::string language = media::letter_language(letter);
  Millis now = p.site.clock().now_ms();
  std::optional<media::LetterValues> values;
  if (application) {
    auto conn = p.site.db().acquire();
    values = media::letter_values(*conn, v.account.id, *application, language, now);
  }
  if (!values) values = media::example_letter_values(language, local_date(now, v.time_zone));
  auto made = media::letter_document(letter, media::letter_sender(p.records, v.account.id, letter),
                                     *values);
  if (auto* problem = std::get_if<formats::PlaceholderProblem>(&made))
    return {{}, problem->message};
  return {std::get<typeset::Document>(std::move(made)), ""};
}

std::optional<json> letter_of(RecordPages& p, const Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return std::nullopt;
  return p.records.get(v.account.id, domain::kind("letters"), *id);
}

// The send errand's page data.
json sending_view(RecordPages& p, const Visitor& v, const media::SendState& s) {
  json uploads = json::array();
  for (const media::SentCopy& c : s.copies)
    uploads.push_back({{"href", "/documents/" + std::to_string(c.upload_id)},
                       {"title", c.title},
                       {"version", c.version}});
  bool working = s.state == "available" || s.state == "running";
  return {{"working", working},
          {"done", s.state == "done"},
          {"failed", !working && s.state != "done"},
          {"error", s.error},
          {"progress", p.site.catalogue().fill(
                           v.language, "sent_progress",
                           {{"done", std::to_string(s.done)}, {"total", std::to_string(s.total)}})},
          {"value", s.done},
          {"max", s.total},
          {"uploads", uploads},
          {"application_href", "/applications/" + std::to_string(s.application_id)}};
}

// Lines of `text`, without their line ends.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// The line difference of two texts (dtl's shortest edit script), as rows
// of {text, added, removed}.
json difference(const std::string& before, const std::string& after) {
  std::vector<std::string> a = lines_of(before), b = lines_of(after);
  dtl::Diff<std::string> diff(a, b);
  diff.compose();
  json rows = json::array();
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    rows.push_back({{"text", line},
                    {"added", info.type == dtl::SES_ADD},
                    {"removed", info.type == dtl::SES_DELETE}});
  }
  return rows;
}

json copy_choice(const Site& site, const Visitor& v, const media::Document& d,
                 std::int64_t chosen) {
  return {{"id", d.id},
          {"selected", d.id == chosen},
          {"label", site.catalogue().fill(v.language, "sent_compare_choice",
                                          {{"title", d.title},
                                           {"version", std::to_string(d.version)},
                                           {"when", site.format_time(v, d.created_at)}})}};
}

// "?application=N" when the page was asked for one, else "".
std::string letter_preview_query(const Request& r) {
  auto id = query_id(r, "application");
  return id ? "?application=" + std::to_string(*id) : "";
}

}  // namespace

json letter_section(RecordPages& p, const Request& r, const Visitor& v, std::int64_t id,
                    const json& letter) {
  auto application = query_id(r, "application");
  FilledLetter filled = fill(p, v, letter, application);
  std::string href = "/letters/" + std::to_string(id);
  json choices = json::array();
  choices.push_back(
      {{"id", ""}, {"label", p.site.say(v, "letter_preview_example")}, {"selected", !application}});
  for (const json& a : records_of(p, v.account.id, "applications")) {
    std::int64_t aid = a["id"].get<std::int64_t>();
    choices.push_back(
        {{"id", aid}, {"label", application_label(a)}, {"selected", application == aid}});
  }
  std::string query = letter_preview_query(r);
  json out = {{"action", href},
              {"choices", choices},
              {"pdf_href", href + "/letter.pdf" + query},
              {"text_href", href + "/letter.txt" + query},
              {"problem", filled.problem}};
  if (filled.doc) {
    out["lang"] = filled.doc->language;
    out["dir"] = typeset::right_to_left(filled.doc->language) ? "rtl" : "ltr";
    out["preview"] = preview_html(*filled.doc);
  }
  return out;
}

namespace {

// The letter filled in (?application=), as a PDF or as text.
Response letter_file(RecordPages& p, Request& r, const Visitor& v, bool pdf) {
  auto letter = letter_of(p, r, v);
  if (!letter) return p.site.not_found(r, v);
  FilledLetter filled = fill(p, v, *letter, query_id(r, "application"));
  if (!filled.doc)
    return p.site.render(r, v, 422, "error",
                         {{"title", p.site.say(v, "sent_error_template")},
                          {"status", 422},
                          {"detail", filled.problem}});
  Response res;
  res.status = 200;
  if (pdf) {
    res.body =
        typeset::render_pdf(*filled.doc, typeset::shipped_theme(media::letter_theme(*letter)),
                            media::letter_page_size(*letter))
            .pdf;
    res.set_header("Content-Type", "application/pdf");
  } else {
    res.body = typeset::render_text(*filled.doc);
    res.set_header("Content-Type", "text/plain; charset=utf-8");
  }
  res.set_header("Content-Disposition",
                 content_disposition("inline", filled.doc->title + (pdf ? ".pdf" : ".txt")));
  return res;
}

}  // namespace

Response letter_pdf(RecordPages& p, Request& r, const Visitor& v) {
  return letter_file(p, r, v, true);
}

Response letter_text(RecordPages& p, Request& r, const Visitor& v) {
  return letter_file(p, r, v, false);
}

json send_form(RecordPages& p, const Visitor& v, std::int64_t application_id) {
  json cvs = json::array(), letters = json::array();
  for (const json& c : records_of(p, v.account.id, "cvs"))
    cvs.push_back({{"id", c["id"]}, {"label", c.value("name", std::string())}});
  for (const json& l : records_of(p, v.account.id, "letters"))
    letters.push_back(
        {{"id", l["id"]},
         {"label", l.value("name", std::string()) + " (" +
                       p.view.choice_label(v, "purpose", l.value("purpose", std::string())) +
                       ")"}});
  return {{"action", "/applications/" + std::to_string(application_id) + "/send"},
          {"cvs", cvs},
          {"letters", letters},
          {"possible", !cvs.empty() || !letters.empty()}};
}

Response post_send(RecordPages& p, Request& r, const Visitor& v) {
  auto app = path_id(r);
  if (!app) return p.site.not_found(r, v);
  Form f = Form::parse(r);
  media::SendRequest request{parse_id(f.get("cv_id")), parse_id(f.get("letter_id")), f.get("note")};
  media::Sender sender(p.site.db(), p.site.clock(), p.site.settings());
  auto started = sender.start(v.account.id, *app, request);
  if (std::holds_alternative<domain::NotFound>(started)) return p.site.not_found(r, v);
  std::string back = "/applications/" + std::to_string(*app);
  if (auto* e = std::get_if<domain::FieldErrors>(&started)) {
    std::string detail;
    const json texts = p.site.error_texts(&v, r, *e);
    for (const auto& text : texts)
      if (text.is_string()) detail += (detail.empty() ? "" : " ") + text.get<std::string>();
    return p.site.redirect(r, back + "#send", Flash::of("error", detail));
  }
  const auto& s = std::get<media::Started>(started);
  if (s.task_id != 0) return Site::redirect(back + "/send/" + std::to_string(s.task_id));
  return p.site.redirect(
      r, back,
      Flash::of("success", p.site.catalogue().fill(v.language, "sent_done",
                                                   {{"n", std::to_string(s.copies.size())}})));
}

Response send_progress(RecordPages& p, Request& r, const Visitor& v) {
  auto task = parse_id(r.path_params["task"]);
  auto app = path_id(r);
  if (!task || !app) return p.site.not_found(r, v);
  media::Sender sender(p.site.db(), p.site.clock(), p.site.settings());
  auto state = sender.state(v.account.id, *task);
  if (!state || state->application_id != *app) return p.site.not_found(r, v);
  json data = sending_view(p, v, *state);
  bool working = data["working"].get<bool>();
  Response out = p.site.render(r, v, 200, "sending", {{"sending", std::move(data)}});
  if (working) out.set_header("Refresh", "2");
  return out;
}

Response compare_page(RecordPages& p, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return p.site.not_found(r, v);
  media::Documents docs(p.site.db(), p.site.clock(), p.site.settings());
  auto d = docs.get(v.account.id, *id);
  if (!d) return p.site.not_found(r, v);
  // Only copies peto typeset have a text to compare; an upload has none.
  std::vector<media::Document> others;
  if (!d->made_from.empty())
    for (media::Document& o : docs.made_from(v.account.id, d->made_from))
      if (o.id != d->id) others.push_back(std::move(o));
  // The copy to compare with (0: none): the one asked for, else the newest other.
  std::int64_t with = others.empty() ? 0 : query_id(r, "with").value_or(others.front().id);
  json choices = json::array();
  for (const media::Document& o : others) choices.push_back(copy_choice(p.site, v, o, with));
  json data = {{"doc",
                {{"title", d->title},
                 {"href", "/documents/" + std::to_string(d->id)},
                 {"version", d->version},
                 {"created", p.site.format_time(v, d->created_at)}}},
               {"action", "/documents/" + std::to_string(d->id) + "/compare"},
               {"choices", choices},
               {"has_choices", !choices.empty()}};
  if (with != 0) {
    auto other = docs.get(v.account.id, with);
    if (!other || other->made_from != d->made_from) return p.site.not_found(r, v);
    // Older first: what changed from the other copy to this one, or back.
    bool older = other->created_at < d->created_at ||
                 (other->created_at == d->created_at && other->id < d->id);
    std::string mine = docs.source_text(v.account.id, d->id).value_or("");
    std::string theirs = docs.source_text(v.account.id, other->id).value_or("");
    json rows = older ? difference(theirs, mine) : difference(mine, theirs);
    bool same = std::all_of(rows.begin(), rows.end(), [](const json& row) {
      return !row["added"].get<bool>() && !row["removed"].get<bool>();
    });
    data["rows"] = rows;
    data["same"] = same;
    data["from"] = copy_choice(p.site, v, older ? *other : *d, 0);
    data["to"] = copy_choice(p.site, v, older ? *d : *other, 0);
  }
  return p.site.render(r, v, 200, "compare", std::move(data));
}

}  // namespace peto::web
