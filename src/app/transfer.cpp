// `peto export` and `peto import`: one person's data to a zip archive and
// back (media/exports.h). Progress goes to stderr; the summary to stdout.
#include <iostream>
#include <optional>
#include <string>

#include "app/app.h"
#include "domain/accounts.h"
#include "media/exports.h"

namespace peto::app {

namespace {

// 2300 -> "2,300".
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::optional<domain::Account> active_account(App& app, const std::string& email) {
  auto account = domain::Accounts(*app.db, *app.clock).find_by_email(email);
  if (!account || !account->active) {
    std::cerr << "peto: --user: " << email << " is not an active account\n";
    return std::nullopt;
  }
  return account;
}

}  // namespace

int cmd_export(App& app, const std::string& user_email, const std::string& out) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto account = active_account(app, user_email);
  if (!account) return 2;
  // A line at most every 500 records and every tenth of the files.
  std::int64_t said_records = -1, said_files = -1;
  auto progress = [&](const media::ExportProgress& p) {
    if (p.records_done < p.records_total && p.records_done - said_records < 500) return;
    if (p.files_total > 0 && p.files_done > 0 && p.files_done < p.files_total &&
        p.files_done - said_files < std::max<std::int64_t>(1, p.files_total / 10))
      return;
    if (p.files_done == 0 && p.records_done != said_records) {
      std::cerr << "exported " << grouped(p.records_done) << " of " << grouped(p.records_total)
                << " records…\n";
      said_records = p.records_done;
    } else if (p.files_done > 0 && p.files_done != said_files) {
      std::cerr << "packed " << grouped(p.files_done) << " of " << grouped(p.files_total)
                << " files…\n";
      said_files = p.files_done;
    }
  };
  auto made =
      media::write_export(*app.db, *app.clock, app.config.media_dir(), account->id, out, progress);
  if (!made) {
    std::cerr << "peto: export failed: " << made.status().message() << "\n";
    return 1;
  }
  std::cout << "exported " << grouped(made->records) << " records and " << grouped(made->files)
            << " files to " << out << " (" << grouped(made->bytes) << " bytes)\n";
  return 0;
}

int cmd_import(App& app, const std::string& file, const std::string& user_email, bool force) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto account = active_account(app, user_email);
  if (!account) return 2;
  std::cerr << "checking " << file << "…\n";
  try {
    auto done = media::import_archive(*app.db, *app.clock, app.config.media_dir(), account->id,
                                      file, media::ImportLimits::from(app.config), force);
    if (!done) {
      std::cerr << "peto: import refused, nothing was changed: " << done.status().message() << "\n";
      return 2;
    }
    app.say_database();
    std::cout << "imported " << grouped(done->records) << " records and " << grouped(done->files)
              << " files";
    if (done->companies_matched + done->tags_matched > 0)
      std::cout << " (" << grouped(done->companies_matched) << " companies and "
                << grouped(done->tags_matched) << " tags matched existing ones by name)";
    std::cout << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "peto: import failed, nothing was changed: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace peto::app
