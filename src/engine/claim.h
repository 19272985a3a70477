// Row claims: the conditional UPDATE every step uses to take an item.
//
// A claim changes a row only if the column still holds the value the claimer
// read; of any number of processes claiming one row on the same reading,
// exactly one sees affected == 1. NULL compares equal to NULL here, so
// "never done" can be claimed too.
#pragma once

#include <cstdint>
#include <string_view>

#include "store/db.h"

namespace peto::engine {

// The null-safe equality operator of the dialect ("IS" / "IS NOT DISTINCT FROM").
const char* same_as(store::Dialect dialect);

// UPDATE table SET column = to WHERE id = ? AND column <same as> read.
// Table and column names come from code, never from input.
bool claim_on_value(store::Db& db, std::string_view table, std::int64_t id, std::string_view column,
                    const store::Value& read, const store::Value& to);

}  // namespace peto::engine
