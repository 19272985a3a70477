#include "domain/captures.h"

#include <algorithm>
#include <boost/url.hpp>
#include <cctype>

#include "core/text.h"
#include "domain/events.h"
#include "formats/posting.h"
#include "store/cache.h"

namespace peto::domain {

namespace {

constexpr std::size_t kMaxUrlLength = 2000;

// Thrown inside accept's transaction to roll back a half-made listing.
struct Refused {
  FieldErrors errors;
};

bool tracking_parameter(std::string_view name) {
  static const char* exact[] = {"gclid",  "fbclid", "msclkid", "mc_cid",
                                "mc_eid", "_hsenc", "_hsmi"};
  if (name.starts_with("utm_")) return true;
  return std::any_of(std::begin(exact), std::end(exact), [&](const char* t) { return name == t; });
}

using text::lower;

nlohmann::json posting_json(const formats::JobPosting& p) {
  auto number = [](const std::optional<std::int64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"role", p.role},
          {"company", p.company},
          {"company_website", p.company_website},
          {"location", p.location},
          {"remote", p.remote},
          {"salary_min", number(p.salary_min)},
          {"salary_max", number(p.salary_max)},
          {"currency", p.currency},
          {"salary_period", p.salary_period},
          {"closes_on", p.closes_on},
          {"employment_type", p.employment_type},
          {"description", p.description},
          {"url", p.url}};
}

// seen_before: another capture of the same owner names the same page.
constexpr const char* kColumns =
    "id, url, url_key, origin, status, parser, parser_version, data, error, listing_id,"
    " application_id, created_at, updated_at, page_sha256,"
    " EXISTS (SELECT 1 FROM captures o WHERE o.owner_id = captures.owner_id"
    " AND o.url_key = captures.url_key AND o.id <> captures.id) AS seen_before,"
    // The listing an earlier capture of the same page became, if one did.
    " (SELECT MAX(o.listing_id) FROM captures o WHERE o.owner_id = captures.owner_id"
    " AND o.url_key = captures.url_key AND o.id <> captures.id) AS seen_listing_id";

Capture capture_from(const store::Row& r) {
  auto opt_int = [&](std::string_view c) {
    return r.is_null(c) ? nlohmann::json(nullptr) : nlohmann::json(r.int_at(c));
  };
  auto opt_text = [&](std::string_view c) {
    return r.is_null(c) ? nlohmann::json(nullptr) : nlohmann::json(r.text(c));
  };
  nlohmann::json data = nlohmann::json::parse(r.text("data"), nullptr, false);
  if (!data.is_object()) data = nlohmann::json::object();
  return {{"id", r.int_at("id")},
          {"url", r.text("url")},
          {"url_key", r.text("url_key")},
          {"origin", r.text("origin")},
          {"status", r.text("status")},
          {"parser", opt_text("parser")},
          {"parser_version", opt_int("parser_version")},
          {"data", std::move(data)},
          {"error", opt_text("error")},
          {"listing_id", opt_int("listing_id")},
          {"application_id", opt_int("application_id")},
          {"created_at", r.int_at("created_at")},
          {"updated_at", r.int_at("updated_at")},
          {"seen_before", r.int_at("seen_before") != 0},
          {"seen_listing_id", opt_int("seen_listing_id")},
          {"page_sha256", opt_text("page_sha256")}};
}

// The parsers' reading of `html` as the columns parser, parser_version, data.
std::tuple<store::Value, store::Value, std::string> parsed(std::string_view html,
                                                           const std::string& url) {
  auto best = formats::parse_posting(html, url);
  if (!best) return {store::Value(), store::Value(), "{}"};
  return {
      store::Value(best->parser), store::Value(best->version),
      posting_json(best->posting).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace

std::string url_key(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return {};
  boost::url u(*parsed);
  std::string scheme = lower(std::string(u.scheme()));
  if ((scheme != "http" && scheme != "https") || !u.has_authority() || u.host().empty()) return {};
  u.normalize();
  std::string host = lower(std::string(u.encoded_host()));
  if (host.starts_with("www.")) host = host.substr(4);
  std::string key = host;
  bool default_port = !u.has_port() || (scheme == "http" && u.port() == "80") ||
                      (scheme == "https" && u.port() == "443");
  if (!default_port) key += ":" + std::string(u.port());
  std::string path = std::string(u.encoded_path());
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/") path.clear();
  key += path;
  std::vector<std::string> params;
  for (auto p : u.encoded_params()) {
    std::string name(p.key);
    if (tracking_parameter(lower(name))) continue;
    params.push_back(p.has_value ? name + "=" + std::string(p.value) : name);
  }
  std::sort(params.begin(), params.end());
  for (std::size_t i = 0; i < params.size(); ++i) key += (i == 0 ? "?" : "&") + params[i];
  return key;
}

std::optional<std::int64_t> capture_rate_limited(store::Db& db, const Clock& clock,
                                                 std::int64_t owner) {
  constexpr std::int64_t kHourMs = 3600 * 1000;
  const std::int64_t now = clock.now_ms();
  const std::int64_t window = now / kHourMs;
  store::Cache cache(db, clock);
  std::int64_t used =
      cache.incr("ratelimit:capture:" + std::to_string(owner) + ":" + std::to_string(window), 1,
                 std::chrono::milliseconds(kHourMs));
  if (used <= kCapturesPerHour) return std::nullopt;
  return ((window + 1) * kHourMs - now + 999) / 1000;
}

std::vector<nlohmann::json> listing_history(store::Db& db, std::int64_t owner,
                                            std::int64_t listing_id) {
  std::vector<nlohmann::json> out;
  for (const auto& r : db.query(
           "SELECT e.kind, e.summary, e.occurred_at, e.capture_id, e.actor FROM listing_events e"
           " JOIN listings l ON l.id = e.listing_id WHERE l.id = ? AND l.owner_id = ?"
           " ORDER BY e.occurred_at DESC, e.id DESC",
           {listing_id, owner}))
    out.push_back({{"kind", r.text("kind")},
                   {"summary", r.text("summary")},
                   {"occurred_at", r.int_at("occurred_at")},
                   {"capture_id", r.is_null("capture_id") ? nlohmann::json(nullptr)
                                                          : nlohmann::json(r.int_at("capture_id"))},
                   {"actor", r.text("actor")}});
  return out;
}

std::vector<store::Migration> Captures::migrations() {
  auto tables = [](const std::string& id_column) {
    return "CREATE TABLE captures (" + id_column +
           ", owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " url TEXT NOT NULL, url_key TEXT NOT NULL, origin TEXT NOT NULL,"
           " status TEXT NOT NULL, parser TEXT, parser_version INTEGER,"
           " data TEXT NOT NULL DEFAULT '{}', error TEXT,"
           " listing_id BIGINT REFERENCES listings (id) ON DELETE SET NULL,"
           " application_id BIGINT REFERENCES applications (id) ON DELETE SET NULL,"
           // The kept source (capture/kept_pages.h): a file under the pages folder.
           " page_file TEXT, page_sha256 TEXT, page_bytes BIGINT,"
           " created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);"
           "CREATE INDEX captures_owner_key ON captures (owner_id, url_key);"
           "CREATE INDEX captures_owner_status ON captures (owner_id, status, id);"
           // A listing's own append-only history. capture_id is a plain link:
           // deleting a capture never takes history with it.
           "CREATE TABLE listing_events (" +
           id_column +
           ", listing_id BIGINT NOT NULL REFERENCES listings (id) ON DELETE CASCADE,"
           " kind TEXT NOT NULL, occurred_at BIGINT NOT NULL, summary TEXT NOT NULL,"
           " body TEXT, capture_id BIGINT, actor TEXT NOT NULL DEFAULT '',"
           " external_id TEXT, created_at BIGINT NOT NULL,"
           " UNIQUE (listing_id, external_id));"
           "CREATE INDEX listing_events_listing ON listing_events (listing_id, occurred_at);";
  };
  return {{8, "captures", tables("id INTEGER PRIMARY KEY"),
           tables("id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

std::variant<Capture, FieldErrors> Captures::insert(store::Conn& conn, std::int64_t owner,
                                                    const std::string& url,
                                                    const std::string& origin,
                                                    std::string_view html, bool fetch) {
  FieldErrors errors;
  std::string key = url_key(url);
  if (url.size() > kMaxUrlLength)
    errors.add("url", "error_too_long");
  else if (key.empty())
    errors.add("url", "error_url");
  if (html.size() > kMaxCapturedPageBytes) errors.add("html", "error_page_too_large");
  if (origin != "web" && origin != "api") errors.add("origin", "error_choice");
  if (!errors.empty()) return errors;

  auto [parser, version, data] =
      fetch ? std::tuple(store::Value(), store::Value(), std::string("{}")) : parsed(html, url);
  std::int64_t now = records_.clock().now_ms();
  auto rows = conn.query(
      "INSERT INTO captures (owner_id, url, url_key, origin, status, parser, parser_version,"
      " data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {owner, url, key, origin, fetch ? "fetching" : "pending", parser, version, data, now, now});
  return *get_in(conn, owner, rows[0].int_at("id"));
}

std::variant<Capture, FieldErrors> Captures::from_html_in(store::Conn& conn, std::int64_t owner,
                                                          const std::string& url,
                                                          std::string_view html,
                                                          const std::string& origin) {
  return insert(conn, owner, url, origin, html, false);
}

std::variant<Capture, FieldErrors> Captures::from_url_in(store::Conn& conn, std::int64_t owner,
                                                         const std::string& url,
                                                         const std::string& origin) {
  return insert(conn, owner, url, origin, "", true);
}

std::variant<Capture, FieldErrors> Captures::from_html(std::int64_t owner, const std::string& url,
                                                       std::string_view html,
                                                       const std::string& origin) {
  auto conn = records_.db().acquire();
  return from_html_in(*conn, owner, url, html, origin);
}

std::variant<Capture, FieldErrors> Captures::from_url(std::int64_t owner, const std::string& url,
                                                      const std::string& origin) {
  auto conn = records_.db().acquire();
  return from_url_in(*conn, owner, url, origin);
}

bool Captures::fill(std::int64_t owner, std::int64_t id, std::string_view html) {
  auto current = get(owner, id);
  if (!current || (*current)["status"] != "fetching") return false;
  auto [parser, version, data] = parsed(html, (*current)["url"].get<std::string>());
  return records_.db().write([&](store::Conn& conn) {
    Millis now = records_.clock().now_ms();
    if (conn.query("UPDATE captures SET status = 'pending', parser = ?, parser_version = ?,"
                   " data = ?, error = NULL, updated_at = ?"
                   " WHERE id = ? AND owner_id = ? AND status = 'fetching'",
                   {parser, version, data, now, id, owner})
            .affected != 1)
      return false;
    // The page was read in the background: tell the person it is ready to review.
    auto read = nlohmann::json::parse(data, nullptr, false);
    auto text = [&](const char* k) {
      return read.is_object() && read.contains(k) && read[k].is_string()
                 ? read[k].get<std::string>()
                 : std::string();
    };
    Event received;
    received.name = "capture_received";
    received.owner = owner;
    received.at = now;
    received.record_id = id;
    received.role = text("role");
    received.company = text("company");
    publish(conn, received);
    return true;
  });
}

bool Captures::fail(std::int64_t owner, std::int64_t id, const std::string& reason) {
  return records_.db()
             .query(
                 "UPDATE captures SET status = 'failed', error = ?, updated_at = ?"
                 " WHERE id = ? AND owner_id = ? AND status = 'fetching'",
                 {reason.substr(0, 500), records_.clock().now_ms(), id, owner})
             .affected == 1;
}

std::optional<Capture> Captures::get_in(store::Conn& conn, std::int64_t owner, std::int64_t id) {
  auto rows =
      conn.query(std::string("SELECT ") + kColumns + " FROM captures WHERE id = ? AND owner_id = ?",
                 {id, owner});
  if (rows.empty()) return std::nullopt;
  return capture_from(rows[0]);
}

std::optional<Capture> Captures::get(std::int64_t owner, std::int64_t id) {
  auto conn = records_.db().acquire();
  return get_in(*conn, owner, id);
}

std::vector<Capture> Captures::list(std::int64_t owner, const std::string& status, int limit) {
  std::string sql = std::string("SELECT ") + kColumns + " FROM captures WHERE owner_id = ?";
  store::Params params{owner};
  if (!status.empty()) {
    sql += " AND status = ?";
    params.emplace_back(status);
  }
  sql += " ORDER BY id DESC LIMIT " + std::to_string(std::clamp(limit, 1, 200));
  std::vector<Capture> out;
  for (const auto& row : records_.db().query(sql, params)) out.push_back(capture_from(row));
  return out;
}

Written Captures::accept(std::int64_t owner, std::int64_t id, const Input& edited, bool apply,
                         const std::string& actor) {
  try {
    return records_.db().write([&](store::Conn& conn) -> Written {
      auto rows = conn.query(std::string("SELECT status, url FROM captures WHERE id = ? AND"
                                         " owner_id = ?") +
                                 (conn.dialect() == store::Dialect::postgres ? " FOR UPDATE" : ""),
                             {id, owner});
      if (rows.empty()) return NotFound{};
      if (rows[0].text("status") != "pending" && rows[0].text("status") != "failed") {
        FieldErrors e;
        e.add("form", "error_capture_not_pending");
        return e;
      }
      const std::string url = rows[0].text("url");

      Input listing = edited;
      std::string company;
      if (auto it = listing.values.find("company"); it != listing.values.end()) {
        if (it->is_string()) company = it->get<std::string>();
        listing.values.erase(it);
      }
      if (company.find_first_not_of(" \t\r\n") == std::string::npos) {
        FieldErrors e;
        e.add("company", "error_required");
        throw Refused{e};
      }
      auto made_company = records_.company_named(conn, owner, company);
      if (auto* e = std::get_if<FieldErrors>(&made_company)) {
        FieldErrors renamed;
        for (const auto& [_, code] : e->by_field) renamed.add("company", code);
        throw Refused{renamed};
      }
      listing.values["company_id"] =
          listing.from_form ? nlohmann::json(std::to_string(std::get<std::int64_t>(made_company)))
                            : nlohmann::json(std::get<std::int64_t>(made_company));
      if (!listing.values.contains("url")) listing.values["url"] = url;
      auto made = records_.create_in(conn, owner, kind("listings"), listing);
      if (auto* e = std::get_if<FieldErrors>(&made)) throw Refused{*e};
      Record rec = std::get<Record>(made);
      const std::int64_t listing_id = rec["id"].get<std::int64_t>();
      store::Value application_id;
      if (apply) {
        auto applied = apps_.apply_in(conn, owner, listing_id, "draft", actor);
        if (auto* e = std::get_if<FieldErrors>(&applied)) throw Refused{*e};
        application_id = std::get<Record>(applied)["id"].get<std::int64_t>();
      }
      const std::int64_t now = records_.clock().now_ms();
      conn.query(
          "INSERT INTO listing_events (listing_id, kind, occurred_at, summary, capture_id, actor,"
          " created_at) VALUES (?, 'capture', ?, ?, ?, ?, ?)",
          {listing_id, now, "Saved from " + url_key(url).substr(0, 200), id, actor, now});
      conn.query(
          "UPDATE captures SET status = 'accepted', listing_id = ?, application_id = ?,"
          " updated_at = ? WHERE id = ? AND owner_id = ?",
          {listing_id, application_id, now, id, owner});
      return *records_.get_in(conn, owner, kind("listings"), listing_id);
    });
  } catch (Refused& refused) {
    return refused.errors;
  }
}

bool Captures::discard(std::int64_t owner, std::int64_t id) {
  return records_.db()
             .query(
                 "UPDATE captures SET status = 'discarded', updated_at = ?"
                 " WHERE id = ? AND owner_id = ? AND status IN ('pending', 'failed', 'fetching')",
                 {records_.clock().now_ms(), id, owner})
             .affected == 1;
}

}  // namespace peto::domain
