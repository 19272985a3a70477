#include "sync/collection.h"

#include <map>
#include <optional>
#include <set>

#include "core/log.h"
#include "core/token.h"
#include "domain/cards.h"
#include "formats/ical.h"

namespace peto::sync {

namespace {

using nlohmann::json;

// Hrefs compare percent-decoded: servers write "%40" or "@" as they like.
std::string href_key(const std::string& href) {
  std::string out;
  for (std::size_t i = 0; i < href.size(); ++i) {
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (href[i] == '%' && i + 2 < href.size() && hex(href[i + 1]) >= 0 && hex(href[i + 2]) >= 0) {
      out += static_cast<char>(hex(href[i + 1]) * 16 + hex(href[i + 2]));
      i += 2;
    } else {
      out += href[i];
    }
  }
  return out;
}

struct Link {
  std::int64_t id = 0;
  std::string record_kind;  // "" = a member that is not peto's ("skipped")
  std::optional<std::int64_t> record_id;
  std::optional<Millis> record_created_at;
  std::string uid;
  std::string href;
  std::string etag;
  std::string local_hash;
};

std::string failure_text(const DavFailure& f) {
  return f.message.empty() ? "the server answered " + std::to_string(f.status) : f.message;
}

class Run {
 public:
  Run(SyncContext& ctx, const DavClient& dav, const std::vector<Side>& sides, SyncReport& report)
      : ctx_(ctx), dav_(dav), sides_(sides), report_(report) {}

  void go() {
    if (!read_remote()) return;
    read_links();
    read_records();
    for (Link& link : links_) guarded(link.href, [&] { follow(link); });
    for (const Side& side : sides_)
      for (auto& [id, record] : records_[side.record_kind])
        if (!linked_records_.count({side.record_kind, id}))
          guarded(side.record_kind + " " + std::to_string(id), [&] { upload(side, record); });
    for (auto& [key, member] : remote_)
      if (!seen_remote_.count(key)) guarded(member.href, [&] { adopt(member); });
    // The token says "everything before this is here": only a whole run may
    // move it, and past peto's own writes (see token_after_writes).
    if (!failed_ && !stopped_)
      ctx_.db.query("UPDATE connections SET sync_token = ? WHERE id = ?",
                    {token_after_writes(), ctx_.connection_id});
  }

 private:
  // Runs one item's work; its failure is noted and the run goes on. Past
  // the deadline no item starts: the rest wait for the next run.
  template <typename Fn>
  void guarded(const std::string& what, Fn&& fn) {
    if (stopped_) return;
    if (ctx_.deadline != std::chrono::steady_clock::time_point{} &&
        ctx_.clock.mono() >= ctx_.deadline) {
      stopped_ = true;
      report_.notes.emplace_back("This sync ran out of time; the rest follows on the next one.");
      return;
    }
    try {
      fn();
    } catch (const std::exception& e) {
      fail(what + ": " + e.what());
    }
  }
  void fail(const std::string& why) {
    if (!failed_) report_.error = why;
    failed_ = true;
    log::warn("sync", "sync item failed", {{"connection", ctx_.connection_id}, {"error", why}});
  }
  void note_failure(const std::string& what, const DavFailure& f) {
    if (f.kind == DavFailure::Kind::unusable) report_.unusable = true;
    fail(what + ": " + failure_text(f));
  }

  // The token to keep. A token read before peto's own writes leaves them in
  // the gap of the next sync, and a server may then leave out a member that
  // was made and removed in that gap (RFC 6578 allows it): peto would never
  // hear of the deletion. So after writing, the changes since the token are
  // read once more: when they are peto's own writes and nothing else, their
  // token is kept; when anything else changed meanwhile, no token (the next
  // run lists the whole collection, which has no gap).
  std::string token_after_writes() {
    if (wrote_.empty() || token_.empty()) return token_;
    auto after = dav_.changes_since(token_);
    if (!after || std::holds_alternative<DavFailure>(*after)) return "";
    const DavListing& changes = std::get<DavListing>(*after);
    for (const DavMember& m : changes.members) {
      auto it = wrote_.find(href_key(m.href));
      if (it == wrote_.end() || !it->second || (!it->second->empty() && *it->second != m.etag))
        return "";
    }
    for (const std::string& gone : changes.removed) {
      auto it = wrote_.find(href_key(gone));
      if (it == wrote_.end() || it->second) return "";
    }
    return changes.sync_token;
  }

  // What this run wrote to the server: a member's ETag after the write ("" when
  // the server gave none), or nullopt for a member it deleted.
  void wrote(const std::string& href, std::optional<std::string> etag) {
    wrote_[href_key(href)] = std::move(etag);
  }

