// "Record as sent": the CV and letter an application went out with, typeset
// now and kept as they were, whatever the career record becomes later.
//
//   media::Sender sender(db, clock, config);
//   auto started = sender.start(owner, application_id, {.cv_id = 3, .letter_id = 5});
//   // Started{task_id} when a worker runs it (an errand with progress),
//   // Started{0, copies} when it was made at once; or FieldErrors/NotFound.
//
// Each chosen record is rendered (media/cv.h, media/letter.h), and its PDF
// stored as a document of the application's (media/documents.h) with its
// SHA-256 and the plain text it was made from; a second send of the same CV
// or letter with the same application is a new version of that document. A
// document_sent entry on the application's timeline names each. Nothing is
// stored when a template cannot be filled: the request is checked before
// anything is rendered.
//
// The request is checked in the web request (what was chosen, whose it is,
// the letter's placeholders); the typesetting runs on the worker when one
// runs (Config::background_work), else at once.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "domain/field_errors.h"
#include "domain/records.h"
#include "engine/queue.h"
#include "store/db.h"

namespace peto::media {

inline constexpr const char* kSendTask = "documents.send";

struct SendRequest {
  std::optional<std::int64_t> cv_id = std::nullopt;
  std::optional<std::int64_t> letter_id = std::nullopt;
  std::string note = "";
};

struct SentCopy {
  std::int64_t upload_id = 0;
  std::int64_t event_id = 0;
  std::string title;
  int version = 1;
  int pages = 0;
};

struct Started {
  std::int64_t task_id = 0;  // 0: made at once, `copies` holds them
  std::vector<SentCopy> copies;
};

// Where a send errand is: `done` of `total` documents made.
struct SendState {
  std::string state;  // available, running, done, failed, cancelled
  std::string error;
  std::int64_t application_id = 0;
  int done = 0;
  int total = 0;
  // When done: the documents kept (their event_id and pages left 0), or
  // fewer when one was removed since.
  std::vector<SentCopy> copies;
};

using SendResult = std::variant<Started, domain::FieldErrors, domain::NotFound>;

class Sender {
 public:
  Sender(store::Db& db, const Clock& clock, const Config& config);

  // FieldErrors: form (nothing chosen), cv_id / letter_id (not one of the
  // person's, or a template that cannot be filled), note (too long).
  // NotFound: the application is not the person's.
  SendResult start(std::int64_t owner, std::int64_t application_id, const SendRequest& request);
  // The same, always at once (the errand's body and the CLI's).
  SendResult make(std::int64_t owner, std::int64_t application_id, const SendRequest& request,
                  const std::function<void(int done, int total)>& progress = {});

  // The errand's body (app/work.cpp).
  Result<std::string> run_task(const engine::Task& task);
  // `owner`'s send errand `task_id`; nullopt for anybody else's.
  std::optional<SendState> state(std::int64_t owner, std::int64_t task_id);

 private:
  std::variant<std::monostate, domain::FieldErrors, domain::NotFound> check(
      std::int64_t owner, std::int64_t application_id, const SendRequest& request);

  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
};

}  // namespace peto::media
