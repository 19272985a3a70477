// Applications: applying to a listing, status changes and the timeline.
//
//   Applications apps(records);
//   auto made = apps.apply(owner, listing_id, "");          // a draft, with its first event
//   apps.change_status(owner, id, {.to = "applied"});       // one transaction
//
// Every status change goes through change_status (never a plain UPDATE): it
// locks the application, re-reads its status, and writes the status_change
// event in the same transaction, following Postulo's rules:
//   - moving to the same status does nothing, unless an end reason is given;
//     then an X→X event carries the reason;
//   - the first time a sent status is reached, applied_at is set (to the given
//     moment or now);
//   - leaving the open set (draft … offer) sets closed_at; reopening clears it.
// The timeline is append-only: events are added, never edited; the system
// alone writes status_change and the interview_* kinds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "domain/records.h"

namespace peto::domain {

struct StatusChange {
  std::string to;
  std::string note;                        // the event's body
  std::string end_reason;                  // "" or one of end_reasons()
  std::string actor;                       // "" = the person; "API token X"…
  std::optional<std::int64_t> applied_at;  // UTC ms; default now
};

struct NewEvent {
  std::string kind;     // not a system kind
  std::string summary;  // 1..250 characters
  std::string body;
  std::optional<std::int64_t> occurred_at;  // default now
  std::string actor;
};

// Appends one timeline event on `conn` (inside the caller's transaction).
// `now` is when it is written; `occurred_at` (default now) when it happened.
void add_event(store::Conn& conn, std::int64_t application_id, std::int64_t now,
               const std::string& kind, const std::string& summary, const std::string& body = "",
               const std::string& from = "", const std::string& to = "",
               const std::string& end_reason = "", std::optional<std::int64_t> interview_id = {},
               const std::string& actor = "", std::optional<std::int64_t> occurred_at = {});

// What the person did — a status change, an interview booked, an offer
// recorded — announced to the connections that want it (notify/outbox.h:
// announce_event; these events are off unless a connection switches them on),
// on `conn`, inside the caller's transaction. `record_id` is the timeline
// event for a status change, else the interview or offer.
void announce_what_you_did(store::Conn& conn, std::int64_t now, std::int64_t application_id,
                           const std::string& event, std::int64_t record_id,
                           const std::string& from = "", const std::string& to = "");

class Applications {
 public:
  explicit Applications(Records& records) : records_(records) {}

  // Creates the listing's application as a draft with an "Application
  // created" note, then moves it to `status` when that is not draft.
  // `applied_at` (UTC ms, default now) is when it was sent, for "I applied
  // yesterday": the timeline's first entries are dated then. NotFound when the
  // listing is not the owner's; FieldErrors for an unknown status or an
  // applied_at in the future.
  Written apply(std::int64_t owner, std::int64_t listing_id, const std::string& status = "draft",
                const std::string& actor = "",
                std::optional<std::int64_t> applied_at = std::nullopt);

  // NotFound for somebody else's application; FieldErrors for an unknown
  // status or end reason. Returns the application as it is afterwards.
  Written change_status(std::int64_t owner, std::int64_t id, const StatusChange& change);

  // Adds a person's event (note, call, email…), dated `occurred_at` (a past
  // moment, yesterday's call) or now. FieldErrors for a system kind, an
  // empty or overlong summary, a moment in the future.
  std::variant<std::int64_t, FieldErrors, NotFound> add(std::int64_t owner, std::int64_t id,
                                                        const NewEvent& event);

  // The timeline, newest first; nullopt for somebody else's application.
  std::optional<std::vector<Record>> timeline(std::int64_t owner, std::int64_t id);

  // Records an interview's outcome; a held interview moves a lagging status
  // forward (phone → screening, assessment → assessment, else interviewing)
  // and a cancelled or missed one writes its event.
  Written set_outcome(std::int64_t owner, std::int64_t interview_id, const std::string& outcome);

  // Marks a reminder done (or not done again). NotFound for another's.
  Written set_done(std::int64_t owner, std::int64_t reminder_id, bool done);

  // The same, on a connection inside the caller's write transaction (the
  // API runs a POST and its idempotency record in one).
  Written apply_in(store::Conn& conn, std::int64_t owner, std::int64_t listing_id,
                   const std::string& status = "draft", const std::string& actor = "",
                   std::optional<std::int64_t> applied_at = std::nullopt);
  Written change_status_in(store::Conn& conn, std::int64_t owner, std::int64_t id,
                           const StatusChange& change);
  std::variant<std::int64_t, FieldErrors, NotFound> add_in(store::Conn& conn, std::int64_t owner,
                                                           std::int64_t id, const NewEvent& event);
  Written set_outcome_in(store::Conn& conn, std::int64_t owner, std::int64_t interview_id,
                         const std::string& outcome);
  // `at`: when it was done, if another app says (a task's COMPLETED); else now.
  Written set_done_in(store::Conn& conn, std::int64_t owner, std::int64_t reminder_id, bool done,
                      std::optional<std::int64_t> at = std::nullopt);
  std::optional<std::vector<Record>> timeline_in(store::Conn& conn, std::int64_t owner,
                                                 std::int64_t id);
  std::vector<Record> tags_of_in(store::Conn& conn, std::int64_t owner, std::int64_t id);
  std::variant<bool, FieldErrors, NotFound> set_tags_in(store::Conn& conn, std::int64_t owner,
                                                        std::int64_t id,
                                                        const std::vector<std::int64_t>& tag_ids);

  // The tags on an application, and replacing them (ids must be the owner's).
  std::vector<Record> tags_of(std::int64_t owner, std::int64_t id);
  std::variant<bool, FieldErrors, NotFound> set_tags(std::int64_t owner, std::int64_t id,
                                                     const std::vector<std::int64_t>& tag_ids);

 private:
  Records& records_;
};

}  // namespace peto::domain
