// Mailboxes as PETO_SMTP_FROM holds them.
#include "core/mailbox.h"

#include <gtest/gtest.h>

namespace peto {
namespace {

TEST(Mailbox, AnAddressWithOrWithoutADisplayName) {
  auto m = parse_mailbox("peto@example.org");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "");
  EXPECT_EQ(m->address, "peto@example.org");
  m = parse_mailbox("  Job Search <peto@example.org> ");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "Job Search");
  EXPECT_EQ(m->address, "peto@example.org");
  m = parse_mailbox("\"Peto, \\\"notices\\\"\" <peto@example.org>");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "Peto, \"notices\"");
  m = parse_mailbox("<peto@example.org>");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "");
}

TEST(Mailbox, WhatCannotBeOneIsRefused) {
  for (const char* bad :
       {"", "peto", "peto <peto>", "peto <>", "pe<to <peto@example.org>", "peto@example.org>",
        "a b@example.org", "a@example.org\r\nBcc: b@example.org", "Peto <a@b.org>\n"})
    EXPECT_FALSE(parse_mailbox(bad)) << bad;
  EXPECT_FALSE(plausible_address(std::string(250, 'a') + "@b.org"));
  EXPECT_TRUE(plausible_address("ada+jobs@example.org"));
}

}  // namespace
}  // namespace peto
