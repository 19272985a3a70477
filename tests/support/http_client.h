// A tiny blocking HTTP/1.1 client for the web tests, on one TCP connection.
//
//   TestConnection c(port);
//   auto r = c.request("GET", "/healthz");
//   c.send_raw("GARBAGE\r\n\r\n");  auto bad = c.read_response();
//
// It speaks raw bytes when a test needs to (garbage, partial bodies,
// pipelining) and parses answers with Beast. Every read gives up after a few
// seconds (SO_RCVTIMEO), so a server that never answers fails the test
// instead of hanging it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace peto::testing {

struct ClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The value of header `name` (case-insensitive), "" when absent.
  std::string header(const std::string& name) const;
  bool has_header(const std::string& name) const;
};

class TestConnection {
 public:
  // Connects to 127.0.0.1:port, from `source` when given (another loopback
  // address, "127.0.0.2", is another client); throws std::runtime_error when
  // it cannot.
  explicit TestConnection(std::uint16_t port, const std::string& source = "");
  ~TestConnection();

  void send_raw(const std::string& bytes);
  // Reads one response; `head` for the answer to a HEAD request (no body).
  // Throws std::runtime_error when the connection ends or times out first.
  ClientResponse read_response(bool head = false);
  // Sends one request with Host and Content-Length filled in, reads the answer.
  ClientResponse request(const std::string& method, const std::string& target,
                         const std::string& body = "",
                         const std::vector<std::pair<std::string, std::string>>& headers = {});
  // True when the server has closed the connection: a read returns end of
  // stream (or a reset) rather than data or a timeout.
  bool closed_by_server();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One request on a fresh connection.
ClientResponse http_request(std::uint16_t port, const std::string& method,
                            const std::string& target, const std::string& body = "",
                            const std::vector<std::pair<std::string, std::string>>& headers = {});

// True when a TCP connection to 127.0.0.1:port can be made now.
bool can_connect(std::uint16_t port);

}  // namespace peto::testing
