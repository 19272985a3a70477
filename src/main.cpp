// peto's command line: parse flags, build the App, call one command.
#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "app/app.h"
#include "domain/api_tokens.h"

namespace {

using namespace peto;

// One command of the command line: its CLI11 subcommand and what it runs
// once the App is loaded.
struct Command {
  CLI::App* sub = nullptr;
  std::function<int(app::App&)> run;
  bool needs_secret_key = false;  // it opens connections' sealed secrets
};

// A value the parser fills and the command reads later. Every slot lives until
// peto exits, so a command's lambda can hold it and read what the parser wrote.
template <typename T>
std::shared_ptr<T> slot(T initial = T()) {
  static std::vector<std::shared_ptr<void>> all;
  auto value = std::make_shared<T>(std::move(initial));
  all.push_back(value);
  return value;
}

// up, serve, migrate, schedule, work, healthcheck.
void add_service_commands(CLI::App& cli, std::vector<Command>& out) {
  out.push_back(
      {cli.add_subcommand("up", "migrate, then serve the web app with the scheduler and a worker"),
       [](app::App& a) { return app::cmd_up(a); }, true});
  auto listen = slot<std::string>();
  auto* serve = cli.add_subcommand("serve", "serve the web app, JSON API, /healthz and /metrics");
  serve->add_option("--listen", *listen, "HOST:PORT to listen on (default PETO_LISTEN)");
  out.push_back({serve, [listen](app::App& a) { return app::cmd_serve(a, *listen); }, true});

  auto check = slot(false);
  auto* migrate = cli.add_subcommand("migrate", "apply pending database migrations");
  migrate->add_flag("--check", *check, "exit 1 if any migration is pending; apply nothing");
  out.push_back({migrate, [check](app::App& a) { return app::cmd_migrate(a, *check); }});

  auto sched = slot<app::ScheduleOptions>();
  auto* schedule = cli.add_subcommand("schedule", "run one scheduler pass (or a loop of them)");
  schedule->add_flag("--loop", sched->loop, "run passes until stopped");
  schedule->add_option("--every", sched->every_s, "seconds between passes (at least 10)")
      ->check(CLI::Range(1, 86400));
  schedule
      ->add_option("--sync-budget", sched->sync_budget_s,
                   "seconds a pass may spend starting syncs (0 = no limit)")
      ->check(CLI::Range(0, 86400));
  schedule->add_flag("--json", sched->json, "print one JSON object per pass");
  out.push_back({schedule, [sched](app::App& a) { return app::cmd_schedule(a, *sched); }, true});

  auto wopts = slot<app::WorkOptions>();
  auto* work = cli.add_subcommand("work", "run the worker that does queued background tasks");
  work->add_flag("--once", wopts->once, "do what is due now, then exit");
  work->add_option("--every", wopts->every_s, "seconds of the first idle wait (at least 0.1)")
      ->check(CLI::Range(0.1, 3600.0));
  work->add_option("--queue", wopts->queue, "the queue to work on (default: default)")
      ->check([](const std::string& q) {
        return q.empty() || q.size() > 64 ? std::string("a queue name is 1 to 64 characters")
                                          : std::string();
      });
  work->add_option("--concurrency", wopts->concurrency, "tasks run at once")
      ->check(CLI::Range(1, 256));
  out.push_back({work, [wopts](app::App& a) { return app::cmd_work(a, *wopts); }});

  auto part = slot<std::string>();
  auto health_every = slot(300);
  auto* health = cli.add_subcommand("healthcheck", "exit 0 when the named part is healthy");
  health->add_option("part", *part, "scheduler, worker or web")
      ->required()
      ->check(CLI::IsMember({"scheduler", "worker", "web"}));
  health->add_option("--every", *health_every, "the scheduler's --every (for its allowance)")
      ->check(CLI::Range(1, 86400));
  out.push_back({health, [part, health_every](app::App& a) {
                   return app::cmd_healthcheck(a, *part, *health_every);
                 }});
}

// An option that takes a record id: a whole number from 1 up.
std::string check_id(const std::string& id) {
  return id.empty() || id.size() > 18 || id[0] == '0' ||
                 id.find_first_not_of("0123456789") != std::string::npos
             ? std::string("an id is a whole number from 1 up")
             : std::string();
}

// token create, list, revoke.
void add_token_commands(CLI::App& cli, std::vector<Command>& out) {
  auto* token = cli.add_subcommand("token", "manage API tokens (for /api/v1)");
  token->require_subcommand(1);
  auto user = slot<std::string>();
  const char* user_help = "the owning account's e-mail address";

  auto name = slot<std::string>("Command line");
  auto scopes = slot<std::vector<std::string>>();
  std::string scope_help = "what the token may do; repeat for more. One of:";
  for (const auto& s : domain::all_scopes()) scope_help += " " + s;
  auto* create =
      token->add_subcommand("create", "create an API token; prints its secret, shown once");
  create->add_option("--user", *user, user_help)->required();
  create->add_option("--scope", *scopes, scope_help)->required()->delimiter(',');
  create->add_option("--name", *name, "what the token is for (1 to 100 characters)")
      ->capture_default_str();
  out.push_back({create, [user, name, scopes](app::App& a) {
                   return app::cmd_token_create(a, *user, *name, *scopes);
                 }});

  auto* list = token->add_subcommand("list", "list an account's live API tokens");
  list->add_option("--user", *user, user_help)->required();
  out.push_back({list, [user](app::App& a) { return app::cmd_token_list(a, *user); }});

  auto id = slot<std::int64_t>(0);
  auto* revoke = token->add_subcommand("revoke", "revoke an API token");
  revoke->add_option("--user", *user, user_help)->required();
  revoke->add_option("--id", *id, "the token's id (see peto token list)")
      ->required()
      ->check(check_id);
  out.push_back({revoke, [user, id](app::App& a) { return app::cmd_token_revoke(a, *user, *id); }});
}

// user create|list|set-password|deactivate|activate|recover|reset-two-factor|delete,
// invite create, demo; and the token commands.
void add_account_commands(CLI::App& cli, std::vector<Command>& out) {
  auto* user = cli.add_subcommand("user", "manage accounts");
  user->require_subcommand(1);
  auto email = slot<std::string>();
  auto admin = slot(false);
  auto password_stdin = slot(false);
  auto* create = user->add_subcommand("create", "create an account (the first is admin)");
  create->add_option("--email", *email, "the account's e-mail address")->required();
  create->add_flag("--admin", *admin, "make the account an administrator");
  create->add_flag("--password-stdin", *password_stdin,
                   "read the password as one line from standard input (at a terminal it is "
                   "asked for, unseen)");
  out.push_back({create, [email, admin, password_stdin](app::App& a) {
                   return app::cmd_user_create(a, *email, *admin, *password_stdin, std::cin);
                 }});

  out.push_back({user->add_subcommand("list", "list every account"),
                 [](app::App& a) { return app::cmd_user_list(a); }});
  const char* email_help = "the account's e-mail address";
  auto* set_password = user->add_subcommand(
      "set-password", "set an account's password without the old one; its sessions end");
  set_password->add_option("--email", *email, email_help)->required();
  set_password->add_flag("--password-stdin", *password_stdin,
                         "read the password as one line from standard input (at a terminal it "
                         "is asked for, unseen)");
  out.push_back({set_password, [email, password_stdin](app::App& a) {
                   return app::cmd_user_set_password(a, *email, *password_stdin, std::cin);
                 }});
  for (bool active : {false, true}) {
    auto* cmd = user->add_subcommand(active ? "activate" : "deactivate",
                                     active ? "let a deactivated account sign in again"
                                            : "stop an account signing in; its data stays");
    cmd->add_option("--email", *email, email_help)->required();
    out.push_back({cmd, [email, active](app::App& a) {
                     return app::cmd_user_set_active(a, *email, active);
                   }});
  }
  auto* recover =
      user->add_subcommand("recover", "print a one-hour, single-use link that sets a new password");
  recover->add_option("--email", *email, email_help)->required();
  out.push_back({recover, [email](app::App& a) { return app::cmd_user_recover(a, *email); }});
  auto* reset = user->add_subcommand(
      "reset-two-factor", "turn an account's two-step sign-in off (a lost phone and codes)");
  reset->add_option("--email", *email, email_help)->required();
  out.push_back(
      {reset, [email](app::App& a) { return app::cmd_user_reset_two_factor(a, *email); }});
  auto yes = slot(false);
  auto* remove = user->add_subcommand(
      "delete", "delete an account and everything in it, for good (deactivate keeps it)");
  remove->add_option("--email", *email, email_help)->required();
  remove->add_flag("--yes", *yes, "yes, delete it: without this nothing happens");
  out.push_back(
      {remove, [email, yes](app::App& a) { return app::cmd_user_delete(a, *email, *yes); }});

  auto* invite = cli.add_subcommand("invite", "manage invites");
  invite->require_subcommand(1);
  auto by = slot<std::string>();
  auto invited = slot<std::string>();
  auto* invite_create = invite->add_subcommand("create", "create an invite; prints its link");
  invite_create->add_option("--by", *by, "the inviting administrator's e-mail address")->required();
  invite_create->add_option("--email", *invited, "only this address may use the invite");
  out.push_back({invite_create,
                 [by, invited](app::App& a) { return app::cmd_invite_create(a, *by, *invited); }});

  add_token_commands(cli, out);

  auto demo_email = slot<std::string>("demo@example.com");
  auto demo_stdin = slot(false);
  auto* demo = cli.add_subcommand("demo", "create an account filled with example data to try peto");
  demo->add_option("--email", *demo_email, "the demo account's e-mail address")
      ->capture_default_str();
  demo->add_flag("--password-stdin", *demo_stdin,
                 "read the password from standard input (else one is made and printed)");
  out.push_back({demo, [demo_email, demo_stdin](app::App& a) {
                   return app::cmd_demo(a, *demo_email, *demo_stdin, std::cin);
                 }});
}

// verify-media, prune-media, export, import, backup, restore.
void add_data_commands(CLI::App& cli, std::vector<Command>& out) {
  out.push_back(
      {cli.add_subcommand("verify-media",
                          "check every upload now; list missing, changed and stray files"),
       [](app::App& a) { return app::cmd_verify_media(a); }});
  auto remove = slot(false);
  auto* prune = cli.add_subcommand(
      "prune-media", "list files in the media folder that no upload names (delete with --remove)");
  prune->add_flag("--remove", *remove, "delete the listed files");
  out.push_back({prune, [remove](app::App& a) { return app::cmd_prune_media(a, *remove); }});

  auto export_user = slot<std::string>();
  auto export_out = slot<std::string>();
  auto* export_cmd = cli.add_subcommand("export", "write one person's data to a zip archive");
  export_cmd->add_option("--user", *export_user, "the account's e-mail address")->required();
  export_cmd->add_option("--out", *export_out, "the zip file to write")->required();
  out.push_back({export_cmd, [export_user, export_out](app::App& a) {
                   return app::cmd_export(a, *export_user, *export_out);
                 }});

  auto file = slot<std::string>();
  auto import_user = slot<std::string>();
  auto import_force = slot(false);
  auto* import_cmd = cli.add_subcommand("import", "read an export archive into an account");
  import_cmd->add_option("file", *file, "the zip archive")->required();
  import_cmd->add_option("--user", *import_user, "the account's e-mail address")->required();
  import_cmd->add_flag("--force", *import_force, "import into an account that already holds data");
  out.push_back({import_cmd, [file, import_user, import_force](app::App& a) {
                   return app::cmd_import(a, *file, *import_user, *import_force);
                 }});

  auto backup_out = slot<std::string>();
  auto* backup = cli.add_subcommand("backup", "write a verified archive of the whole instance");
  backup->add_option("--out", *backup_out, "the folder to write it to (default PETO_BACKUP_DIR)");
  out.push_back({backup, [backup_out](app::App& a) { return app::cmd_backup(a, *backup_out); }});

  auto archive = slot<std::string>();
  auto newer = slot(false);
  auto force = slot(false);
  auto* restore = cli.add_subcommand("restore", "restore the instance from a backup archive");
  restore->add_option("file", *archive, "the backup archive (.tar.gz)")->required();
  restore->add_flag("--allow-newer", *newer,
                    "accept an archive whose schema is newer than this binary's");
  restore->add_flag("--force", *force, "replace an instance that already holds data");
  out.push_back({restore, [archive, newer, force](app::App& a) {
                   return app::cmd_restore(a, *archive, *newer, *force);
                 }});
}

}  // namespace

// An error that no command handled ends peto with its message and status 1,
// after the destructors have run; escaping main, it would abort without them.
int main(int argc, char** argv) try {
  CLI::App cli{"peto: a self-hosted job-search manager", "peto"};
  cli.require_subcommand(1);
  cli.set_help_all_flag("--help-all", "show help for every command");
  std::vector<Command> commands;
  add_service_commands(cli, commands);
  auto* version = cli.add_subcommand("version", "print the version");
  add_account_commands(cli, commands);
  add_data_commands(cli, commands);

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
  for (const auto& command : commands) {
    if (!command.sub->parsed()) continue;
    auto loaded = app::load(command.needs_secret_key);
    if (!loaded) return 2;
    return command.run(*loaded);
  }
  return 2;
} catch (const std::exception& e) {
  std::cerr << "peto: " << e.what() << "\n";
  return 1;
}
