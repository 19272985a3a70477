// /profile/connections: a person's connections — notifiers (e-mail, webhook,
// ntfy…), stores (a local folder, WebDAV, S3) and syncs (CalDAV, CardDAV) —
// and /inbox, the notices peto keeps for them in the app.
//
// The form is built from the plugin's FieldSpecs (notify/notifier.h); the
// event switches are a notifier's only.
// Secret fields are password inputs that are never filled back, not even
// after a refused submission: on edit a blank one keeps the stored secret
// (Connections::update reads "" so). connections::Connections checks everything
// and writes nothing when a field is wrong; the page then answers 422 with
// the form as typed. Somebody else's connection is the 404 page.
//
// "Send a test" and "Sync now" are tries (connections/tries.h): with a worker
// the button queues an errand and the connection's page, at ?try=<errand>,
// says "Sending…" and reloads itself (a Refresh header) until the outcome is
// there; without one the try runs in the request, the gate permitting.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "connections/connections.h"
#include "connections/tries.h"
#include "core/log.h"
#include "http/form.h"
#include "http/http.h"
#include "media/copies.h"
#include "net/http.h"
#include "notify/announcements.h"
#include "notify/notification.h"
#include "notify/outbox.h"
#include "pages/record_view.h"
#include "pages/site.h"
#include "store/cache.h"
#include "sync/syncs.h"

