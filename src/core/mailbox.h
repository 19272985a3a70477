// A mailbox as people write it in PETO_SMTP_FROM: "peto@example.org" or
// "peto <peto@example.org>" (a display name, quoted or not, then the address
// in angle brackets), read once here for the configuration and the mail.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace peto {

struct Mailbox {
  std::string name;     // the display name, unquoted; empty when there is none
  std::string address;  // local@domain
};

// The mailbox `text` names, or nothing when it is not one: no address, an
// address SMTP cannot carry, a name holding angle brackets, or any control
// character (a line break would start a new header).
std::optional<Mailbox> parse_mailbox(std::string_view text);

// Good enough to hand to SMTP: local@domain, at most 254 bytes, nothing that
// could end a command or a header.
bool plausible_address(std::string_view address);

}  // namespace peto
