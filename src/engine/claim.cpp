#include "engine/claim.h"

#include <string>

namespace peto::engine {

const char* same_as(store::Dialect dialect) {
  return dialect == store::Dialect::postgres ? "IS NOT DISTINCT FROM" : "IS";
}

bool claim_on_value(store::Db& db, std::string_view table, std::int64_t id, std::string_view column,
                    const store::Value& read, const store::Value& to) {
  std::string col(column);
  std::string sql = "UPDATE " + std::string(table) + " SET " + col + " = ? WHERE id = ? AND " +
                    col + " " + same_as(db.dialect()) + " ?";
  return db.query(sql, {to, static_cast<long long>(id), read}).affected == 1;
}

}  // namespace peto::engine
