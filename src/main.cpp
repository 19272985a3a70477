// peto's command line: parse flags, build the App, call one command.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "app/app.h"
#include "domain/api_tokens.h"

// An error that no command handled ends peto with its message and status 1,
// after the destructors have run; escaping main, it would abort without them.
int main(int argc, char** argv) try {
  using namespace peto;
  CLI::App cli{"peto: a self-hosted job-search manager", "peto"};
  cli.require_subcommand(1);
  cli.set_help_all_flag("--help-all", "show help for every command");

  auto* up =
      cli.add_subcommand("up", "migrate, then serve the web app with the scheduler and a worker");
  auto* serve = cli.add_subcommand("serve", "serve the web app, JSON API, /healthz and /metrics");
  std::string listen;
  serve->add_option("--listen", listen, "HOST:PORT to listen on (default PETO_LISTEN)");
  auto* migrate = cli.add_subcommand("migrate", "apply pending database migrations");
  bool check = false;
  migrate->add_flag("--check", check, "exit 1 if any migration is pending; apply nothing");
  auto* schedule = cli.add_subcommand("schedule", "run one scheduler pass (or a loop of them)");
  app::ScheduleOptions sched;
  schedule->add_flag("--loop", sched.loop, "run passes until stopped");
  schedule->add_option("--every", sched.every_s, "seconds between passes (at least 10)")
      ->check(CLI::Range(1, 86400));
  schedule
      ->add_option("--sync-budget", sched.sync_budget_s,
                   "seconds a pass may spend starting syncs (0 = no limit)")
      ->check(CLI::Range(0, 86400));
  schedule->add_flag("--json", sched.json, "print one JSON object per pass");
  auto* work = cli.add_subcommand("work", "run the worker that does queued background tasks");
  app::WorkOptions wopts;
  work->add_flag("--once", wopts.once, "do what is due now, then exit");
  work->add_option("--every", wopts.every_s, "seconds of the first idle wait (at least 0.1)")
      ->check(CLI::Range(0.1, 3600.0));
  work->add_option("--queue", wopts.queue, "the queue to work on (default: default)")
      ->check([](const std::string& q) {
        return q.empty() || q.size() > 64 ? std::string("a queue name is 1 to 64 characters")
                                          : std::string();
      });
  work->add_option("--concurrency", wopts.concurrency, "tasks run at once")
      ->check(CLI::Range(1, 256));
  auto* health = cli.add_subcommand("healthcheck", "exit 0 when the named part is healthy");
  std::string part;
  int health_every = 300;
  health->add_option("part", part, "scheduler, worker or web")
      ->required()
      ->check(CLI::IsMember({"scheduler", "worker", "web"}));
  health->add_option("--every", health_every, "the scheduler's --every (for its allowance)")
      ->check(CLI::Range(1, 86400));
  auto* version = cli.add_subcommand("version", "print the version");
  auto* user = cli.add_subcommand("user", "manage accounts");
  user->require_subcommand(1);
  auto* user_create = user->add_subcommand("create", "create an account (the first is admin)");
  std::string user_email;
  bool user_admin = false;
  bool password_stdin = false;
  user_create->add_option("--email", user_email, "the account's e-mail address")->required();
  user_create->add_flag("--admin", user_admin, "make the account an administrator");
  user_create->add_flag("--password-stdin", password_stdin, "read the password from standard input")
      ->required();
  auto* invite = cli.add_subcommand("invite", "manage invites");
  invite->require_subcommand(1);
  auto* invite_create = invite->add_subcommand("create", "create an invite; prints its link");
  std::string invite_by;
  std::string invite_email;
  invite_create->add_option("--by", invite_by, "the inviting administrator's e-mail address")
      ->required();
  invite_create->add_option("--email", invite_email, "only this address may use the invite");
  auto* token = cli.add_subcommand("token", "manage API tokens (for /api/v1)");
  token->require_subcommand(1);
  std::string token_user;
  auto* token_create =
      token->add_subcommand("create", "create an API token; prints its secret, shown once");
  std::string token_name = "Command line";
  std::vector<std::string> token_scopes;
  std::string scope_help = "what the token may do; repeat for more. One of:";
  for (const auto& s : domain::all_scopes()) scope_help += " " + s;
  token_create->add_option("--user", token_user, "the owning account's e-mail address")->required();
  token_create->add_option("--scope", token_scopes, scope_help)->required()->delimiter(',');
  token_create->add_option("--name", token_name, "what the token is for (1 to 100 characters)")
      ->capture_default_str();
  auto* token_list = token->add_subcommand("list", "list an account's live API tokens");
  token_list->add_option("--user", token_user, "the owning account's e-mail address")->required();
  auto* token_revoke = token->add_subcommand("revoke", "revoke an API token");
  std::int64_t token_id = 0;
  token_revoke->add_option("--user", token_user, "the owning account's e-mail address")->required();
  token_revoke->add_option("--id", token_id, "the token's id (see peto token list)")
      ->required()
      ->check([](const std::string& id) {
        return id.empty() || id.size() > 18 || id[0] == '0' ||
                       id.find_first_not_of("0123456789") != std::string::npos
                   ? std::string("an id is a whole number from 1 up")
                   : std::string();
      });
  auto* demo = cli.add_subcommand("demo", "create an account filled with example data to try peto");
  std::string demo_email = "demo@example.com";
  bool demo_password_stdin = false;
  demo->add_option("--email", demo_email, "the demo account's e-mail address")
      ->capture_default_str();
  demo->add_flag("--password-stdin", demo_password_stdin,
                 "read the password from standard input (else one is made and printed)");

  auto* verify_media = cli.add_subcommand(
      "verify-media", "check every upload now; list missing, changed and stray files");
  auto* prune_media = cli.add_subcommand(
      "prune-media", "list files in the media folder that no upload names (delete with --remove)");
  bool prune_remove = false;
  prune_media->add_flag("--remove", prune_remove, "delete the listed files");
  auto* export_cmd = cli.add_subcommand("export", "write one person's data to a zip archive");
  std::string export_user, export_out;
  export_cmd->add_option("--user", export_user, "the account's e-mail address")->required();
  export_cmd->add_option("--out", export_out, "the zip file to write")->required();
  auto* import_cmd = cli.add_subcommand("import", "read an export archive into an account");
  std::string import_file, import_user;
  bool import_force = false;
  import_cmd->add_option("file", import_file, "the zip archive")->required();
  import_cmd->add_option("--user", import_user, "the account's e-mail address")->required();
  import_cmd->add_flag("--force", import_force, "import into an account that already holds data");
  auto* backup = cli.add_subcommand("backup", "write a verified archive of the whole instance");
  std::string backup_out;
  backup->add_option("--out", backup_out, "the folder to write it to (default PETO_BACKUP_DIR)");
  auto* restore = cli.add_subcommand("restore", "restore the instance from a backup archive");
  std::string restore_file;
  bool restore_newer = false, restore_force = false;
  restore->add_option("file", restore_file, "the backup archive (.tar.gz)")->required();
  restore->add_flag("--allow-newer", restore_newer,
                    "accept an archive whose schema is newer than this binary's");
  restore->add_flag("--force", restore_force, "replace an instance that already holds data");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.empty()) what = "bad command line";
    std::cerr << "peto: " << what << " (see peto --help)\n";
    return 2;
  }

  if (version->parsed()) return app::cmd_version();
  bool serving = up->parsed() || serve->parsed();
  // The scheduler opens connections' sealed secrets to deliver notices.
  auto loaded = app::load(/*need_secret_key=*/serving || schedule->parsed());
  if (!loaded) return 2;
  app::App& a = *loaded;
  if (migrate->parsed()) return app::cmd_migrate(a, check);
  if (health->parsed()) return app::cmd_healthcheck(a, part, health_every);
  if (schedule->parsed()) return app::cmd_schedule(a, sched);
  if (work->parsed()) return app::cmd_work(a, wopts);
  if (serve->parsed()) return app::cmd_serve(a, listen);
  if (up->parsed()) return app::cmd_up(a);
  if (user_create->parsed()) return app::cmd_user_create(a, user_email, user_admin, std::cin);
  if (invite_create->parsed()) return app::cmd_invite_create(a, invite_by, invite_email);
  if (token_create->parsed()) return app::cmd_token_create(a, token_user, token_name, token_scopes);
  if (token_list->parsed()) return app::cmd_token_list(a, token_user);
  if (token_revoke->parsed()) return app::cmd_token_revoke(a, token_user, token_id);
  if (demo->parsed()) return app::cmd_demo(a, demo_email, demo_password_stdin, std::cin);
  if (verify_media->parsed()) return app::cmd_verify_media(a);
  if (prune_media->parsed()) return app::cmd_prune_media(a, prune_remove);
  if (export_cmd->parsed()) return app::cmd_export(a, export_user, export_out);
  if (import_cmd->parsed()) return app::cmd_import(a, import_file, import_user, import_force);
  if (backup->parsed()) return app::cmd_backup(a, backup_out);
  if (restore->parsed()) return app::cmd_restore(a, restore_file, restore_newer, restore_force);
  return 2;
} catch (const std::exception& e) {
  std::cerr << "peto: " << e.what() << "\n";
  return 1;
}
