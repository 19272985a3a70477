// Upkeep (docs/RULES.md #1121 and errands): fails errands still waiting or working 24 h
// after they were asked for ("interrupted, please try again"; errands are
// never retried by themselves), and deletes finished tasks (done, failed,
// cancelled) once they are 7 days old, in batches; and removes the kept
// pages of captures not accepted after PETO_CAPTURE_PAGE_KEEP_DAYS; expired
// export archives; old deliveries and shown notices; and request bodies
// spooled to DATA_DIR/tmp that a crash left behind (a day old: no upload or
// import takes that long).
#pragma once

#include <string>

#include "engine/step.h"

namespace peto::steps {

// Removes the regular files directly in `dir` last written `age` or more
// before `now`; returns how many. A missing folder is nothing to do.
std::int64_t remove_stale_temp_files(const std::string& dir, Millis now,
                                     std::chrono::milliseconds age);

// Removes the files directly in `exports_dir` last written `age` or more
// before `now` that no export_archives row names (a `.zip.part` a crash cut
// off, an archive never recorded, one whose row went first); returns how many.
std::int64_t remove_unrecorded_archives(store::Db& db, const std::string& exports_dir, Millis now,
                                        std::chrono::milliseconds age);

class Upkeep final : public engine::Step {
 public:
  static constexpr auto kErrandTimeout = std::chrono::hours(24);
  static constexpr auto kKeepFinished = std::chrono::hours(24 * 7);
  static constexpr auto kTempFileAge = std::chrono::hours(24);
  static constexpr auto kStrayArchiveAge = std::chrono::hours(25);
  std::string_view id() const override { return "upkeep"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
