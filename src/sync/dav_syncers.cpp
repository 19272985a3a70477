// The CalDAV and CardDAV syncers: which records go to which collection, and
// how a member's text changes them. The sync itself is sync_collection's
// (sync/collection.h).
//
// CalDAV: interviews as VEVENTs (a VEVENT from elsewhere never makes an
// interview, which needs an application: it is skipped) and reminders as
// VTODOs (a VTODO from elsewhere makes a reminder). CardDAV: contacts as
// vCards, both ways.
#include <boost/url.hpp>
#include <functional>

#include "core/i18n.h"
#include "domain/applications.h"
#include "domain/calendar.h"
#include "domain/cards.h"
#include "domain/records.h"
#include "formats/ical.h"
#include "sync/collection.h"
#include "sync/dav.h"

namespace peto::sync {

namespace {

using nlohmann::json;

// Every record of `kind` of the owner, newest first, page by page.
std::vector<json> all_records(SyncContext& ctx, const std::string& kind) {
  domain::Records records(ctx.db, ctx.clock);
  std::vector<json> out;
  domain::ListQuery q;
  q.tab = "all";
  q.limit = 200;
  for (;;) {
    auto page = records.list(ctx.owner_id, domain::kind(kind), q);
    for (auto& r : page.items) out.push_back(std::move(r));
    if (!page.next_cursor) break;
    q.before_id = page.next_cursor;
  }
  return out;
}

std::string first_error(const domain::FieldErrors& errors) {
  if (errors.empty()) return "not accepted";
  const auto& [field, key] = *errors.by_field.begin();
  return field + ": " + Catalogue::shared().text("en", key);
}

// A written record, or what was wrong with the values.
Applied written(domain::Written w) {
  if (auto* r = std::get_if<domain::Record>(&w)) return *r;
  if (auto* e = std::get_if<domain::FieldErrors>(&w)) return first_error(*e);
  return std::string("the record is gone");
}

domain::Input typed(json values, bool partial) {
  domain::Input in;
  in.values = std::move(values);
  in.from_form = false;
  in.partial = partial;
  in.actor = "sync";
  return in;
}

Rendered calendar_text(const formats::CalItem& item, Millis now) {
  // DTSTAMP is the only part that changes on every write: hashed without it.
  return {formats::write_calendar({item}, now), text_hash(formats::write_calendar({item}, 0))};
}

template <typename T>
std::optional<T> read_as(const std::variant<T, std::string>& read) {
  if (auto* v = std::get_if<T>(&read)) return *v;
  return std::nullopt;
}

// One function both makes a record from a member (id nullopt) and changes
// one by it.
using Write =
    std::function<Applied(store::Conn&, std::optional<std::int64_t> id, const std::string& text)>;
void made_and_changed_by(Side& s, const Write& write) {
  s.apply = [write](store::Conn& conn, std::int64_t id, const std::string& text) {
    return write(conn, id, text);
  };
  s.create = [write](store::Conn& conn, const std::string& text) {
    return write(conn, std::nullopt, text);
  };
}

// Deletes one of the owner's records of the side's kind.
std::function<void(store::Conn&, std::int64_t)> deleter(SyncContext& ctx, const std::string& kind) {
  return [&ctx, &k = domain::kind(kind)](store::Conn& conn, std::int64_t id) {
    domain::Records(ctx.db, ctx.clock).remove_in(conn, ctx.owner_id, k, id);
  };
}

Side interviews_side(SyncContext& ctx) {
  Side s;
  s.record_kind = "interviews";
  s.extension = ".ics";
  s.content_type = "text/calendar; charset=utf-8";
  s.records = [&ctx] {
    auto list = all_records(ctx, "interviews");
    auto uids = domain::interview_uids(ctx.db, ctx.owner_id);
    for (json& r : list) r["uid"] = uids[r["id"].get<std::int64_t>()];
    return list;
  };
  s.render = [&ctx](const json& r, const std::string& uid) {
    return calendar_text(domain::interview_item(r, uid, domain::interview_title(ctx.language, r)),
                         ctx.clock.now_ms());
  };
  s.claims = [&ctx](const std::string& text) -> std::optional<std::string> {
    auto item = read_as(formats::read_calendar(text, ctx.time_zone));
    if (!item || item->type != formats::CalItem::Type::event) return std::nullopt;
    return item->uid;
  };
  s.apply = [&ctx](store::Conn& conn, std::int64_t id, const std::string& text) -> Applied {
    auto read = formats::read_calendar(text, ctx.time_zone);
    if (auto* why = std::get_if<std::string>(&read)) return *why;
    domain::Records records(ctx.db, ctx.clock);
    Applied a = written(
        records.update_in(conn, ctx.owner_id, domain::kind("interviews"), id,
                          typed(domain::interview_values(std::get<formats::CalItem>(read)), true)));
    if (auto* r = std::get_if<json>(&a))
      (*r)["uid"] = domain::interview_uid(conn, ctx.owner_id, id);
    return a;
  };
  s.remove = deleter(ctx, s.record_kind);
  return s;
}

Side reminders_side(SyncContext& ctx) {
  Side s;
  s.record_kind = "reminders";
  s.extension = ".ics";
  s.content_type = "text/calendar; charset=utf-8";
  s.records = [&ctx] { return all_records(ctx, "reminders"); };
  s.render = [&ctx](const json& r, const std::string& uid) {
    return calendar_text(domain::reminder_item(r, uid), ctx.clock.now_ms());
  };

  s.claims = [&ctx](const std::string& text) -> std::optional<std::string> {
    auto item = read_as(formats::read_calendar(text, ctx.time_zone));
    if (!item || item->type != formats::CalItem::Type::todo) return std::nullopt;
    return item->uid;
  };
  // The fields, then done or not (done_at is peto's to set).
  auto write = [&ctx](store::Conn& conn, std::optional<std::int64_t> id,
                      const std::string& text) -> Applied {
    auto read = formats::read_calendar(text, ctx.time_zone);
    if (auto* why = std::get_if<std::string>(&read)) return *why;
    json values = domain::reminder_values(std::get<formats::CalItem>(read));
    const bool done = values.contains("done_at") && !values["done_at"].is_null();
    // When the app says it was done (COMPLETED), not when peto heard of it.
    const std::optional<std::int64_t> done_at =
        done && values["done_at"].is_number_integer()
            ? std::optional<std::int64_t>(values["done_at"].get<std::int64_t>())
            : std::nullopt;
    values.erase("done_at");
    // DUE is written in whole seconds: the same second is no change (a
    // changed due time also clears the reminder's announcement).
    if (id && values.contains("due_at") && values["due_at"].is_number_integer()) {
      auto now = domain::reminder_due_at(conn, ctx.owner_id, *id);
      if (now && *now / 1000 == values["due_at"].get<std::int64_t>() / 1000) values.erase("due_at");
    }
    domain::Records records(ctx.db, ctx.clock);
    const domain::Kind& k = domain::kind("reminders");
    Applied a = written(id ? records.update_in(conn, ctx.owner_id, k, *id, typed(values, true))
                           : records.create_in(conn, ctx.owner_id, k, typed(values, false)));
    auto* r = std::get_if<json>(&a);
    // Only a change of state is written: marking a reminder open again also
    // clears its announcement, which must not happen on every pull.
    if (r == nullptr || (*r)["done_at"].is_null() != done) return a;
    domain::Applications apps(records);
    return written(
        apps.set_done_in(conn, ctx.owner_id, (*r)["id"].get<std::int64_t>(), done, done_at));
  };
  made_and_changed_by(s, write);
  s.remove = deleter(ctx, s.record_kind);
  return s;
}

Side contacts_side(SyncContext& ctx) {
  Side s;
  s.record_kind = "contacts";
  s.extension = ".vcf";
  s.content_type = "text/vcard; charset=utf-8";
  s.records = [&ctx] { return all_records(ctx, "contacts"); };
  s.render = [](const json& r, const std::string& uid) {
    std::string text = formats::write_card(domain::contact_card(r, uid));
    return Rendered{text, text_hash(text)};
  };
  s.claims = [](const std::string& text) -> std::optional<std::string> {
    auto card = read_as(formats::read_card(text));
    if (!card) return std::nullopt;
    return card->uid;
  };
  auto write = [&ctx](store::Conn& conn, std::optional<std::int64_t> id,
                      const std::string& text) -> Applied {
    auto read = formats::read_card(text);
    if (auto* why = std::get_if<std::string>(&read)) return *why;
    domain::Records records(ctx.db, ctx.clock);
    const domain::Kind& k = domain::kind("contacts");
    json values = domain::contact_values(std::get<formats::Card>(read));
    return written(id ? records.update_in(conn, ctx.owner_id, k, *id, typed(values, true))
                      : records.create_in(conn, ctx.owner_id, k, typed(values, false)));
  };
  made_and_changed_by(s, write);
  s.remove = deleter(ctx, s.record_kind);
  return s;
}

FieldSpec field(std::string name, std::string label_key, std::string help_key, FieldSpec::Type type,
                bool required = true) {
  FieldSpec f;
  f.name = std::move(name);
  f.label_key = std::move(label_key);
  f.help_key = std::move(help_key);
  f.type = type;
  f.required = required;
  return f;
}

// What both syncers share: a collection URL, a user name and a password.
class DavSyncer : public Syncer {
 public:
  std::vector<FieldSpec> fields() const override {
    FieldSpec password =
        field("password", "sync_field_password", "", FieldSpec::Type::password, false);
    password.secret = true;
    return {field("url", url_label(), url_help(), FieldSpec::Type::url),
            field("username", "sync_field_username", "", FieldSpec::Type::text, false), password,
            interval_field()};
  }
  ConfigErrors validate(const json& config, const Config& instance) const override {
    ConfigErrors errors;
    const std::string text = config.value("url", "");  // the view below points into it
    auto url = boost::urls::parse_uri(text);
    if (!url || (url->scheme() != "http" && url->scheme() != "https") || url->has_userinfo() ||
        url->has_query() || url->has_fragment() || url->host().empty())
      errors["url"] = "sync_error_url";
    else if (url->scheme() == "http" && !instance.allow_private_destinations)
      errors["url"] = "sync_error_http";  // Basic credentials would travel in clear
    return errors;
  }
  std::string summary(const json& config) const override { return config.value("url", ""); }

