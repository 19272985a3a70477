// Board cards: what a card on the applications board says beyond its title,
// for a page of applications at once (three queries, not three a card).
//
//   auto facts = card_facts(db, owner, {12, 15}, now);
//   facts[12].stage_since   // when it reached its status (UTC ms)
//   facts[12].next          // the soonest reminder still to do or interview ahead
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/db.h"

namespace peto::domain {

struct NextThing {
  std::string kind;  // "reminders" or "interviews"
  std::int64_t id = 0;
  std::int64_t at = 0;  // due or starting (UTC ms)
  std::string day;      // YYYY-MM-DD for a whole-day one, else empty
  std::string title;    // a reminder's title, an interview's kind
};

struct CardFacts {
  std::int64_t stage_since = 0;  // the last status change, else the application's creation
  std::optional<NextThing> next;
  std::vector<std::pair<std::string, std::string>> tags;  // name, colour; A to Z
};

// The facts of the owner's applications among `ids` (others are left out).
std::map<std::int64_t, CardFacts> card_facts(store::Db& db, std::int64_t owner,
                                             const std::vector<std::int64_t>& ids,
                                             std::int64_t now);

}  // namespace peto::domain
