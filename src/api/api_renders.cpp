// The API's renders: a CV or a letter as PDF and as text, and "Record as
// sent" on an application (media/sent.h) with its errand's state.
//
//   GET  /api/v1/cvs/{id}/pdf, /text
//   GET  /api/v1/letters/{id}/pdf, /text        ?application_id= fills it
//   POST /api/v1/applications/{id}/sent         {cv_id, letter_id, note}
//   GET  /api/v1/applications/{id}/sent/{task}  the errand, then its documents
#include <charconv>
#include <variant>

#include "api/api_resources_internal.h"
#include "api/openapi.h"
#include "core/timezone.h"
#include "media/cv.h"
#include "media/letter.h"
#include "media/sent.h"
#include "typeset/document.h"

namespace peto::web::api_detail {
namespace {

using nlohmann::json;

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t n = 0;
  auto read = std::from_chars(text.data(), text.data() + text.size(), n);
  if (read.ec != std::errc() || read.ptr != text.data() + text.size() || n < 1) return std::nullopt;
  return n;
}

Response pdf_answer(typeset::Rendered out) {
  Response res;
  res.status = 200;
  res.body = std::move(out.pdf);
  res.set_header("Content-Type", "application/pdf");
  return res;
}

Response text_answer(const typeset::Document& doc) {
  return Response::text(200, typeset::render_text(doc));
}

// A render's answers: the file, or the problems every route can give.
json render_operation(const std::string& id, const std::string& summary, const std::string& area,
                      bool pdf) {
  json op = api_operation(id, summary, area);
  api_id_parameter(op);
  json content =
      pdf ? json{{"application/pdf", {{"schema", {{"type", "string"}, {"format", "binary"}}}}}}
          : json{{"text/plain", {{"schema", {{"type", "string"}}}}}};
  op["responses"]["200"] = {{"description", pdf ? "The PDF" : "The plain text (for ATS forms)"},
                            {"content", content}};
  return op;
}

void add_cv_renders(Api& api, const Shared& res) {
  for (bool pdf : {true, false}) {
    api.add({.method = "GET",
             .pattern = std::string("/api/v1/cvs/{id}/") + (pdf ? "pdf" : "text"),
             .area = "cvs",
             .write = false,
             .operation =
                 render_operation(pdf ? "getCvPdf" : "getCvText",
                                  pdf ? "A CV typeset as PDF" : "A CV as plain text", "cvs", pdf),
             .handler =
                 [res, pdf](ApiCall& c) {
                   auto cv = res->records.get(c.owner(), domain::kind("cvs"), c.id);
                   if (!cv) return res->missing(c.request, domain::kind("cvs"));
                   typeset::Document doc =
                       media::cv_document(*cv, media::career_entries(res->records, c.owner()));
                   if (!pdf) return text_answer(doc);
                   return pdf_answer(
                       typeset::render_pdf(doc, typeset::shipped_theme(media::cv_theme(*cv)),
                                           media::cv_page_size(*cv)));
                 },
             .id_kind = "cvs"});
  }
}

void add_letter_renders(Api& api, const Shared& res) {
  for (bool pdf : {true, false}) {
    json op = render_operation(pdf ? "getLetterPdf" : "getLetterText",
                               pdf ? "A letter typeset as PDF" : "A letter as plain text",
                               "letters", pdf);
    api_query_parameter(op, "application_id", {{"type", "integer"}, {"minimum", 1}},
                        "The application whose company, role, contact and listing fill it in; "
                        "without one, example values");
    api.add({.method = "GET",
             .pattern = std::string("/api/v1/letters/{id}/") + (pdf ? "pdf" : "text"),
             .area = "letters",
             .write = false,
             .operation = op,
             .handler =
                 [res, pdf](ApiCall& c) {
                   const domain::Kind& kind = domain::kind("letters");
                   auto letter = res->records.get(c.owner(), kind, c.id);
                   if (!letter) return res->missing(c.request, kind);
                   std::string language = media::letter_language(*letter);
                   Millis now = res->site.clock().now_ms();
                   std::optional<media::LetterValues> values;
                   std::string given = c.request.query_param("application_id").value_or("");
                   if (!given.empty()) {
                     auto id = whole_number(given);
                     if (id) {
                       auto conn = res->site.db().acquire();
                       values = media::letter_values(*conn, c.owner(), *id, language, now);
                     }
                     if (!values)
                       return res->api->problem(c.request, 404, "Not found",
                                                "There is no application " + given + ".");
                   } else {
                     values = media::example_letter_values(
                         language, local_date(now, c.bearer.account.time_zone));
                   }
                   auto made = media::letter_document(
                       *letter, media::letter_sender(res->records, c.owner(), *letter), *values);
                   if (auto* problem = std::get_if<formats::PlaceholderProblem>(&made))
                     return res->api->problem(c.request, 422, "The template cannot be filled in",
                                              problem->message);
                   const auto& doc = std::get<typeset::Document>(made);
                   if (!pdf) return text_answer(doc);
                   return pdf_answer(typeset::render_pdf(
                       doc, typeset::shipped_theme(media::letter_theme(*letter)),
                       media::letter_page_size(*letter)));
                 },
             .query = {"application_id"},
             .id_kind = "letters"});
  }
}

json sent_schema() {
  json copy = {{"type", "object"},
               {"properties",
                {{"document_id", {{"type", "integer"}}},
                 {"event_id", {{"type", "integer"}}},
                 {"title", {{"type", "string"}}},
                 {"version", {{"type", "integer"}}},
                 {"pages", {{"type", "integer"}}}}},
               {"required", {"document_id", "title", "version"}}};
  return {
      {"type", "object"},
      {"properties",
       {{"task_id", {{"type", "integer"}}},
        {"state",
         {{"type", "string"}, {"enum", {"available", "running", "done", "failed", "cancelled"}}}},
        {"done", {{"type", "integer"}}},
        {"total", {{"type", "integer"}}},
        {"error", {{"type", "string"}}},
        {"documents", {{"type", "array"}, {"items", copy}}}}},
      {"required", {"state", "documents"}}};
}

// POST /api/v1/applications/{id}/sent.
void add_sent(Api& api, const Shared& res) {
  const domain::Kind& kind = domain::kind("applications");
  json op = api_operation("recordSent",
                          "Typeset a CV and/or letter for an application and keep them as sent",
                          kind.name);
  op["description"] =
      "Each chosen record is typeset, stored as a document of the application's (a new version "
      "when the same CV or letter was sent with it before) with its SHA-256, and named by a "
      "document_sent timeline entry. With a worker running this is an errand: 202 and its "
      "task_id, whose state GET …/sent/{task} gives. No Idempotency-Key is kept: each call "
      "records a new version.";
  api_id_parameter(op);
  api_body(op, {{"type", "object"},
                {"properties",
                 {{"cv_id", {{"type", "integer"}}},
                  {"letter_id", {{"type", "integer"}}},
                  {"note", {{"type", "string"}, {"maxLength", 2000}}}}},
                {"additionalProperties", false}});
  api_answer(op, 201, "Made at once: the documents kept", sent_schema());
  api_answer(op, 202, "Queued for the worker", sent_schema());
  api.add({.method = "POST",
           .pattern = "/api/v1/applications/{id}/sent",
           .area = kind.name,
           .write = true,
           .operation = op,
           .handler =
               [res, &kind](ApiCall& c) {
                 BodyFields body(c.body);
                 media::SendRequest request;
                 request.cv_id = body.integer("cv_id");
                 request.letter_id = body.integer("letter_id");
                 request.note = body.text("note", false, 2000).value_or("");
                 if (domain::FieldErrors errors = body.finish(); !errors.empty())
                   return res->api->invalid(c.request, errors);
                 media::Sender sender(res->site.db(), res->site.clock(), res->site.settings());
                 auto started = sender.start(c.owner(), c.id, request);
                 if (auto* e = std::get_if<domain::FieldErrors>(&started))
                   return res->api->invalid(c.request, *e);
                 if (std::holds_alternative<domain::NotFound>(started))
                   return res->missing(c.request, kind);
                 const auto& s = std::get<media::Started>(started);
                 if (s.task_id != 0) {
                   Response out = Response::json(202, {{"task_id", s.task_id},
                                                       {"state", "available"},
                                                       {"documents", json::array()}});
                   out.set_header("Location", "/api/v1/applications/" + std::to_string(c.id) +
                                                  "/sent/" + std::to_string(s.task_id));
                   return out;
                 }
                 json documents = json::array();
                 for (const media::SentCopy& copy : s.copies)
                   documents.push_back({{"document_id", copy.upload_id},
                                        {"event_id", copy.event_id},
                                        {"title", copy.title},
                                        {"version", copy.version},
                                        {"pages", copy.pages}});
                 return Response::json(201, {{"state", "done"}, {"documents", documents}});
               },
           .id_kind = kind.name,
           .own_transactions = true});
}

// GET /api/v1/applications/{id}/sent/{task}.
void add_sent_state(Api& api, const Shared& res) {
  const domain::Kind& kind = domain::kind("applications");
  json op = api_operation("getSentErrand", "Where a Record-as-sent errand is", kind.name);
  api_id_parameter(op);
  op["parameters"].push_back({{"name", "task"},
                              {"in", "path"},
                              {"required", true},
                              {"schema", {{"type", "integer"}, {"minimum", 1}}}});
  api_answer(op, 200, "Its state; when done, the documents kept", sent_schema());
  api.add({.method = "GET",
           .pattern = "/api/v1/applications/{id}/sent/{task}",
           .area = kind.name,
           .write = false,
           .operation = op,
           .handler =
               [res](ApiCall& c) {
                 auto task = whole_number(c.request.param("task"));
                 media::Sender sender(res->site.db(), res->site.clock(), res->site.settings());
                 auto state = task ? sender.state(c.owner(), *task) : std::nullopt;
                 if (!state || state->application_id != c.id)
                   return res->api->problem(c.request, 404, "Not found",
                                            "There is no such errand of this application.");
                 json documents = json::array();
                 for (const media::SentCopy& copy : state->copies)
                   documents.push_back({{"document_id", copy.upload_id},
                                        {"title", copy.title},
                                        {"version", copy.version}});
                 return Response::json(200, {{"task_id", *task},
                                             {"state", state->state},
                                             {"done", state->done},
                                             {"total", state->total},
                                             {"error", state->error},
                                             {"documents", documents}});
               },
           .id_kind = kind.name});
}

}  // namespace

void add_render_routes(Api& api, const Shared& res) {
  add_cv_renders(api, res);
  add_letter_renders(api, res);
  add_sent(api, res);
  add_sent_state(api, res);
}

}  // namespace peto::web::api_detail
