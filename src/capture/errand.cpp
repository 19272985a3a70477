#include "capture/errand.h"

#include <nlohmann/json.hpp>

#include "domain/captures.h"
#include "domain/records.h"

namespace peto::capture {

namespace {

constexpr int kRedirects = 3;
constexpr std::size_t kRobotsBytes = 512 * 1024;

net::HttpRequest page_request(const std::string& url, std::size_t max_bytes) {
  net::HttpRequest r;
  r.url = url;
  r.max_redirects = kRedirects;
  r.max_bytes = max_bytes;
  r.allow_private = false;  // captures: public addresses only, whatever the configuration
  r.headers = {{"Accept", "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5"}};
  return r;
}

bool is_page(const net::HttpResponse& r) {
  const std::string* type = r.header("content-type");
  if (type == nullptr) return true;
  std::string t = type->substr(0, type->find(';'));
  return t == "text/html" || t == "application/xhtml+xml" || t == "text/plain" || t.empty();
}

// Why the page could not be read, for the person; "" when it may be read.
std::string robots_refusal(const net::HttpClient& http, const std::string& url) {
  auto answer = http.send(page_request(net::robots_url(url), kRobotsBytes));
  auto* r = std::get_if<net::HttpResponse>(&answer);
  // No robots.txt (or none that could be read) leaves the page open.
  if (r == nullptr || r->status != 200) return {};
  if (net::robots_allows(r->body, "peto", net::robots_target(url))) return {};
  return "The site's robots.txt asks tools like peto not to read this page. Paste the page "
         "instead: open it, copy its source and use \"Paste the page\".";
}

}  // namespace

std::variant<domain::Capture, domain::FieldErrors> capture_page_in(
    store::Conn& conn, domain::Records& records, std::int64_t owner, const std::string& url,
    std::string_view html, const std::string& origin, KeptPages* pages) {
  domain::Captures captures(records);
  const bool fetch = html.find_first_not_of(" \t\r\n") == std::string_view::npos;
  if (!fetch) {
    auto made = captures.from_html_in(conn, owner, url, html, origin);
    auto* c = std::get_if<domain::Capture>(&made);
    if (c != nullptr && pages != nullptr) {
      const auto id = (*c)["id"].get<std::int64_t>();
      if (pages->keep(conn, owner, id, html)) made = *captures.get_in(conn, owner, id);
    }
    return made;
  }
  auto made = captures.from_url_in(conn, owner, url, origin);
  if (auto* c = std::get_if<domain::Capture>(&made)) {
    engine::EnqueueOptions o;
    o.owner = owner;
    o.max_attempts = 1;
    o.idempotency_key = "capture:" + std::to_string((*c)["id"].get<std::int64_t>());
    engine::Queue(records.db(), records.clock())
        .enqueue_in(conn, engine::NewTask(kFetchTask,
                                          nlohmann::json{{"capture_id", (*c)["id"]}}.dump(), o));
  }
  return made;
}

std::variant<domain::Capture, domain::FieldErrors> capture_page(
    domain::Records& records, std::int64_t owner, const std::string& url, std::string_view html,
    const std::string& origin, KeptPages* pages) {
  // A pasted page is parsed outside any transaction (one INSERT follows);
  // a link's capture and its errand are written together.
  if (html.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    auto conn = records.db().acquire();
    return capture_page_in(*conn, records, owner, url, html, origin, pages);
  }
  return records.db().write([&](store::Conn& conn) {
    return capture_page_in(conn, records, owner, url, html, origin, pages);
  });
}

Result<std::string> run_fetch(store::Db& db, const Clock& clock, const net::HttpClient& http,
                              const engine::Task& task, const FetchOptions& options) {
  auto payload = nlohmann::json::parse(task.payload, nullptr, false);
  if (!task.owner || !payload.is_object() || !payload.contains("capture_id") ||
      !payload["capture_id"].is_number_integer())
    return Status::invalid("a capture.fetch task needs an owner and a capture_id");
  const std::int64_t owner = *task.owner;
  const std::int64_t id = payload["capture_id"].get<std::int64_t>();
  domain::Records records(db, clock);
  domain::Captures captures(records);
  auto c = captures.get(owner, id);
  if (!c || (*c)["status"] != "fetching") return std::string("nothing to fetch");
  const std::string url = (*c)["url"].get<std::string>();

  if (options.honour_robots) {
    if (std::string refusal = robots_refusal(http, url); !refusal.empty()) {
      captures.fail(owner, id, refusal);
      return std::string("refused by robots.txt");
    }
  }
  auto answer = http.send(page_request(url, domain::kMaxCapturedPageBytes));
  if (auto* e = std::get_if<net::HttpError>(&answer)) {
    // The client's message names a setting that opens private addresses to
    // other requests; for a capture nothing does.
    captures.fail(owner, id,
                  e->kind == net::HttpError::Kind::refused_destination
                      ? "The link leads to a private or local address, and peto reads only "
                        "public pages. Paste the page instead."
                      : e->message);
    return std::string("failed: ") + std::string(net::kind_name(e->kind));
  }
  const auto& page = std::get<net::HttpResponse>(answer);
  if (page.status != 200) {
    captures.fail(owner, id,
                  "The site answered " + std::to_string(page.status) +
                      " instead of the page. Check the link, or paste the page instead.");
    return std::string("failed: status ") + std::to_string(page.status);
  }
  if (!is_page(page)) {
    captures.fail(owner, id, "The link leads to a file, not a web page: paste the page instead.");
    return std::string("failed: not a page");
  }
  if (captures.fill(owner, id, page.body) && options.pages != nullptr)
    options.pages->keep(owner, id, page.body);
  return std::string("read");
}

}  // namespace peto::capture
