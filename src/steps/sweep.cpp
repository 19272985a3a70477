#include "steps/sweep.h"

#include <filesystem>

#include "core/log.h"
#include "engine/gate.h"

namespace peto::steps {

namespace fs = std::filesystem;

namespace {
constexpr engine::Figure kRemoved{"removed", "{n} file no record names was removed",
                                  "{n} files no record names were removed"};
constexpr engine::Figure kKept{"kept"};
constexpr engine::Figure kWalks{"walks"};
}  // namespace

std::optional<Millis> mtime_ms(const fs::path& p) {
  std::error_code ec;
  auto t = fs::last_write_time(p, ec);
  if (ec) return std::nullopt;
  auto sys = std::chrono::file_clock::to_sys(t);
  return std::chrono::duration_cast<std::chrono::milliseconds>(sys.time_since_epoch()).count();
}

SweepResult sweep_media(store::Db& db, const std::vector<media::FileColumn>& columns,
                        const std::string& media_dir, Millis now, Millis grace_ms, bool remove) {
  SweepResult result;
  std::error_code ec;
  if (!fs::is_directory(media_dir, ec)) return result;
  const auto named = media::named_files(db, columns);
  ++result.walks;
  for (auto it = fs::recursive_directory_iterator(
           media_dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file(ec)) continue;
    std::string rel = fs::relative(it->path(), media_dir, ec).generic_string();
    auto mtime = mtime_ms(it->path());
    if (named.count(rel) || !mtime || now - *mtime < grace_ms) {
      ++result.kept;
      continue;
    }
    if (remove) {
      std::error_code rm;
      if (!fs::remove(it->path(), rm)) {
        log::warn("sweep", "could not remove a file no record names",
                  {{"file", rel}, {"error", rm.message()}});
        continue;
      }
      log::info("sweep", "removed a file no record names", {{"file", rel}});
    }
    result.removed.push_back(rel);
  }
  return result;
}

engine::StepResult Sweep::run(engine::PassContext& ctx) {
  engine::StepResult result{kRemoved, kKept, kWalks};
  if (!ctx.config.media_sweep) return result;
  if (!engine::take_gate(ctx.cache, "sweep")) return result;
  Millis grace = static_cast<Millis>(std::max(1, ctx.config.media_sweep_grace_hours)) * 3'600'000;
  auto r = sweep_media(ctx.db, columns_, ctx.config.media_dir(), ctx.clock.now_ms(), grace, true);
  result.add(kRemoved, static_cast<std::int64_t>(r.removed.size()));
  result.add(kKept, r.kept);
  result.add(kWalks, r.walks);
  return result;
}

}  // namespace peto::steps
