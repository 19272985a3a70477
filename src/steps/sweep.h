// Orphan sweep (docs/RULES.md #1119): removes files under the media folder that no row
// names. At most once an hour across all schedulers (a gate in the cache), one
// walk of the media folder, and only files older than the grace
// (PETO_MEDIA_SWEEP_GRACE_HOURS, at least 1) whose age is known. The named
// files come from one query per file-bearing table, registered by the module
// that owns it. Switched off by PETO_MEDIA_SWEEP=false (then the gate is not
// even taken).
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/step.h"
#include "media/uploads.h"

namespace peto::steps {

struct SweepResult {
  std::vector<std::string> removed;  // paths relative to the media folder
  std::int64_t kept = 0;             // named, or too young, or of unknown age
  std::int64_t walks = 0;
};

// When the file was last written (UTC ms); nullopt when that cannot be read.
std::optional<Millis> mtime_ms(const std::filesystem::path& p);

// One sweep, not gated: also what `peto prune-media` uses (grace 0 there).
// With `remove` false it only lists.
SweepResult sweep_media(store::Db& db, const std::vector<media::FileColumn>& columns,
                        const std::string& media_dir, Millis now, Millis grace_ms, bool remove);

class Sweep final : public engine::Step {
 public:
  explicit Sweep(std::vector<media::FileColumn> columns) : columns_(std::move(columns)) {}
  std::string_view id() const override { return "sweep"; }
  engine::StepResult run(engine::PassContext& ctx) override;

 private:
  std::vector<media::FileColumn> columns_;
};

}  // namespace peto::steps