  // The server's members now: the changes since the saved token when it is
  // still good, else everything.
  bool read_remote() {
    auto saved =
        ctx_.db.query("SELECT sync_token FROM connections WHERE id = ?", {ctx_.connection_id});
    std::string token = saved.empty() ? "" : saved[0].text("sync_token");
    if (!token.empty()) {
      if (auto changes = dav_.changes_since(token)) {
        if (auto* f = std::get_if<DavFailure>(&*changes)) {
          note_failure(dav_.collection_path(), *f);
          return false;
        }
        auto& delta = std::get<DavListing>(*changes);
        for (const auto& r : ctx_.db.query(
                 "SELECT href, etag FROM sync_links WHERE connection_id = ?", {ctx_.connection_id}))
          remote_[href_key(r.text("href"))] = {r.text("href"), r.text("etag")};
        for (const auto& m : delta.members) remote_[href_key(m.href)] = m;
        for (const auto& gone : delta.removed) remote_.erase(href_key(gone));
        token_ = delta.sync_token;
        return true;
      }
    }
    auto listing = dav_.list();
    if (auto* f = std::get_if<DavFailure>(&listing)) {
      note_failure(dav_.collection_path(), *f);
      return false;
    }
    for (const auto& m : std::get<DavListing>(listing).members) remote_[href_key(m.href)] = m;
    token_ = std::get<DavListing>(listing).sync_token;
    return true;
  }

  void read_links() {
    for (const auto& r : ctx_.db.query(
             "SELECT id, record_kind, record_id, record_created_at, uid, href, etag, local_hash"
             " FROM sync_links WHERE connection_id = ? ORDER BY id",
             {ctx_.connection_id})) {
      Link l;
      l.id = r.int_at("id");
      l.record_kind = r.text("record_kind");
      l.record_id = r.opt_int("record_id");
      l.record_created_at = r.opt_int("record_created_at");
      l.uid = r.text("uid");
      l.href = r.text("href");
      l.etag = r.text("etag");
      l.local_hash = r.text("local_hash");
      links_.push_back(std::move(l));
    }
  }

  void read_records() {
    for (const Side& side : sides_)
      for (json& r : side.records()) {
        const auto id = r["id"].get<std::int64_t>();  // before r is moved from
        records_[side.record_kind][id] = std::move(r);
      }
  }

  const Side* side_of(const std::string& kind) const {
    for (const Side& s : sides_)
      if (s.record_kind == kind) return &s;
    return nullptr;
  }

  // The record a link names, when it is still the same record.
  const json* record_of(const Link& link) {
    if (!link.record_id) return nullptr;
    auto& of_kind = records_[link.record_kind];
    auto it = of_kind.find(*link.record_id);
    if (it == of_kind.end()) return nullptr;
    const json& created = it->second["created_at"];
    if (link.record_created_at && created.is_number() &&
        created.get<std::int64_t>() != *link.record_created_at)
      return nullptr;  // a later record given the same id
    return &it->second;
  }

  void forget(const Link& link) { ctx_.db.query("DELETE FROM sync_links WHERE id = ?", {link.id}); }

  void follow(Link& link) {
    const std::string key = href_key(link.href);
    auto there = remote_.find(key);
    seen_remote_.insert(key);
    const Side* side = side_of(link.record_kind);
    if (side == nullptr) {
      // A member that is not peto's: read again only once it changes.
      if (there == remote_.end() || there->second.etag != link.etag || link.etag.empty()) {
        forget(link);
        if (there != remote_.end()) seen_remote_.erase(key);
      }
      return;
    }
    const json* here = record_of(link);
    if (here) linked_records_.insert({link.record_kind, *link.record_id});
    if (!here && there == remote_.end()) {
      forget(link);
      return;
    }
    if (!here) {
      // Deleted here: delete there, unless it changed in this very moment.
      if (auto f = dav_.remove(link.href, there->second.etag)) {
        if (f->kind != DavFailure::Kind::precondition) note_failure(link.href, *f);
        return;
      }
      wrote(link.href, std::nullopt);
      forget(link);
      report_.add("deleted_there");
      return;
    }
    Rendered now = side->render(*here, link.uid);
    const bool changed_here = now.hash != link.local_hash;
    if (there == remote_.end()) {
      // Missing from the listing. Only the member itself answering 404
      // makes that a deletion: a listing that was not what it seemed must
      // never delete records here.
      auto check = dav_.get(link.href);
      if (auto* f = std::get_if<DavFailure>(&check); !f || f->kind != DavFailure::Kind::not_found) {
        if (f)
          note_failure(link.href, *f);
        else
          report_.notes.push_back(link.href + ": missing from the listing but still there");
        return;
      }
      deleted_there(*side, link, changed_here);
      return;
    }
    const std::string& etag_there = there->second.etag;
    if (etag_there.empty() || etag_there != link.etag) {
      pull(*side, link, changed_here);
      return;
    }
    if (!changed_here) return;
    push(*side, link, now);
  }