namespace peto::web {

namespace {

using connections::Connection;
using connections::PluginSpec;
using nlohmann::json;
using notify::ConfigErrors;
using notify::FieldSpec;

constexpr int kInboxPageSize = 50;
constexpr const char* kListPath = "/profile/connections";
// How often the page of a try that is still running reloads itself.
constexpr const char* kTryRefreshSeconds = "2";

connections::Connections connections_of(Site& site) {
  return connections::Connections(site.db(), site.clock(), site.settings());
}

// Stateless and thread-safe: one for every test send of the site.
const net::HttpClient& http_client() {
  static const net::HttpClient client;
  return client;
}

connections::Tries tries_of(Site& site) {
  return connections::Tries(site.db(), site.clock(), site.settings(), http_client());
}

std::string notifier_label(const Site& site, const Visitor& v, const std::string& plugin) {
  auto n = connections::find_plugin(plugin);
  return n ? site.catalogue().text(v.language, n->label_key) : plugin;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The values the form sent, as Connections takes them: text as typed
// (Connections reads whole numbers from text and names a field that is not
// one), booleans from checkboxes, and every event switch (the form always
// shows them all, so an unchecked box means off).
json values_from(const Form& f, const PluginSpec& n) {
  json values = json::object();
  for (const FieldSpec& spec : n.fields) {
    const std::string key = "config_" + spec.name;
    if (spec.type == FieldSpec::Type::boolean) {
      values[spec.name] = f.get(key) == "on";
      continue;
    }
    values[spec.name] = f.get(key);
  }
  if (n.notifier != nullptr)
    for (const std::string& event : notify::events())
      values["event_" + event] = f.get("event_" + event) == "on";
  return values;
}

// What the form shows again after a refusal: everything typed but the secrets.
json without_secrets(json values, const PluginSpec& n) {
  for (const FieldSpec& spec : n.fields)
    if (spec.secret) values.erase(spec.name);
  return values;
}

std::string shown_value(const json& config, const FieldSpec& spec, bool is_new) {
  auto it = config.find(spec.name);
  if (it == config.end() || it->is_null()) return is_new ? spec.default_value : "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string input_type(const FieldSpec& spec) {
  if (spec.secret) return "password";
  switch (spec.type) {
    case FieldSpec::Type::url:
      return "url";
    case FieldSpec::Type::email:
      return "email";
    case FieldSpec::Type::password:
      return "password";
    case FieldSpec::Type::integer:
      return "number";
    default:
      return "text";
  }
}

// What the form is showing: a new connection of `plugin`, or `existing`.
struct FormState {
  PluginSpec plugin = {};
  std::optional<Connection> existing = std::nullopt;
  std::string label = "";
  bool enabled = true;
  json config = json::object();  // non-secret values and event_* switches to show
  ConfigErrors errors = {};
  std::optional<connections::TryOutcome> tried = std::nullopt;  // a test or a sync came to this
  bool trying = false;    // a test or a sync is waiting for the worker or running
  std::string try_error;  // a catalogue key: why the try was refused or did not finish
};

// The flash of a try: what it came to, that it is running, or why not.
json try_flash(const Site& site, const Visitor& v, const FormState& s) {
  const bool is_sync = s.plugin.kind == "sync";
  if (!s.try_error.empty())
    return {{"kind", "error"}, {"message", site.catalogue().text(v.language, s.try_error)}};
  if (s.trying) {
    const std::string key = is_sync                    ? "sync_now_working"
                            : s.plugin.kind == "store" ? "connections_trying_store"
                                                       : "connections_trying_test";
    return {{"kind", "info"}, {"message", site.catalogue().text(v.language, key)}};
  }
  const connections::TryOutcome& t = *s.tried;
  if (t.outcome == "gone")
    return {{"kind", "error"}, {"message", site.catalogue().text(v.language, "tries_gone")}};
  if (is_sync) {
    const std::string word = t.outcome == "busy" || t.outcome == "done" ? t.outcome : "failed";
    return {{"kind", word == "busy"   ? "info"
                     : word == "done" ? "success"
                                      : "error"},
            {"message", site.catalogue().text(v.language, "sync_now_" + word)}};
  }
  const bool sent = t.outcome == "sent";
  std::string message = t.message;
  if (sent || message.empty()) {
    const std::string prefix =
        s.plugin.kind == "store" ? "connections_test_store_" : "connections_test_";
    message = site.catalogue().text(v.language, prefix + (sent ? "sent" : "failed"));
  } else {
    message = site.catalogue().text(v.language, message);  // a catalogue key or a sentence
  }
  return {{"kind", sent ? "success" : "error"}, {"message", message}};
}

// A sync report as lines for the page: "3 uploaded", "1 conflict"…, then its
// notes.
json report_view(const Site& site, const Visitor& v, const sync::SyncReport& report) {
  json counts = json::array();
  for (const auto& [name, n] : report.counts)
    if (n != 0)
      counts.push_back(
          site.catalogue().fill(v.language, "sync_count_" + name, {{"count", std::to_string(n)}}));
  json view = {{"counts", counts},
               {"has_counts", !counts.empty()},
               {"notes", report.notes},
               {"has_notes", !report.notes.empty()}};
  if (!report.error.empty()) view["error"] = report.error;
  return view;
}

// One input of the form, for templates/connection_form.mustache.
json field_view(const Site& site, const Visitor& v, const FormState& s, const FieldSpec& spec,
                std::vector<std::string>& unplaced) {
  const std::string id = "config-" + spec.name;
  const bool is_new = !s.existing;
  json field = {{"id", id},
                {"name", "config_" + spec.name},
                {"label", site.catalogue().text(v.language, spec.label_key)},
                {"required", spec.required && spec.type != FieldSpec::Type::boolean},
                {"is_input", false},
                {"is_textarea", spec.type == FieldSpec::Type::textarea},
                {"is_select", spec.type == FieldSpec::Type::choice},
                {"is_checkbox", spec.type == FieldSpec::Type::boolean}};
  std::vector<std::string> described;
  if (!spec.help_key.empty()) {
    field["hint"] = site.catalogue().text(v.language, spec.help_key);
    described.push_back(id + "-hint");
  }
  if (spec.secret) {
    // A stored secret is never sent to the browser; the person is told it is
    // there and that a blank field keeps it.
    field["required"] = spec.required && (is_new || !has(s.existing->secrets_set, spec.name));
    if (!is_new && has(s.existing->secrets_set, spec.name)) {
      field["secret_kept"] = site.catalogue().text(v.language, "connections_secret_kept");
      described.push_back(id + "-kept");
    }
  }
  const std::string value = spec.secret ? "" : shown_value(s.config, spec, is_new);
  if (spec.type == FieldSpec::Type::boolean) {
    field["checked"] = value == "true" ||
                       (is_new && !s.config.contains(spec.name) && spec.default_value == "true");
  } else if (spec.type == FieldSpec::Type::choice) {
    json options = json::array();
    for (const auto& [choice, label_key] : spec.choices)
      options.push_back({{"value", choice},
                         {"label", site.catalogue().text(v.language, label_key)},
                         {"selected", choice == value}});
    field["options"] = options;
  } else if (spec.type != FieldSpec::Type::textarea) {
    field["is_input"] = true;
    field["input_type"] = input_type(spec);
    // "new-password" keeps a browser from filling in a saved sign-in password.
    field["autocomplete"] = field["input_type"] == "password" ? "new-password" : "off";
  }
  field["value"] = value;
  if (auto it = s.errors.find(spec.name); it != s.errors.end()) {
    field["error"] = site.catalogue().text(v.language, it->second);
    described.push_back(id + "-error");
    unplaced.erase(std::remove(unplaced.begin(), unplaced.end(), spec.name), unplaced.end());
  }
  std::string joined;
  for (const auto& d : described) joined += (joined.empty() ? "" : " ") + d;
  field["described_by"] = joined;
  return field;
}

// What an existing connection has waiting on its page: a notifier's
// given-up notices (Send again), a store's documents from before it (Copy
// existing documents; offered, never copied unasked).
void add_waiting_sections(Site& site, const Visitor& v, const PluginSpec& n, const Connection& c,
                          const std::string& base, json& data) {
  if (n.notifier != nullptr) {
    json given_up = json::array();
    for (const auto& d : notify::Outbox::given_up(*site.db().acquire(), v.account.id, c.id))
      given_up.push_back({{"title", d.title},
                          {"error", d.error},
                          {"when", site.format_time(v, d.last_attempt_at)}});
    data["given_up"] = given_up;
    data["has_given_up"] = !given_up.empty();
    data["send_again_action"] = base + "/send-again";
  }
  if (n.kind == "store" && c.enabled) {
    const std::int64_t uncopied =
        media::uncopied_documents(*site.db().acquire(), v.account.id, c.id);
    data["has_uncopied"] = uncopied > 0;
    data["uncopied_intro"] =
        site.say(v, uncopied == 1 ? "connections_uncopied_one" : "connections_uncopied_other",
                 {{"n", std::to_string(uncopied)}});
    data["copy_existing_action"] = base + "/copy-existing";
  }
}

// The page of one connection's form: new or edit, with errors, and on edit
// the outcome of a test send when there was one.
Response form_page(Site& site, const Request& r, const Visitor& v, int status, const FormState& s) {
  const PluginSpec& n = s.plugin;
  const std::string kind = notifier_label(site, v, n.name);
  std::vector<std::string> unplaced;  // errors that belong to no input shown
  for (const auto& [field, _] : s.errors) unplaced.push_back(field);

  json fields = json::array();
  for (const FieldSpec& spec : n.fields) fields.push_back(field_view(site, v, s, spec, unplaced));
  json events = json::array();
  if (n.notifier != nullptr)
    for (const std::string& event : notify::events())
      events.push_back({{"id", "event-" + event},
                        {"name", "event_" + event},
                        {"label", site.catalogue().text(v.language, "connections_event_" + event)},
                        {"checked", notify::wants(s.config, event, *n.notifier)}});

  json data = {{"kind_label", kind},
               {"plugin", n.name},
               {"fields", fields},
               {"events", events},
               {"has_events", !events.empty()},
               {"is_store", n.kind == "store"},
               {"is_sync", n.kind == "sync"},
               {"values", {{"label", s.label}}},
               {"enabled", s.enabled},
               {"errors", json::object()},
               {"has_errors", !s.errors.empty()}};
  if (auto it = s.errors.find("label"); it != s.errors.end()) {
    data["errors"]["label"] = site.catalogue().text(v.language, it->second);
    unplaced.erase(std::remove(unplaced.begin(), unplaced.end(), "label"), unplaced.end());
  }
  std::string form_error;
  for (const std::string& field : unplaced) {
    std::string text = site.catalogue().text(v.language, s.errors.at(field));
    form_error += (form_error.empty() ? "" : " ") + (field.empty() ? text : field + ": " + text);
  }
  if (!form_error.empty()) data["form_error"] = form_error;

  if (s.existing) {
    const std::string base = std::string(kListPath) + "/" + std::to_string(s.existing->id);
    data["title"] = s.existing->label;
    data["is_edit"] = true;
    data["action"] = base;
    data["test_action"] = base + (n.kind == "sync" ? "/sync" : "/test");
    data["delete_action"] = base + "/delete";
    add_waiting_sections(site, v, n, *s.existing, base, data);
  } else {
    data["title"] = site.catalogue().fill(v.language, "connections_new_title", {{"kind", kind}});
    data["action"] = std::string(kListPath) + "/new?plugin=" + url_encode(n.name);
  }
  if (s.tried || s.trying || !s.try_error.empty()) data["flash"] = try_flash(site, v, s);
  if (s.existing && n.kind == "sync") {
    store::Cache cache(site.db(), site.clock());
    sync::Syncs syncs(site.db(), cache, site.clock(), site.settings(), http_client());
    if (auto last = syncs.last_report(v.account.id, s.existing->id);
        last && (!last->counts.empty() || !last->error.empty() || !last->notes.empty()))
      data["last_report"] = report_view(site, v, *last);
  }
  Response out = site.render(r, v, status, "connection_form", data);
  if (s.trying) out.set_header("Refresh", kTryRefreshSeconds);
  return out;
}

FormState state_of(const Connection& c, const PluginSpec& n) {
  FormState s;
  s.plugin = n;
  s.existing = c;
  s.label = c.label;
  s.enabled = c.enabled;
  s.config = c.config;
  return s;
}

// The list of connections and the "add" menu. `error` (a catalogue key)
// explains a refused choice of notifier.
Response list_page(Site& site, const Request& r, const Visitor& v, int status,
                   const std::string& error) {
  const json& t = site.catalogue().messages(v.language);
  json items = json::array();
  for (const Connection& c : connections_of(site).list(v.account.id)) {
    auto n = connections::find_plugin(c.plugin);
    items.push_back({{"id", c.id},
                     {"href", std::string(kListPath) + "/" + std::to_string(c.id)},
                     {"label", c.label},
                     {"kind_label", notifier_label(site, v, c.plugin)},
                     {"summary", n ? n->summary(c.config) : std::string()},
                     {"enabled", c.enabled},
                     {"last_ok", c.last_ok_at ? site.format_time(v, *c.last_ok_at)
                                              : t.value("connections_never", "")},
                     {"last_error", c.last_error}});
  }
  // The "add" menu, one list per kind: where notices go, where documents go.
  auto menu = [&](std::string_view kind) {
    json add = json::array();
    for (const PluginSpec& n : connections::plugins(kind))
      add.push_back({{"href", std::string(kListPath) + "/new?plugin=" + url_encode(n.name)},
                     {"label", site.catalogue().text(v.language, n.label_key)}});
    return add;
  };
  json data = {{"items", items},
               {"has_items", !items.empty()},
               {"add", menu("notifier")},
               {"add_stores", menu("store")},
               {"add_syncs", menu("sync")}};
  if (!error.empty()) data["form_error"] = site.catalogue().text(v.language, error);
  // The outcome of the form that redirected here (a fixed set: nothing from
  // the query string is echoed).
  std::string done = Form::from_query(r).get("done");
  if (done == "added" || done == "saved" || done == "deleted")
    data["flash"] = {{"kind", "success"}, {"message", t.value("connections_done_" + done, "")}};
  return site.render(r, v, status, "connections", std::move(data));
}

std::optional<PluginSpec> chosen_plugin(const Request& r) {
  std::string plugin = Form::from_query(r).get("plugin");
  if (plugin.empty()) plugin = Form::parse(r).get("plugin");
  return connections::find_plugin(plugin);
}

Response get_new(Site& site, Request& r, const Visitor& v) {
  auto n = chosen_plugin(r);
  if (!n) return site.not_found(r, v);
  FormState s;
  s.plugin = *n;
  s.label = notifier_label(site, v, n->name);
  return form_page(site, r, v, 200, s);
}

Response post_new(Site& site, Request& r, const Visitor& v) {
  auto n = chosen_plugin(r);
  if (!n) return list_page(site, r, v, 422, "connections_error_plugin");
  Form f = Form::parse(r);
  json values = values_from(f, *n);
  auto made = connections_of(site).create(v.account.id, n->name, f.get("label"), values);
  if (auto* errors = std::get_if<ConfigErrors>(&made)) {
    FormState s;
    s.plugin = *n;
    s.label = f.get("label");
    s.config = without_secrets(values, *n);
    s.errors = *errors;
    return form_page(site, r, v, 422, s);
  }
  log::info(
      "web", "connection created",
      {{"user", v.account.id}, {"connection", std::get<Connection>(made).id}, {"plugin", n->name}});
  return Site::redirect(std::string(kListPath) + "?done=added");
}

// The visitor's connection named by the path and its plugin; nullopt (the
// 404 page) for anybody else's, a missing one, or one whose plugin is gone.
std::optional<std::pair<Connection, PluginSpec>> owned(Site& site, const Request& r,
                                                       const Visitor& v) {
  auto id = path_id(r);
  if (!id) return std::nullopt;
  auto c = connections_of(site).get(v.account.id, *id);
  if (!c) return std::nullopt;
  auto n = connections::find_plugin(c->plugin);
  if (!n) return std::nullopt;
  return std::make_pair(std::move(*c), std::move(*n));
}

// The connection's page; at ?try=<errand>, with where its test or sync is.
Response get_edit(Site& site, Request& r, const Visitor& v) {
  auto found = owned(site, r, v);
  if (!found) return site.not_found(r, v);
  FormState s = state_of(found->first, found->second);
  if (auto id = parse_id(Form::from_query(r).get("try"))) {
    auto seen = tries_of(site).seen(v.account.id, *id);
    // Only a try of this connection is shown here; any other is ignored.
    if (seen && seen->kind != connections::Try::copy && seen->subject == found->first.id) {
      s.trying = seen->working;
      s.tried = seen->outcome;
      if (!seen->working && !seen->outcome) s.try_error = "tries_interrupted";
    }
  }
  return form_page(site, r, v, 200, s);
}

Response post_edit(Site& site, Request& r, const Visitor& v) {
  auto found = owned(site, r, v);
  if (!found) return site.not_found(r, v);
  const auto& [c, n] = *found;
  Form f = Form::parse(r);
  json values = values_from(f, n);
  const bool enabled = f.get("enabled") == "on";
  auto changed = connections_of(site).update(v.account.id, c.id, f.get("label"), values, enabled);
  if (!changed) return site.not_found(r, v);
  if (auto* errors = std::get_if<ConfigErrors>(&*changed)) {
    FormState s = state_of(c, n);
    s.label = f.get("label");
    s.enabled = enabled;
    s.config = without_secrets(values, n);
    s.errors = *errors;
    return form_page(site, r, v, 422, s);
  }
  log::info("web", "connection changed", {{"user", v.account.id}, {"connection", c.id}});
  return Site::redirect(std::string(kListPath) + "?done=saved");
}

// "Send a test" (a notice, or a store's peto-test.txt) and "Sync now". A sync
// runs under the connection's lease, so never beside a scheduler's run of the
// same connection (that one answers "already running"), and starts entries
// for Tries::kSyncLimit at most.
Response post_try(Site& site, Request& r, const Visitor& v, connections::Try kind) {
  auto found = owned(site, r, v);
  if (!found || (kind == connections::Try::sync && found->second.kind != "sync"))
    return site.not_found(r, v);
  const std::int64_t id = found->first.id;
  auto started = tries_of(site).start(v.account.id, kind, id, v.language);
  if (auto* refused = std::get_if<connections::TryRefusal>(&started)) {
    if (*refused == connections::TryRefusal::not_found) return site.not_found(r, v);
    FormState s = state_of(found->first, found->second);
    s.try_error = "tries_too_many";
    return form_page(site, r, v, 429, s);
  }
  const auto& done = std::get<connections::Started>(started);
  const char* what = kind == connections::Try::sync ? "sync" : "test";
  if (done.task_id != 0) {
    log::info("web", "connection try queued",
              {{"user", v.account.id}, {"connection", id}, {"try", what}, {"task", done.task_id}});
    return Site::redirect(std::string(kListPath) + "/" + std::to_string(id) +
                          "?try=" + std::to_string(done.task_id));
  }
  log::info("web", "connection tried",
            {{"user", v.account.id},
             {"connection", id},
             {"try", what},
             {"outcome", done.outcome->outcome}});
  // Read again: the try recorded last_ok_at or last_error.
  auto now = connections_of(site).get(v.account.id, id);
  FormState s = state_of(now ? *now : found->first, found->second);
  s.tried = done.outcome;
  return form_page(site, r, v, 200, s);
}

Response post_test(Site& site, Request& r, const Visitor& v) {
  return post_try(site, r, v, connections::Try::test);
}

Response post_sync(Site& site, Request& r, const Visitor& v) {
  return post_try(site, r, v, connections::Try::sync);
}

// "Send again": the connection's given-up notices go back in line.
Response post_send_again(Site& site, Request& r, const Visitor& v) {
  auto found = owned(site, r, v);
  if (!found || found->second.notifier == nullptr) return site.not_found(r, v);
  const std::int64_t id = found->first.id;
  const std::int64_t n = notify::Outbox(site.clock(), site.settings())
                             .send_again(*site.db().acquire(), v.account.id, id);
  log::info("web", "deliveries sent again", {{"user", v.account.id}, {"connection", id}, {"n", n}});
  return site.redirect(
      r, std::string(kListPath) + "/" + std::to_string(id),
      Flash::of("success",
                site.say(v, n == 1 ? "connections_sent_again_one" : "connections_sent_again_other",
                         {{"n", std::to_string(n)}})));
}

// "Copy existing documents": a store's copies of what was there before it.
Response post_copy_existing(Site& site, Request& r, const Visitor& v) {
  auto found = owned(site, r, v);
  if (!found || found->second.kind != "store") return site.not_found(r, v);
  const std::int64_t id = found->first.id;
  const std::int64_t n = site.db().write([&](store::Conn& conn) {
    return media::plan_existing_copies_in(conn, v.account.id, id, site.clock().now_ms());
  });
  log::info("web", "existing documents planned for a store",
            {{"user", v.account.id}, {"connection", id}, {"n", n}});
  return site.redirect(r, std::string(kListPath) + "/" + std::to_string(id),
                       Flash::of("success", site.say(v,
                                                     n == 1 ? "connections_copies_planned_one"
                                                            : "connections_copies_planned_other",
                                                     {{"n", std::to_string(n)}})));
}

Response post_delete(Site& site, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id || !connections_of(site).remove(v.account.id, *id)) return site.not_found(r, v);
  log::info("web", "connection removed", {{"user", v.account.id}, {"connection", *id}});
  return Site::redirect(std::string(kListPath) + "?done=deleted");
}

// Only links peto itself makes are followed: a path here or an http(s) URL.
bool safe_link(const std::string& url) {
  return !safe_return(url, "").empty() || url.starts_with("https://") || url.starts_with("http://");
}

// The inbox, newest first. Reading it changes nothing: "Mark all as read"
// posts the newest id the page showed, so a notice that came since stays new.
Response get_inbox(Site& site, Request& r, const Visitor& v) {
  notify::Outbox outbox(site.clock(), site.settings());
  std::vector<notify::InboxNotice> notices;
  {
    auto conn = site.db().acquire();
    notices = outbox.inbox(*conn, v.account.id, kInboxPageSize);
  }
  json items = json::array();
  bool unread = false;
  std::int64_t newest = 0;
  // A reminder still to do is snoozed from its notice, as on the dashboard.
  std::vector<std::int64_t> reminder_ids;
  for (const auto& n : notices)
    if (n.event == "reminder_due")
      if (const auto id = notify::reminder_of_key(n.key)) reminder_ids.push_back(id);
  const auto to_do = domain::reminders_to_do(site.db(), v.account.id, reminder_ids);
  for (const auto& n : notices) {
    json item = {{"title", n.title},
                 {"body", n.body},
                 {"created", site.format_time(v, n.created_at)},
                 {"is_new", !n.shown}};
    if (safe_link(n.url)) item["url"] = n.url;
    if (n.event == "reminder_due")
      if (const auto id = notify::reminder_of_key(n.key)) {
        if (to_do.contains(id))
          item["reminder"] = {{"snooze_action", "/reminders/" + std::to_string(id) + "/snooze"},
                              {"select_id", "snooze-" + std::to_string(n.id)},
                              {"done_action", "/reminders/" + std::to_string(id) + "/done"},
                              {"return_to", "/inbox"}};
      }
    items.push_back(std::move(item));
    unread = unread || !n.shown;
    newest = std::max(newest, n.id);
  }
  json data = {{"items", items}, {"has_items", !items.empty()}, {"has_unread", unread}};
  data["upto"] = newest;
  if (Form::from_query(r).get("done") == "read")
    data["flash"] = {{"kind", "success"},
                     {"message", site.catalogue().text(v.language, "inbox_marked_read")}};
  return site.render(r, v, 200, "inbox", std::move(data));
}

// "Mark all as read": the notices up to the one named (all when none is).
Response post_inbox_read(Site& site, Request& r, const Visitor& v) {
  const std::string sent = Form::parse(r).get("upto");
  auto upto = parse_id(sent);
  if (!sent.empty() && !upto) return Site::redirect("/inbox");
  notify::Outbox outbox(site.clock(), site.settings());
  auto conn = site.db().acquire();
  const auto marked = outbox.mark_shown(*conn, v.account.id, upto);
  log::info("web", "notices marked read", {{"user", v.account.id}, {"count", marked}});
  return Site::redirect("/inbox?done=read");
}

}  // namespace

void add_connection_routes(Router& router, Site& site) {
  Site* s = &site;
  auto page = [s](Response (*fn)(Site&, Request&, const Visitor&)) {
    return s->signed_in([s, fn](Request& r, const Visitor& v) { return fn(*s, r, v); });
  };
  router.add("GET", kListPath, s->signed_in([s](Request& r, const Visitor& v) {
    return list_page(*s, r, v, 200, "");
  }),
             "Your connections");
  router.add("GET", "/profile/connections/new", page(get_new), "A new connection's form");
  router.add("POST", "/profile/connections/new", page(post_new), "Add a connection");
  router.add("GET", "/profile/connections/{id}", page(get_edit), "A connection's form");
  router.add("POST", "/profile/connections/{id}", page(post_edit), "Change a connection");
  router.add("POST", "/profile/connections/{id}/test", page(post_test),
             "Send a test notice through a connection");
  router.add("POST", "/profile/connections/{id}/sync", page(post_sync),
             "Run a sync connection now");
  router.add("POST", "/profile/connections/{id}/send-again", page(post_send_again),
             "Send a connection's given-up notices again");
  router.add("POST", "/profile/connections/{id}/copy-existing", page(post_copy_existing),
             "Copy the documents from before a store was added to it");
  router.add("POST", "/profile/connections/{id}/delete", page(post_delete), "Remove a connection");
  router.add("GET", "/inbox", page(get_inbox), "Your notices");
  router.add("POST", "/inbox/read", page(post_inbox_read), "Mark your notices read");
}

}  // namespace peto::web
