// ApiClient: one bearer token talking JSON to a running test server's /api/v1.
//
//   ApiClient ana(port, secret);
//   ApiReply made = ana.post("/api/v1/companies", {{"name", "Acme"}});
//   EXPECT_EQ(made.status, 201);  made.body["id"] ...
//   ApiReply bad = ana.raw("POST", "/api/v1/companies", "{", {{"Content-Type",
//   "application/json"}});
//
// Every request is a fresh connection (so clients may be used from several
// threads at once). Every exchange is recorded: when PETO_API_LOG_DIR is set,
// one JSON line {method, path, status, content_type, body} is appended to
// $PETO_API_LOG_DIR/<pid>.jsonl, which tests/api/check_responses.py validates
// against the OpenAPI document (write_openapi_once puts it next to the logs).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/http_client.h"

namespace peto::testing {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct ApiReply {
  int status = 0;
  HeaderList headers;
  std::string text;      // the body as received
  nlohmann::json body;   // parsed; null when empty or not JSON
  bool json_ok = false;  // the body parsed as JSON

  // The value of header `name` (case-insensitive), "" when absent.
  std::string header(const std::string& name) const;
  // The media type without parameters, lower case ("application/json").
  std::string media_type() const;
};

class ApiClient {
 public:
  // An empty `bearer` sends no Authorization header.
  ApiClient(std::uint16_t port, std::string bearer) : port_(port), bearer_(std::move(bearer)) {}

  ApiReply get(const std::string& target, const HeaderList& extra = {}) const;
  // `body` is sent as application/json.
  ApiReply post(const std::string& target, const nlohmann::json& body = nlohmann::json::object(),
                const HeaderList& extra = {}) const;
  ApiReply patch(const std::string& target, const nlohmann::json& body,
                 const HeaderList& extra = {}) const;
  ApiReply del(const std::string& target, const HeaderList& extra = {}) const;
  // Exactly these body bytes and headers (plus Authorization when there is a
  // bearer; nothing else, not even Content-Type).
  ApiReply raw(const std::string& method, const std::string& target, const std::string& body,
               const HeaderList& headers = {}) const;

  const std::string& bearer() const { return bearer_; }

 private:
  std::uint16_t port_;
  std::string bearer_;
};

// Fetches GET /api/v1/openapi.json and writes it to $PETO_API_LOG_DIR/openapi.json,
// once per process (a no-op without the variable).
void write_openapi_once(std::uint16_t port);

// Records one exchange in the log (see the header comment).
void log_exchange(const std::string& method, const std::string& target, const ApiReply& reply);

}  // namespace peto::testing
