#include "connections/tries.h"

#include <nlohmann/json.hpp>

#include "connections/connections.h"
#include "media/copies.h"
#include "notify/notifier.h"
#include "store/cache.h"
#include "sync/syncs.h"

namespace peto::connections {

namespace {

using nlohmann::json;

std::optional<Try> try_of_kind(const std::string& kind) {
  if (kind == kTestTask) return Try::test;
  if (kind == kSyncTask) return Try::sync;
  if (kind == kCopyTask) return Try::copy;
  return std::nullopt;
}

const char* subject_field(Try kind) { return kind == Try::copy ? "copy_id" : "connection_id"; }

}  // namespace

const char* try_task_kind(Try kind) {
  switch (kind) {
    case Try::test:
      return kTestTask;
    case Try::sync:
      return kSyncTask;
    case Try::copy:
      break;
  }
  return kCopyTask;
}

std::optional<TryGate::Ticket> TryGate::enter(std::int64_t owner) {
  std::lock_guard lock(mutex_);
  // A refused owner leaves no entry behind: by_owner_ holds running ones only.
  if (running_ >= kAtOnce || by_owner_.contains(owner)) return std::nullopt;
  ++running_;
  ++by_owner_[owner];
  return std::optional<Ticket>(std::in_place, *this, owner);
}

void TryGate::leave(std::int64_t owner) {
  std::lock_guard lock(mutex_);
  --running_;
  if (--by_owner_[owner] <= 0) by_owner_.erase(owner);
}

TryGate& TryGate::process() {
  static TryGate gate;
  return gate;
}

std::variant<Started, TryRefusal> Tries::start(std::int64_t owner, Try kind, std::int64_t subject,
                                               const std::string& language) {
  if (!config_.background_work) {
    auto ticket = TryGate::process().enter(owner);
    if (!ticket) return TryRefusal::too_many;
    auto outcome = run_now(owner, kind, subject, language);
    if (!outcome) return TryRefusal::not_found;
    return Started{0, std::move(outcome)};
  }
  // The subject is checked now, so that a page never waits for an errand
  // that can only say "not found".
  if (kind == Try::copy) {
    if (!media::Copies(db_, clock_, config_, http_).owns(owner, subject))
      return TryRefusal::not_found;
  } else {
    auto c = Connections(db_, clock_, config_).get(owner, subject);
    if (!c || (kind == Try::sync && c->kind != "sync")) return TryRefusal::not_found;
  }
  engine::Queue queue(db_, clock_);
  const std::string task_kind = try_task_kind(kind);
  engine::EnqueueOptions o;
  o.owner = owner;
  o.max_attempts = 1;  // an errand: never retried; the person asks again
  o.idempotency_key = task_kind + ":" + std::to_string(subject);
  if (queue.unfinished_errands(owner, {kTestTask, kSyncTask, kCopyTask}) >= kUnfinishedPerPerson)
    return TryRefusal::too_many;
  json payload = {{subject_field(kind), subject}, {"language", language}};
  return Started{queue.enqueue(engine::NewTask(task_kind, payload.dump(), o)), std::nullopt};
}

std::optional<TryOutcome> Tries::run_now(std::int64_t owner, Try kind, std::int64_t subject,
                                         const std::string& language) {
  switch (kind) {
    case Try::test: {
      auto outcome = Connections(db_, clock_, config_).test(owner, subject, http_, language);
      if (!outcome) return std::nullopt;
      return TryOutcome{std::string(notify::outcome_name(*outcome)), outcome->message};
    }
    case Try::sync: {
      store::Cache cache(db_, clock_);
      auto report = sync::Syncs(db_, cache, clock_, config_, http_)
                        .run_now(owner, subject, std::chrono::milliseconds(kSyncLimit));
      if (!report) return std::nullopt;
      if (report->already_running) return TryOutcome{"busy", ""};
      if (!report->error.empty()) return TryOutcome{"failed", report->error};
      return TryOutcome{"done", ""};
    }
    case Try::copy:
      break;
  }
  auto outcome = media::Copies(db_, clock_, config_, http_).send_now(owner, subject);
  if (!outcome) return std::nullopt;
  return TryOutcome{media::copy_outcome_name(*outcome), ""};
}

Result<std::string> Tries::run(const engine::Task& task) {
  auto kind = try_of_kind(task.kind);
  auto payload = json::parse(task.payload, nullptr, false);
  if (!kind || !task.owner || !payload.is_object() ||
      !payload.value(subject_field(*kind), json()).is_number_integer())
    return Status::invalid("a try needs an owner and its subject");
  const auto subject = payload[subject_field(*kind)].get<std::int64_t>();
  auto outcome = run_now(*task.owner, *kind, subject, payload.value("language", "en"));
  // Removed since it was asked for: the page says so.
  if (!outcome) outcome = TryOutcome{"gone", ""};
  return json{{"outcome", outcome->outcome}, {"message", outcome->message}}.dump();
}

std::optional<SeenTry> Tries::seen(std::int64_t owner, std::int64_t task_id) {
  auto errand = engine::Queue(db_, clock_).errand(owner, task_id);
  if (!errand) return std::nullopt;
  auto kind = try_of_kind(errand->kind);
  auto payload = json::parse(errand->payload, nullptr, false);
  if (!kind || !payload.is_object() ||
      !payload.value(subject_field(*kind), json()).is_number_integer())
    return std::nullopt;
  SeenTry s;
  s.kind = *kind;
  s.subject = payload[subject_field(*kind)].get<std::int64_t>();
  s.working = errand->state == "available" || errand->state == "running";
  if (errand->state == "done") {
    auto result = json::parse(errand->result, nullptr, false);
    if (result.is_object())
      s.outcome = TryOutcome{result.value("outcome", ""), result.value("message", "")};
  } else if (!s.working) {
    s.interrupted = errand->error.empty() ? errand->state : errand->error;
  }
  return s;
}

}  // namespace peto::connections
