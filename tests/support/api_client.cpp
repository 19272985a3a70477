#include "tests/support/api_client.h"

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace peto::testing {

namespace {

std::mutex log_mutex;

const char* log_dir() {
  const char* dir = std::getenv("PETO_API_LOG_DIR");
  return dir != nullptr && *dir != '\0' ? dir : nullptr;
}

ApiReply to_reply(ClientResponse r) {
  ApiReply out;
  out.status = r.status;
  out.headers = std::move(r.headers);
  out.text = std::move(r.body);
  if (!out.text.empty()) {
    out.body = nlohmann::json::parse(out.text, nullptr, /*allow_exceptions=*/false);
    out.json_ok = !out.body.is_discarded();
    if (!out.json_ok) out.body = nullptr;
  }
  return out;
}

}  // namespace

std::string ApiReply::header(const std::string& name) const {
  for (const auto& [k, v] : headers)
    if (strcasecmp(k.c_str(), name.c_str()) == 0) return v;
  return {};
}

std::string ApiReply::media_type() const {
  std::string type = header("Content-Type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type;
}

ApiReply ApiClient::raw(const std::string& method, const std::string& target,
                        const std::string& body, const HeaderList& headers) const {
  HeaderList all = headers;
  if (!bearer_.empty()) all.emplace_back("Authorization", "Bearer " + bearer_);
  ApiReply reply = to_reply(http_request(port_, method, target, body, all));
  log_exchange(method, target, reply);
  return reply;
}

ApiReply ApiClient::get(const std::string& target, const HeaderList& extra) const {
  return raw("GET", target, "", extra);
}

ApiReply ApiClient::post(const std::string& target, const nlohmann::json& body,
                         const HeaderList& extra) const {
  HeaderList h = extra;
  h.emplace_back("Content-Type", "application/json");
  return raw("POST", target, body.dump(), h);
}

ApiReply ApiClient::patch(const std::string& target, const nlohmann::json& body,
                          const HeaderList& extra) const {
  HeaderList h = extra;
  h.emplace_back("Content-Type", "application/json");
  return raw("PATCH", target, body.dump(), h);
}

ApiReply ApiClient::del(const std::string& target, const HeaderList& extra) const {
  return raw("DELETE", target, "", extra);
}

void log_exchange(const std::string& method, const std::string& target, const ApiReply& reply) {
  const char* dir = log_dir();
  if (dir == nullptr) return;
  nlohmann::json line = {{"method", method},
                         {"path", target.substr(0, target.find('?'))},
                         {"status", reply.status},
                         {"content_type", reply.header("Content-Type")},
                         {"body", reply.body}};
  // A body that is not JSON is logged as its text, so the check sees it.
  if (!reply.text.empty() && !reply.json_ok) line["body"] = reply.text;
  std::lock_guard<std::mutex> lock(log_mutex);
  std::filesystem::create_directories(dir);
  std::ofstream out(std::filesystem::path(dir) / (std::to_string(getpid()) + ".jsonl"),
                    std::ios::app);
  out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void write_openapi_once(std::uint16_t port) {
  static std::once_flag once;
  const char* dir = log_dir();
  if (dir == nullptr) return;
  std::call_once(once, [&] {
    ApiReply doc = ApiClient(port, "").get("/api/v1/openapi.json");
    if (doc.status != 200 || !doc.json_ok) return;
    std::filesystem::create_directories(dir);
    // Written whole, then renamed: several test processes may race here.
    auto final_path = std::filesystem::path(dir) / "openapi.json";
    auto tmp = std::filesystem::path(dir) / ("openapi." + std::to_string(getpid()) + ".tmp");
    std::ofstream(tmp) << doc.body.dump(2);
    std::filesystem::rename(tmp, final_path);
  });
}

}  // namespace peto::testing
