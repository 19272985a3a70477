// The announcers and the delivery step (docs/SPEC.md §3.2–3.4, §6).
//
// Each announcer reads what is due, claims it with a conditional UPDATE and,
// in the same write transaction, writes the announcement to the outbox
// (notify/outbox.h): a claim that commits has its inbox notice and its
// deliveries; one that rolls back has neither. So two schedulers never
// announce one thing twice, and a crash never loses one.
//
//   Reminders  — outstanding reminders due now, of active owners (an inactive
//                owner's reminders wait), stamped notified_at; 500 per
//                transaction; key reminder:<id>:<due ISO>.
//   Quiet      — (docs/RULES.md #1120) the active owners who have an application that can
//                go quiet are read once with their profiles; per owner, one
//                query returns only the applications quiet for
//                quiet_after_days and not yet announced in this silence (the
//                test is in SQL); they are claimed on quiet_announced_at and
//                told in one message (5 named, then "and N more"). The
//                number of queries does not depend on the number of
//                applications.
//   Closing    — listings not applied to, not discarded and open, closing
//                within the owner's closing_notice_days counted in their own
//                calendar; announced once per closing date
//                (closing_announced_for), so a moved date is told again.
//   Deliveries — sends what the outbox holds (Outbox::deliver_due), within 60 s.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Reminders final : public engine::Step {
 public:
  static constexpr int kPerTransaction = 500;
  std::string_view id() const override { return "reminders"; }
  engine::Counts run(engine::PassContext& ctx) override;
  std::vector<std::string> summary(const engine::Counts& c) const override;
};

class Quiet final : public engine::Step {
 public:
  std::string_view id() const override { return "quiet"; }
  engine::Counts run(engine::PassContext& ctx) override;
  std::vector<std::string> summary(const engine::Counts& c) const override;
};

class Closing final : public engine::Step {
 public:
  std::string_view id() const override { return "closing"; }
  engine::Counts run(engine::PassContext& ctx) override;
  std::vector<std::string> summary(const engine::Counts& c) const override;
};

class Deliveries final : public engine::Step {
 public:
  static constexpr auto kBudget = std::chrono::seconds(60);
  std::string_view id() const override { return "deliveries"; }
  engine::Counts run(engine::PassContext& ctx) override;
  std::vector<std::string> summary(const engine::Counts& c) const override;
};

}  // namespace peto::steps
