#include "media/copies.h"

#include <algorithm>

#include "core/log.h"
#include "core/stored_path.h"
#include "media/stores.h"
#include "media/uploads.h"
#include "plugin/attempt.h"
#include "plugin/connection_state.h"

namespace peto::media {

namespace {

std::string clipped(const std::string& s) {
  return s.size() > kCopyErrorMax ? s.substr(0, kCopyErrorMax) : s;
}

// Fills `file` from a copy's row (columns as Copies::attempt reads them) and
// checks it against the file on disk: "" when it can be sent, else why not.
std::string file_to_put(const Config& config, const store::Row& row, PutFile& file) {
  if (row.text("file").empty()) return "The document has no file.";
  file.path = stored_path(config.media_dir(), row.text("file"));
  if (file.path.empty())
    return "The document's file is not in peto's media folder; it was not sent.";
  FileFacts facts;
  auto damage = check_file(file.path, std::nullopt, row.opt_text("sha256"), &facts);
  if (damage == Damage::missing) return "The document's file is missing.";
  if (damage == Damage::changed)
    return "The document's file no longer matches its checksum; it was not sent.";
  std::string filename = row.text("filename").empty() ? "document" : row.text("filename");
  // The document's id first, whole: only the name after it is shortened, so
  // two documents never share a name on the store.
  std::string tail = safe_name(filename);
  if (tail.size() > kCopyNameMax) tail.erase(0, tail.size() - kCopyNameMax);  // keep the extension
  file.remote_name = std::to_string(row.int_at("upload_id")) + "-" + tail;
  file.content_type = row.text("content_type");
  file.size = facts.size;
  file.sha256 = facts.sha256;
  return "";
}

}  // namespace

void plan_copies_in(store::Conn& conn, std::int64_t owner, std::int64_t upload_id, Millis now) {
  conn.query(
      "INSERT INTO document_copies (owner_id, upload_id, connection_id, status, attempts,"
      " next_attempt_at, created_at)"
      " SELECT ?, ?, id, 'pending', 0, ?, ? FROM connections"
      " WHERE owner_id = ? AND kind = 'store' AND enabled = 1"
      " ON CONFLICT (upload_id, connection_id) DO NOTHING",
      {owner, upload_id, now, now, owner});
}

namespace {
// The documents of `owner` (?) that the store connection (?) has no copy of
// yet, when it is one of theirs and switched on.
constexpr const char* kUncopied =
    " FROM uploads u JOIN connections c ON c.id = ? AND c.owner_id = u.owner_id"
    " AND c.kind = 'store' AND c.enabled = 1"
    " WHERE u.owner_id = ? AND u.file <> '' AND NOT EXISTS (SELECT 1 FROM document_copies d"
    " WHERE d.upload_id = u.id AND d.connection_id = c.id)";
}  // namespace

std::int64_t uncopied_documents(store::Conn& conn, std::int64_t owner, std::int64_t connection_id) {
  return conn.query(std::string("SELECT COUNT(*) AS n") + kUncopied, {connection_id, owner})[0]
      .int_at("n");
}

std::int64_t plan_existing_copies_in(store::Conn& conn, std::int64_t owner,
                                     std::int64_t connection_id, Millis now) {
  return conn
      .query(std::string("INSERT INTO document_copies (owner_id, upload_id, connection_id, status,"
                         " attempts, next_attempt_at, created_at)"
                         " SELECT u.owner_id, u.id, c.id, 'pending', 0, ?, ?") +
                 kUncopied + " ON CONFLICT (upload_id, connection_id) DO NOTHING",
             {now, now, connection_id, owner})
      .affected;
}

std::vector<CopyView> list_copies(store::Conn& conn, std::int64_t owner, std::int64_t upload_id) {
  std::vector<CopyView> out;
  for (const auto& r :
       conn.query("SELECT d.id, d.connection_id, c.label, c.plugin, d.status, d.attempts,"
                  " d.next_attempt_at, d.sent_at, d.external_url, d.last_error"
                  " FROM document_copies d JOIN connections c ON c.id = d.connection_id"
                  " WHERE d.owner_id = ? AND d.upload_id = ? ORDER BY d.created_at, d.id",
                  {owner, upload_id})) {
    CopyView v;
    v.id = r.int_at("id");
    v.connection_id = r.int_at("connection_id");
    v.store_label = r.text("label");
    v.plugin = r.text("plugin");
    v.status = r.text("status");
    v.attempts = static_cast<int>(r.int_at("attempts"));
    if (v.status == "pending" || (v.status == "failed" && v.attempts < kCopyMaxAttempts))
      v.next_attempt_at = r.opt_int("next_attempt_at");
    v.sent_at = r.opt_int("sent_at");
    v.external_url = r.text("external_url");
    v.last_error = r.text("last_error");
    out.push_back(std::move(v));
  }
  return out;
}

Millis copy_retry_delay_ms(int attempts) { return plugin::retry_wait(kCopyBackoff, attempts); }

const char* copy_outcome_name(CopyOutcome o) {
  switch (o) {
    case CopyOutcome::sent:
      return "sent";
    case CopyOutcome::declined:
      return "declined";
    case CopyOutcome::refused:
      return "refused";
    case CopyOutcome::busy:
      return "busy";
    default:
      return "failed";
  }
}

Copies::Copies(store::Db& db, const Clock& clock, const Config& config, const net::HttpClient& http)
    : db_(db), clock_(clock), config_(config), http_(http) {}

// What makes copy row `d` claimable: pending or failed, attempts left, its
// time come, not claimed, its owner active. Parameters: the attempt limit and
// two `COALESCE(?, now_ms())` times (the database's clock unless pinned).
constexpr const char* kClaimable =
    "d.status IN ('pending', 'failed') AND d.attempts < ?"
    " AND d.next_attempt_at <= COALESCE(?, now_ms())"
    " AND (d.claimed_until IS NULL OR d.claimed_until <= COALESCE(?, now_ms()))"
    " AND EXISTS (SELECT 1 FROM users u WHERE u.id = d.owner_id AND u.active = 1)";
// Due: claimable and its connection an enabled store. The claim leaves the
// connection out: one switched off since due() read it fails its attempt
// without a request (docs/SPEC.md §6, Stores).
constexpr const char* kConnectionUsable =
    " AND EXISTS (SELECT 1 FROM connections c WHERE c.id = d.connection_id"
    " AND c.enabled = 1 AND c.kind = 'store')";

std::vector<std::int64_t> Copies::due() {
  store::Value now = store::now_param(clock_);
  std::vector<std::int64_t> ids;
  for (const auto& r :
       db_.query(std::string("SELECT d.id FROM document_copies d WHERE ") + kClaimable +
                     kConnectionUsable + " ORDER BY d.next_attempt_at, d.id LIMIT ?",
                 {kCopyMaxAttempts, now, now, kCopyBatch}))
    ids.push_back(r.int_at("id"));
  return ids;
}

std::optional<Millis> Copies::claim(std::int64_t id) {
  // The copy must still be due: another sender may have tried it since due()
  // read it (a failure now waiting, a decline, a 6th attempt, an owner made
  // inactive). The database's clock decides.
  store::Value now = store::now_param(clock_);
  auto claimed = db_.query(
      std::string("UPDATE document_copies AS d SET claimed_until = COALESCE(?, now_ms()) + ?"
                  " WHERE d.id = ? AND ") +
          kClaimable + " RETURNING claimed_until",
      {now, kCopyClaimMs, id, kCopyMaxAttempts, now, now});
  if (claimed.empty()) return std::nullopt;
  return claimed[0].int_at("claimed_until");
}

// Writes an outcome while the claim is still ours; clears the claim.
// next_attempt_at becomes now + `wait` (0 without one); sent_at is now for a
// sent copy; both on the database's clock. False when nothing was written:
// the claim was lost or the row is gone (its document version deleted).
bool Copies::finish(std::int64_t id, Millis claim, const std::string& status,
                    const std::string& error, std::optional<Millis> wait,
                    const std::string& external_id, const std::string& external_url) {
  const bool sent = status == "sent";
  store::Value now = store::now_param(clock_);
  auto written = db_.query(
      "UPDATE document_copies SET status = ?, last_error = ?,"
      " next_attempt_at = CASE WHEN ? = 1 THEN COALESCE(?, now_ms()) + ? ELSE 0 END,"
      " sent_at = CASE WHEN ? = 1 THEN COALESCE(?, now_ms()) ELSE sent_at END,"
      " external_id = CASE WHEN ? <> '' THEN ? ELSE external_id END,"
      " external_url = CASE WHEN ? <> '' THEN ? ELSE external_url END,"
      " claimed_until = NULL WHERE id = ? AND claimed_until = ?",
      {status, clipped(error), wait ? 1 : 0, now, wait.value_or(0), sent ? 1 : 0, now,
       clipped(external_id), clipped(external_id), clipped(external_url), clipped(external_url), id,
       claim});
  return written.affected == 1;
}

CopyOutcome Copies::attempt(std::int64_t id, Millis claim) {
  auto rows = db_.query(
      "SELECT d.owner_id, d.upload_id, d.connection_id, d.attempts, u.file, u.filename,"
      " u.content_type, u.sha256, c.plugin, c.enabled, c.kind, c.config, d.next_attempt_at,"
      " d.status"
      " FROM document_copies d JOIN uploads u ON u.id = d.upload_id"
      " LEFT JOIN connections c ON c.id = d.connection_id"
      " WHERE d.id = ? AND d.claimed_until = ?",
      {id, claim});
  if (rows.empty()) return CopyOutcome::busy;  // the claim was lost (taken over after 15 min)
  const auto& row = rows[0];
  const std::int64_t connection_id = row.int_at("connection_id");
  const Store* store = row.is_null("plugin") ? nullptr : find_store(row.text("plugin"));
  const bool usable = store != nullptr && row.int_at("enabled") != 0 && row.text("kind") == "store";
  // The policy first: a refusal is no attempt.
  if (usable) {
    auto config = nlohmann::json::parse(row.text("config"), nullptr, false);
    if (!config.is_object()) config = nlohmann::json::object();
    if (std::string why = store->refusal(config, config_, row.int_at("owner_id")); !why.empty()) {
      if (!finish(id, claim, row.text("status"), why, kCopyFirstRetryMs)) return CopyOutcome::busy;
      log::info("copies", "copy refused by policy", {{"copy", id}, {"reason", why}});
      return CopyOutcome::refused;
    }
  }

  const int attempts = static_cast<int>(row.int_at("attempts")) + 1;
  db_.query(
      "UPDATE document_copies SET attempts = ?, last_attempt_at = COALESCE(?, now_ms())"
      " WHERE id = ? AND claimed_until = ?",
      {attempts, store::now_param(clock_), id, claim});
  auto failed = [&](const std::string& why) { return copy_failed(id, claim, attempts, why); };
  if (!usable) return failed("The store connection is switched off, removed or unknown.");

  plugin::ConnectionState connections(clock_, config_);
  std::optional<nlohmann::json> config;
  {
    auto conn = db_.acquire();
    config = connections.full_config(*conn, connection_id);
  }
  if (!config)
    return failed(
        "The connection's secrets cannot be opened (PETO_SECRET_KEY changed); enter them again.");
  PutFile file;
  if (std::string why = file_to_put(config_, row, file); !why.empty()) return failed(why);

  PutResult result;
  try {
    result = store->put(
        file, *config,
        PutContext{
            .http = http_, .config = config_, .clock = clock_, .owner = row.int_at("owner_id")});
  } catch (const std::exception& e) {
    result = PutResult::failed(std::string("Error: ") + e.what());
  }
  return settle_put(id, claim, attempts, connection_id, *store, result);
}

// Writes the store's answer to a copy's attempt: on the copy's row, and on
// the connection's (plugin::settle: marked working when sent, retired when
// unusable; a failure leaves the connection's row alone).
CopyOutcome Copies::settle_put(std::int64_t id, Millis claim, int attempts,
                               std::int64_t connection_id, const Store& store,
                               const PutResult& result) {
  plugin::ConnectionState connections(clock_, config_);
  const plugin::Outcome& outcome = result.outcome;
  auto settle_connection = [&] {
    auto conn = db_.acquire();
    plugin::settle(connections, *conn, connection_id, outcome, plugin::Record::done_only);
  };
  if (outcome.kind == plugin::Outcome::Kind::unusable) {
    settle_connection();
    return copy_failed(id, claim, attempts, outcome.message);
  }
  if (outcome.kind == plugin::Outcome::Kind::done) {
    const bool written =
        finish(id, claim, "sent", "", std::nullopt, result.external_id, result.external_url);
    settle_connection();
    if (!written) {
      // The document version was deleted (or the claim lost) while the
      // file travelled: the store has a file no copy row speaks of.
      log::warn("copies", "copy sent but its row is gone or no longer claimed",
                {{"copy", id},
                 {"store", std::string(store.name())},
                 {"external_id", clipped(result.external_id)},
                 {"external_url", clipped(result.external_url)}});
      return CopyOutcome::busy;
    }
    log::info("copies", "copy sent", {{"copy", id}, {"store", std::string(store.name())}});
    return CopyOutcome::sent;
  }
  if (outcome.kind == plugin::Outcome::Kind::final) {
    if (!finish(id, claim, "declined",
                outcome.message.empty() ? "The store did not accept the file." : outcome.message,
                std::nullopt))
      return CopyOutcome::busy;
    log::info("copies", "copy declined", {{"copy", id}, {"error", clipped(outcome.message)}});
    return CopyOutcome::declined;
  }
  return copy_failed(
      id, claim, attempts,
      outcome.message.empty() ? "The copy failed without saying why." : outcome.message);
}

// A failed attempt: the copy waits copy_retry_delay_ms(attempts).
CopyOutcome Copies::copy_failed(std::int64_t id, Millis claim, int attempts,
                                const std::string& why) {
  if (!finish(id, claim, "failed", why, copy_retry_delay_ms(attempts))) return CopyOutcome::busy;
  log::info("copies", "copy failed",
            {{"copy", id}, {"attempt", attempts}, {"error", clipped(why)}});
  return CopyOutcome::failed;
}

bool Copies::owns(std::int64_t owner, std::int64_t copy_id) const {
  return !db_.query("SELECT 1 FROM document_copies WHERE id = ? AND owner_id = ?", {copy_id, owner})
              .empty();
}

std::optional<CopyOutcome> Copies::send_now(std::int64_t owner, std::int64_t copy_id) {
  if (!owns(owner, copy_id)) return std::nullopt;
  store::Value now = store::now_param(clock_);
  // Its own claim, taken together with the reset.
  auto claimed = db_.query(
      "UPDATE document_copies SET claimed_until = COALESCE(?, now_ms()) + ?, attempts = 0,"
      " next_attempt_at = COALESCE(?, now_ms())"
      " WHERE id = ? AND owner_id = ? AND status <> 'sent'"
      " AND (claimed_until IS NULL OR claimed_until <= COALESCE(?, now_ms()))"
      " RETURNING claimed_until",
      {now, kCopyClaimMs, now, copy_id, owner, now});
  if (claimed.empty()) return CopyOutcome::busy;
  return attempt(copy_id, claimed[0].int_at("claimed_until"));
}

bool Copies::is_copy_of(std::int64_t owner, std::int64_t copy_id, std::int64_t document_id) const {
  return !db_.query("SELECT 1 FROM document_copies WHERE id = ? AND upload_id = ? AND owner_id = ?",
                    {copy_id, document_id, owner})
              .empty();
}

}  // namespace peto::media