  // The member answered 404 to a GET of its own: deleted there, so deleted
  // here (a deletion wins over a change).
  void deleted_there(const Side& side, const Link& link, bool changed_here) {
    ctx_.db.write([&](store::Conn& conn) {
      side.remove(conn, *link.record_id);
      conn.query("DELETE FROM sync_links WHERE id = ?", {link.id});
    });
    report_.add("deleted_here");
    if (changed_here) report_.add("conflicts");
  }

  // The record changed here: peto's properties go into the member as the
  // server has it, so what peto does not keep (alarms, more addresses,
  // photos) stays; the write is conditional on the version just read.
  void push(const Side& side, const Link& link, const Rendered& now) {
    auto got = dav_.get(link.href);
    if (auto* f = std::get_if<DavFailure>(&got)) {
      // Gone, though the listing had it: a sync-token's gap may never tell.
      if (f->kind == DavFailure::Kind::not_found) return deleted_there(side, link, true);
      return note_failure(link.href, *f);
    }
    // Conditional on the version the decision was made on: a member changed
    // there since the listing answers 412 and is pulled next run.
    const DavBody& theirs = std::get<DavBody>(got);
    auto put = dav_.put(link.href, formats::merge_member(theirs.body, now.text), side.content_type,
                        link.etag);
    if (auto* f = std::get_if<DavFailure>(&put)) {
      if (f->kind != DavFailure::Kind::precondition) return note_failure(link.href, *f);
      // Changed there between the read and the write: the next run reads it.
      report_.add("waiting");
      report_.notes.push_back(link.href + ": changed on the server while peto wrote it");
      return;
    }
    const std::string etag = etag_after_write(link.href, std::get<std::string>(put));
    wrote(link.href, etag);
    ctx_.db.query("UPDATE sync_links SET etag = ?, local_hash = ?, synced_at = ? WHERE id = ?",
                  {etag, now.hash, ctx_.clock.now_ms(), link.id});
    report_.add("pushed");
  }

  // The member's ETag after peto wrote it: the PUT's answer, or, from a
  // server that changed the text as it stored it (and so sent none), the
  // ETag the member now has. "" only when the server never says.
  std::string etag_after_write(const std::string& href, const std::string& answered) {
    if (!answered.empty()) return answered;
    auto got = dav_.get(href);
    if (auto* b = std::get_if<DavBody>(&got)) return b->etag;
    return "";
  }

  // The member changed there: the record takes its values.
  void pull(const Side& side, const Link& link, bool changed_here) {
    auto got = dav_.get(link.href);
    if (auto* f = std::get_if<DavFailure>(&got)) {
      if (f->kind == DavFailure::Kind::not_found) return deleted_there(side, link, changed_here);
      return note_failure(link.href, *f);
    }
    const DavBody& body = std::get<DavBody>(got);
    // The listing's ETag is the one the next listing is compared with.
    const std::string listed = remote_[href_key(link.href)].etag;
    const std::string etag = listed.empty() ? body.etag : listed;
    std::string problem;
    ctx_.db.write([&](store::Conn& conn) {
      Applied applied = side.apply(conn, *link.record_id, body.body);
      std::string hash = link.local_hash;
      if (auto* record = std::get_if<json>(&applied))
        hash = side.render(*record, link.uid).hash;
      else
        problem = std::get<std::string>(applied);
      // Even an unreadable member is not read again until it changes.
      conn.query("UPDATE sync_links SET etag = ?, local_hash = ?, synced_at = ? WHERE id = ?",
                 {etag, hash, ctx_.clock.now_ms(), link.id});
    });
    if (!problem.empty()) {
      report_.notes.push_back(link.href + ": " + problem);
      report_.add("skipped");
      return;
    }
    report_.add("pulled");
    if (changed_here) report_.add("conflicts");
  }

