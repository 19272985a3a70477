// "Record as sent": the chosen CV and letter typeset and kept as documents
// of the application's, each named on its timeline.
#include "media/sent.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/i18n.h"
#include "core/log.h"
#include "core/token.h"
#include "media/cv.h"
#include "media/documents.h"
#include "media/letter.h"
#include "store/cache.h"
#include "typeset/document.h"

namespace peto::media {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNote = 2000;
constexpr auto kProgressKeep = std::chrono::hours(24);

// The person's language for an errand's words ("en" when they chose none).
std::string language_of(store::Db& db, std::int64_t owner) {
  auto rows = db.query("SELECT language FROM users WHERE id = ?", {owner});
  std::string language = rows.empty() ? "" : rows[0].text("language");
  return language.empty() ? "en" : language;
}

std::string progress_key(std::int64_t task_id) { return "send:" + std::to_string(task_id); }

// A file name from a title: path separators and control characters out.
std::string file_name(const std::string& title) {
  std::string out;
  for (char c : title)
    out += (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) ? '-' : c;
  return (out.empty() ? "document" : out) + ".pdf";
}

// A typeset document about to be kept.
struct Piece {
  typeset::Rendered rendered;
  DocumentInput input;
};

// The document typeset, with what Documents::create is to keep of it.
Piece piece(const typeset::Document& doc, const std::string& theme, typeset::PageSize size,
            std::string kind, std::int64_t application, std::string made_from) {
  Piece p{typeset::render_pdf(doc, typeset::shipped_theme(theme), size), {}};
  p.input.title = doc.title;
  p.input.kind = std::move(kind);
  p.input.language = doc.language;
  p.input.filename = file_name(doc.title);
  p.input.subject_kind = "application";
  p.input.subject_id = application;
  p.input.source_text = typeset::render_text(doc);
  p.input.made_from = std::move(made_from);
  return p;
}

std::optional<typeset::Document> letter_of(store::Db& db, domain::Records& records,
                                           std::int64_t owner, std::int64_t application,
                                           const json& letter, Millis now) {
  auto conn = db.acquire();
  auto values = letter_values(*conn, owner, application, letter_language(letter), now);
  if (!values) return std::nullopt;
  auto made = letter_document(letter, letter_sender(records, owner, letter), *values);
  if (auto* doc = std::get_if<typeset::Document>(&made)) return std::move(*doc);
  return std::nullopt;
}

// Stores the piece (a new version when the application already has a copy
// made from the same record: Documents::create numbers it) and names it on
// the timeline.
SentCopy keep(Documents& docs, std::int64_t owner, std::int64_t application, Piece piece,
              const std::string& note) {
  std::string path = docs.incoming_path(owner);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  {
    std::ofstream out(path, std::ios::binary);
    out.write(piece.rendered.pdf.data(), static_cast<std::streamsize>(piece.rendered.pdf.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
  }
  Sha256 sum;
  sum.update(piece.rendered.pdf);
  Received file{path, static_cast<std::int64_t>(piece.rendered.pdf.size()), sum.hex_digest()};
  Made made = docs.create(owner, piece.input, file);  // the next version, if any came before
  const auto* d = std::get_if<Document>(&made);
  // Our own PDF refused (a size limit set below one page): say so plainly.
  if (d == nullptr) throw std::runtime_error("the typeset PDF could not be stored");
  auto event = docs.record_sent(owner, application, d->id, note);
  if (!std::holds_alternative<std::int64_t>(event))
    throw std::runtime_error("the application went away while its documents were made");
  return {d->id, std::get<std::int64_t>(event), d->title, d->version,
          static_cast<int>(piece.rendered.pages)};
}

}  // namespace

Sender::Sender(store::Db& db, const Clock& clock, const Config& config)
    : db_(db), clock_(clock), config_(config) {}

std::variant<std::monostate, domain::FieldErrors, domain::NotFound> Sender::check(
    std::int64_t owner, std::int64_t application_id, const SendRequest& request) {
  domain::Records records(db_, clock_);
  if (!records.get(owner, domain::kind("applications"), application_id)) return domain::NotFound{};
  domain::FieldErrors errors;
  if (request.note.size() > kMaxNote) errors.too_long("note", kMaxNote);
  if (!request.cv_id && !request.letter_id) errors.add("form", "sent_error_choose");
  if (request.cv_id && !records.get(owner, domain::kind("cvs"), *request.cv_id))
    errors.add("cv_id", "sent_error_cv");
  if (request.letter_id) {
    auto letter = records.get(owner, domain::kind("letters"), *request.letter_id);
    if (!letter)
      errors.add("letter_id", "sent_error_letter");
    else if (!letter_of(db_, records, owner, application_id, *letter, clock_.now_ms()))
      errors.add("letter_id", "sent_error_template");
  }
  if (!errors.empty()) return errors;
  return std::monostate{};
}

SendResult Sender::start(std::int64_t owner, std::int64_t application_id,
                         const SendRequest& request) {
  if (!config_.background_work) return make(owner, application_id, request);
  auto checked = check(owner, application_id, request);
  if (auto* e = std::get_if<domain::FieldErrors>(&checked)) return *e;
  if (std::holds_alternative<domain::NotFound>(checked)) return domain::NotFound{};
  json payload = {{"application", application_id}, {"note", request.note}};
  payload["cv"] = request.cv_id ? json(*request.cv_id) : json();
  payload["letter"] = request.letter_id ? json(*request.letter_id) : json();
  engine::EnqueueOptions o;
  o.owner = owner;
  o.max_attempts = 1;  // an errand: a second try is the person's
  Started s;
  s.task_id = engine::Queue(db_, clock_).enqueue(engine::NewTask(kSendTask, payload.dump(), o));
  return s;
}

SendResult Sender::make(std::int64_t owner, std::int64_t application_id, const SendRequest& request,
                        const std::function<void(int, int)>& progress) {
  auto checked = check(owner, application_id, request);
  if (auto* e = std::get_if<domain::FieldErrors>(&checked)) return *e;
  if (std::holds_alternative<domain::NotFound>(checked)) return domain::NotFound{};
  domain::Records records(db_, clock_);
  Documents docs(db_, clock_, config_);
  const int total = (request.cv_id ? 1 : 0) + (request.letter_id ? 1 : 0);
  Started out;
  auto step = [&] {
    if (progress) progress(static_cast<int>(out.copies.size()), total);
  };
  step();
  if (request.cv_id) {
    auto cv = records.get(owner, domain::kind("cvs"), *request.cv_id);
    if (!cv) return domain::NotFound{};
    typeset::Document doc = cv_document(*cv, career_entries(records, owner));
    out.copies.push_back(keep(docs, owner, application_id,
                              piece(doc, cv_theme(*cv), cv_page_size(*cv), "cv", application_id,
                                    "cvs:" + std::to_string(*request.cv_id)),
                              request.note));
    step();
  }
  if (request.letter_id) {
    auto letter = records.get(owner, domain::kind("letters"), *request.letter_id);
    if (!letter) return domain::NotFound{};
    auto doc = letter_of(db_, records, owner, application_id, *letter, clock_.now_ms());
    if (!doc) return domain::NotFound{};
    out.copies.push_back(keep(
        docs, owner, application_id,
        piece(*doc, letter_theme(*letter), letter_page_size(*letter), letter_document_kind(*letter),
              application_id, "letters:" + std::to_string(*request.letter_id)),
        request.note));
    step();
  }
  log::info("documents", "sent copies made",
            {{"user", owner}, {"application", application_id}, {"documents", total}});
  return out;
}

Result<std::string> Sender::run_task(const engine::Task& task) {
  if (!task.owner) return Status::invalid("a send errand needs an owner");
  json p = json::parse(task.payload, nullptr, false);
  if (!p.is_object() || !p["application"].is_number_integer())
    return Status::invalid("a send errand needs an application");
  SendRequest request;
  if (p["cv"].is_number_integer()) request.cv_id = p["cv"].get<std::int64_t>();
  if (p["letter"].is_number_integer()) request.letter_id = p["letter"].get<std::int64_t>();
  if (p["note"].is_string()) request.note = p["note"].get<std::string>();
  store::Cache cache(db_, clock_);
  auto progress = [&](int done, int total) {
    cache.set(progress_key(task.id), json{{"done", done}, {"total", total}}.dump(), kProgressKeep);
  };
  auto made = make(*task.owner, p["application"].get<std::int64_t>(), request, progress);
  if (std::holds_alternative<domain::NotFound>(made))
    return Status::not_found("the application, CV or letter is gone");
  if (auto* e = std::get_if<domain::FieldErrors>(&made))
    return Status::invalid(
        Catalogue::shared().text(language_of(db_, *task.owner), e->by_field.begin()->second));
  json uploads = json::array();
  for (const SentCopy& c : std::get<Started>(made).copies) uploads.push_back(c.upload_id);
  return json{{"uploads", uploads}}.dump();
}

std::optional<SendState> Sender::state(std::int64_t owner, std::int64_t task_id) {
  auto errand = engine::Queue(db_, clock_).errand(owner, task_id);
  if (!errand || errand->kind != kSendTask) return std::nullopt;
  SendState s;
  s.state = errand->state;
  s.error = errand->error;
  json p = json::parse(errand->payload, nullptr, false);
  if (p.is_object() && p["application"].is_number_integer())
    s.application_id = p["application"].get<std::int64_t>();
  if (p.is_object())
    s.total = (p["cv"].is_number_integer() ? 1 : 0) + (p["letter"].is_number_integer() ? 1 : 0);
  if (auto saved = store::Cache(db_, clock_).get(progress_key(task_id))) {
    json progress = json::parse(*saved, nullptr, false);
    if (progress.is_object()) s.done = progress.value("done", 0);
  }
  json result = json::parse(errand->result, nullptr, false);
  Documents docs(db_, clock_, config_);
  if (result.is_object() && result["uploads"].is_array())
    for (const json& id : result["uploads"])
      if (id.is_number_integer())
        if (auto d = docs.get(owner, id.get<std::int64_t>()))
          s.copies.push_back({d->id, 0, d->title, d->version, 0});
  if (s.state == "done") s.done = s.total;
  return s;
}

}  // namespace peto::media