  SyncReport run(SyncContext& ctx) const override {
    DavSettings settings;
    settings.url = ctx.settings.value("url", "");
    settings.username = ctx.settings.value("username", "");
    settings.password = ctx.settings.value("password", "");
    settings.allow_private = ctx.config.allow_private_destinations;
    DavClient dav(ctx.http, settings);
    SyncReport report;
    sync_collection(ctx, dav, sides(ctx), report);
    return report;
  }

 protected:
  virtual std::string url_label() const = 0;
  virtual std::string url_help() const = 0;
  virtual std::vector<Side> sides(SyncContext& ctx) const = 0;
};

class CalDav final : public DavSyncer {
 public:
  std::string_view name() const override { return "caldav"; }
  std::string_view label_key() const override { return "sync_caldav"; }

 protected:
  std::string url_label() const override { return "sync_field_calendar_url"; }
  std::string url_help() const override { return "sync_calendar_url_help"; }
  std::vector<Side> sides(SyncContext& ctx) const override {
    return {interviews_side(ctx), reminders_side(ctx)};
  }
};

class CardDav final : public DavSyncer {
 public:
  std::string_view name() const override { return "carddav"; }
  std::string_view label_key() const override { return "sync_carddav"; }

 protected:
  std::string url_label() const override { return "sync_field_addressbook_url"; }
  std::string url_help() const override { return "sync_addressbook_url_help"; }
  std::vector<Side> sides(SyncContext& ctx) const override { return {contacts_side(ctx)}; }
};

}  // namespace

const std::vector<const Syncer*>& syncers() {
  static const CalDav caldav;
  static const CardDav carddav;
  static const std::vector<const Syncer*> all{&caldav, &carddav};
  return all;
}

const Syncer* find_syncer(std::string_view name) {
  for (const Syncer* s : syncers())
    if (s->name() == name) return s;
  return nullptr;
}

FieldSpec interval_field() {
  FieldSpec f = field("interval", "sync_field_interval", "sync_interval_help",
                      FieldSpec::Type::choice, false);
  f.default_value = "60";
  f.choices = {{"15", "sync_every_15"},
               {"60", "sync_every_60"},
               {"240", "sync_every_240"},
               {"1440", "sync_every_1440"}};
  return f;
}

int interval_minutes(const json& config) {
  auto it = config.find("interval");
  std::string v;
  if (it != config.end() && it->is_string()) v = it->get<std::string>();
  if (it != config.end() && it->is_number_integer()) v = std::to_string(it->get<std::int64_t>());
  if (v == "15" || v == "240" || v == "1440") return std::stoi(v);
  return 60;
}

}  // namespace peto::sync