  // A record with no member yet: made there under its uid.
  void upload(const Side& side, const json& record) {
    const std::int64_t id = record["id"].get<std::int64_t>();
    const std::string uid = domain::record_uid(side.record_kind, record);
    const std::string href = dav_.href_for(uid, side.extension);
    Rendered r = side.render(record, uid);
    seen_remote_.insert(href_key(href));
    // Create only: a member already there (a run that died after its PUT)
    // answers 412 and is merged below, never overwritten blind.
    auto put = dav_.put(href, r.text, side.content_type, "");
    if (auto* f = std::get_if<DavFailure>(&put); f && f->kind == DavFailure::Kind::precondition) {
      // Already there (a run that died after its PUT): it is ours.
      auto got = dav_.get(href);
      if (auto* g = std::get_if<DavFailure>(&got)) return note_failure(href, *g);
      const DavBody& theirs = std::get<DavBody>(got);
      put = dav_.put(href, formats::merge_member(theirs.body, r.text), side.content_type,
                     theirs.etag);
    }
    if (auto* f = std::get_if<DavFailure>(&put)) {
      if (f->kind == DavFailure::Kind::precondition) return;  // raced: the next run
      if (f->kind == DavFailure::Kind::failed && f->status >= 400 && f->status < 500 &&
          f->status != 408 && f->status != 425 && f->status != 429) {
        // The server refuses this one entry (a UID it holds elsewhere, a
        // type it does not take): said in the report, the rest goes on.
        report_.add("skipped");
        report_.notes.push_back(side.record_kind + " " + std::to_string(id) + ": " +
                                failure_text(*f));
        refused_uids_.insert(uid);  // a member elsewhere with this UID is not a new record
        return;
      }
      return note_failure(href, *f);
    }
    const json& created = record["created_at"];
    const std::string etag = etag_after_write(href, std::get<std::string>(put));
    wrote(href, etag);
    ctx_.db.query(
        "INSERT INTO sync_links (connection_id, record_kind, record_id, record_created_at, uid,"
        " href, etag, local_hash, synced_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        {ctx_.connection_id, side.record_kind, id,
         created.is_number() ? store::Value(created.get<std::int64_t>()) : store::Value(), uid,
         href, etag, r.hash, ctx_.clock.now_ms()});
    report_.add("uploaded");
  }

  // A member with no link: a record made of it, or remembered as skipped.
  void adopt(const DavMember& member) {
    auto got = dav_.get(member.href);
    if (auto* f = std::get_if<DavFailure>(&got)) {
      if (f->kind != DavFailure::Kind::not_found) note_failure(member.href, *f);
      return;
    }
    const DavBody& body = std::get<DavBody>(got);
    const std::string etag = body.etag.empty() ? member.etag : body.etag;
    const Side* side = nullptr;
    std::string uid;
    for (const Side& s : sides_)
      if (auto claimed = s.claims(body.body)) {
        side = &s;
        uid = claimed->empty() ? member.href : *claimed;
        break;
      }
    std::string problem = side == nullptr ? "not a kind of entry peto keeps" : "";
    bool made = false;
    ctx_.db.write([&](store::Conn& conn) {
      std::optional<json> record;
      // Two members with one UID (a copied card): the first keeps it, the
      // other is left alone rather than made into a second record.
      if (side != nullptr && refused_uids_.count(uid)) {
        problem = "has the UID of a record the server refused under it";
      } else if (side != nullptr &&
                 !conn.query("SELECT 1 AS found FROM sync_links WHERE connection_id = ?"
                             " AND uid = ?",
                             {ctx_.connection_id, uid})
                      .empty()) {
        problem = "has the same UID as another entry";
      } else if (side != nullptr && side->create) {
        Applied applied = side->create(conn, body.body);
        if (auto* r = std::get_if<json>(&applied))
          record = std::move(*r);
        else
          problem = std::get<std::string>(applied);
      }
      if (!record) {
        conn.query(
            "INSERT INTO sync_links (connection_id, record_kind, uid, href, etag, synced_at)"
            " VALUES (?, '', ?, ?, ?, ?)",
            {ctx_.connection_id, "skipped:" + member.href, member.href, etag, ctx_.clock.now_ms()});
        return;
      }
      conn.query(
          "INSERT INTO sync_links (connection_id, record_kind, record_id, record_created_at, uid,"
          " href, etag, local_hash, synced_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {ctx_.connection_id, side->record_kind, (*record)["id"].get<std::int64_t>(),
           (*record)["created_at"].get<std::int64_t>(), uid, member.href, etag,
           side->render(*record, uid).hash, ctx_.clock.now_ms()});
      made = true;
    });
    if (made) {
      report_.add("created");
    } else {
      report_.add("skipped");
      if (!problem.empty() && side != nullptr)
        report_.notes.push_back(member.href + ": " + problem);
    }
  }

  SyncContext& ctx_;
  const DavClient& dav_;
  const std::vector<Side>& sides_;
  SyncReport& report_;
  std::map<std::string, DavMember> remote_;  // by href_key
  std::string token_;
  std::map<std::string, std::optional<std::string>> wrote_;  // by href_key; see wrote()
  std::vector<Link> links_;
  std::map<std::string, std::map<std::int64_t, json>> records_;  // kind → id → record
  std::set<std::pair<std::string, std::int64_t>> linked_records_;
  std::set<std::string> seen_remote_;
  bool failed_ = false;
  bool stopped_ = false;                // past the deadline
  std::set<std::string> refused_uids_;  // uploads the server refused this run
};

}  // namespace

std::string text_hash(const std::string& text) { return sha256_hex(text); }

void sync_collection(SyncContext& ctx, const DavClient& dav, const std::vector<Side>& sides,
                     SyncReport& report) {
  Run(ctx, dav, sides, report).go();
}

}  // namespace peto::sync
