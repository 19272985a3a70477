// Factory: a person's data for tests, written through the domain code the way
// peto itself writes it, instead of raw INSERTs that drift from the schema.
//
//   testing::Factory make(db(), clock_);
//   auto ada = make.account("ada@example.com", {.language = "fr"});
//   auto acme = make.company(ada, "Acme");
//   auto app = make.application(ada, make.listing(ada, acme, "Engineer"), "applied");
//   auto cv = make.document(config_, ada, "%PDF-1.7 …", {.filename = "cv.pdf"});
//
// So a seeded row has what peto gives it: a folded company key, an
// application's first note and its status_change events (announced to the
// owner's connections that want them), a document's file in its place and
// its copies planned. Times come from the clock; application() can be made
// at another moment, as if peto had written it then. A refused write throws
// std::logic_error naming the fields: that is a mistake in the test.
//
// Raw SQL stays for what the domain never writes on purpose (a history row
// at a chosen moment, an old verified_at, rows without an owner).
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>

#include "core/clock.h"
#include "core/config.h"
#include "domain/accounts.h"
#include "domain/applications.h"
#include "domain/field_errors.h"
#include "domain/kinds.h"
#include "domain/records.h"
#include "media/documents.h"
#include "store/db.h"

namespace peto::testing {

struct AccountOptions {
  // Unset: the column's default ("", "UTC", 21, 3).
  std::optional<std::string> language = std::nullopt;
  std::optional<std::string> time_zone = std::nullopt;
  std::optional<int> quiet_after_days = std::nullopt;
  std::optional<int> closing_notice_days = std::nullopt;
  // The reminders peto makes itself start switched off here, so that a test
  // about something else sees only the reminders it made;
  // tests/domain/auto_reminders_test.cpp switches them on.
  domain::ReminderSwitches reminders = {
      .follow_up_days = 0, .interviews = false, .answer_by = false, .closing = false};
  bool active = true;
  bool admin = false;  // the first account ever made is admin whatever this says
};

struct ListingOptions {
  std::optional<std::string> closes_on = std::nullopt;  // "YYYY-MM-DD"
  std::string state = "new";                            // "new", "shortlisted", "discarded"
};

struct DocumentOptions {
  std::string filename = "cv.pdf";  // as uploaded; copies to stores are named after it
  std::string title = "";           // blank: the file name without its extension
  std::string kind = "";            // blank: "other"
};

class Factory {
 public:
  // Every account has this password.
  static constexpr const char* kPassword = "correct horse battery";

  Factory(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {
    // Accounts hash their password; at the interactive cost every seeded
    // account would take a noticeable fraction of a second.
    domain::set_password_cost(domain::PasswordCost::test);
  }

  // An account made by domain::Accounts, then its profile and state set as
  // the profile page and the admin would.
  std::int64_t account(const std::string& email, const AccountOptions& options = {}) {
    domain::Accounts accounts(db_, clock_);
    auto made = accounts.create(email, kPassword, options.admin);
    if (auto* errors = std::get_if<domain::FieldErrors>(&made))
      refused("account " + email, *errors);
    const domain::Account account = std::get<domain::Account>(made);
    {
      domain::Account wanted = account;
      wanted.language = options.language.value_or(account.language);
      wanted.time_zone = options.time_zone.value_or(account.time_zone);
      wanted.quiet_after_days = options.quiet_after_days.value_or(account.quiet_after_days);
      wanted.closing_notice_days =
          options.closing_notice_days.value_or(account.closing_notice_days);
      wanted.reminders = options.reminders;
      auto errors = accounts.update_profile(account.id, wanted);
      if (!errors.empty()) refused("profile of " + email, errors);
    }
    if (!options.active) accounts.set_active(account.id, false);
    return account.id;
  }

  // Switches off the reminders peto makes itself for an account made
  // elsewhere (a signed-in client's): for a test about something else that
  // counts reminders or search hits.
  void without_auto_reminders(std::int64_t owner) {
    domain::Accounts accounts(db_, clock_);
    domain::Account wanted = *accounts.find(owner);
    wanted.reminders = AccountOptions{}.reminders;
    auto errors = accounts.update_profile(owner, wanted);
    if (!errors.empty()) refused("profile", errors);
  }

  std::int64_t company(std::int64_t owner, const std::string& name) {
    return create(owner, "companies", {{"name", name}});
  }

  std::int64_t listing(std::int64_t owner, std::int64_t company_id, const std::string& role,
                       const ListingOptions& options = {}) {
    nlohmann::json values = {{"role", role}, {"company_id", company_id}, {"state", options.state}};
    if (options.closes_on) values["closes_on"] = *options.closes_on;
    return create(owner, "listings", values);
  }

  // Applies to the listing and moves the draft to `status`, as
  // domain::Applications does: the first note, then the status change (which
  // sets applied_at for a sent status and closed_at for an ended one). `at`
  // is when all that happened (created_at, applied_at and the timeline);
  // default now.
  std::int64_t application(std::int64_t owner, std::int64_t listing_id,
                           const std::string& status = "draft",
                           std::optional<Millis> at = std::nullopt) {
    FakeClock then(at.value_or(0));
    domain::Records records(db_, at ? static_cast<const Clock&>(then) : clock_);
    domain::Applications applications(records);
    return id_of(applications.apply(owner, listing_id, status), "application");
  }

  std::int64_t reminder(std::int64_t owner, const std::string& title, Millis due_at) {
    return create(owner, "reminders", {{"title", title}, {"due_at", due_at}});
  }

  // A document uploaded with `bytes` as its file: media::Documents sniffs the
  // type from them (so "%PDF-1.7 …" is a PDF, short text is text/plain and a
  // byte or two is refused), puts the file under the media folder and plans
  // its copies to the owner's stores.
  std::int64_t document(const Config& config, std::int64_t owner, const std::string& bytes,
                        const DocumentOptions& options = {}) {
    media::DocumentInput in;
    in.title = options.title;
    in.kind = options.kind;
    in.filename = options.filename;
    std::istringstream file(bytes);
    auto made = media::Documents(db_, clock_, config).create_from(owner, in, file);
    if (auto* errors = std::get_if<domain::FieldErrors>(&made))
      refused("document " + options.filename, *errors);
    if (std::holds_alternative<domain::NotFound>(made))
      throw std::logic_error("factory: document " + options.filename + ": not found");
    return std::get<media::Document>(made).id;
  }

 private:
  std::int64_t create(std::int64_t owner, const std::string& kind, nlohmann::json values) {
    domain::Input input;
    input.values = std::move(values);
    input.from_form = false;  // typed values; moments as UTC ms
    return id_of(domain::Records(db_, clock_).create(owner, domain::kind(kind), input), kind);
  }

  static std::int64_t id_of(const domain::Written& written, const std::string& what) {
    if (auto* errors = std::get_if<domain::FieldErrors>(&written)) refused(what, *errors);
    if (std::holds_alternative<domain::NotFound>(written))
      throw std::logic_error("factory: " + what + ": not found (somebody else's?)");
    return std::get<domain::Record>(written)["id"].get<std::int64_t>();
  }

  [[noreturn]] static void refused(const std::string& what, const domain::FieldErrors& errors) {
    std::string fields;
    for (const auto& [field, message] : errors.by_field) fields += " " + field + "=" + message;
    throw std::logic_error("factory: " + what + " refused:" + fields);
  }

  store::Db& db_;
  const Clock& clock_;
};

}  // namespace peto::testing
