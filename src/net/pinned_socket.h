// PinnedSocket: the second lock on the destination policy's door, shared by
// the HTTP client and the e-mail notifier (internal to notify/).
//
//   PinnedSocket pin;
//   if (!pin.set(checked_ip, port)) …                  // not an IP address
//   pin.install(curl);                                  // CURLOPT_OPENSOCKET{FUNCTION,DATA}
//   … curl_easy_perform …
//   if (pin.refused) …                                  // curl tried another address
//
// curl is pinned to the checked address with CURLOPT_RESOLVE already; the
// socket callback refuses to open a socket to any other address, so not even
// a curl bug or a changed option can connect elsewhere.
#pragma once

#include <curl/curl.h>
#include <sys/socket.h>

#include <string>

namespace peto::net {

struct PinnedSocket {
  sockaddr_storage addr{};
  bool refused = false;  // set by the callback when curl asked for another address

  bool set(const std::string& ip, int port);  // false: not an IPv4 or IPv6 address
  void install(CURL* curl);                   // `this` must outlive the transfer
};

}  // namespace peto::net
