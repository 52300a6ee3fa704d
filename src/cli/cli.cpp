#include "cli/cli.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include "app/commands/capture.hpp"
#include "app/commands/diff.hpp"
#include "app/commands/locate.hpp"
#include "app/matrix/run_matrix.hpp"
#include "app/remote/remote_build.hpp"
#include "app/commands/report.hpp"
#include "app/commands/store.hpp"
#include "app/commands/timeline.hpp"
#include "app/commands/repro.hpp"
#include "app/run/run.hpp"
#include "app/run/plan/budget.hpp"
#include "app/commands/state.hpp"
#include "app/commands/versions.hpp"
#include "cli/build_info.hpp"
#include "cli/cli_docs.hpp"
#include "cli/cli_values.hpp"
#include "env/store.hpp"
#include "env/uv_cache.hpp"
#include "exec/group_watchdog.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

// The log message escaped for the terminal (%*): warnings quote paths, names and benchmark output.
class EscapedMessage : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*time*/, spdlog::memory_buf_t& dest) override {
    const std::string text = escape_control_lines(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<EscapedMessage>(); }
};

void setup_logging(int verbosity, bool quiet) {
  // NO_COLOR (no-color.org): any non-empty value turns colours off.
  const char* no_color = std::getenv("NO_COLOR");
  auto logger = no_color != nullptr && *no_color != '\0' ? spdlog::stderr_logger_mt("envbisect")
                                                          : spdlog::stderr_color_mt("envbisect");
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<EscapedMessage>('*').set_pattern("envbisect: %^%l%$: %*");
  logger->set_formatter(std::move(formatter));
  logger->set_level(quiet            ? spdlog::level::err
                    : verbosity >= 2 ? spdlog::level::debug
                    : verbosity == 1 ? spdlog::level::info
                                     : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

// Add the `capture` subcommand to `app`, its options read into `capture`; return the subcommand.
CLI::App* add_capture_command(CLI::App& app, CaptureOptions& capture) {
  CLI::App* capture_cmd = app.add_subcommand("capture", "Write the state of a live environment (packages, caches, repos, variables)");
  capture_cmd->add_option("--python", capture.python, "Interpreter to read (default python3)");
  capture_cmd->add_option("--venv", capture.venv, "Virtual environment to read (its bin/python)");
  capture_cmd->add_option("--repo", capture.repos, "Git repository NAME=PATH (repeatable)");
  capture_cmd->add_option("--via", capture.via, "Command prefix the probes run through, e.g. 'ssh root@host pct exec 200 --'");
  capture_cmd->add_option("--rootfs", capture.rootfs,
                          "Root filesystem (on this machine) to record as the container base, with its Debian packages");
  capture_cmd->add_option("-o,--output", capture.out_path,
                          "State file to write, its folder created when missing (facts go to NAME.facts.json)")
      ->required();
  return capture_cmd;
}

// Add the `timeline` subcommand to `app`, its options read into `timeline`; return the subcommand.
CLI::App* add_timeline_command(CLI::App& app, TimelineOptions& timeline) {
  CLI::App* timeline_cmd = app.add_subcommand("timeline", "What happened when: installs, caches, checkpoints; restorable builds");
  timeline_cmd->add_option("--python", timeline.python, "Interpreter to read (default python3)");
  timeline_cmd->add_option("--venv", timeline.venv, "Virtual environment to read");
  timeline_cmd->add_option("--via", timeline.via, "Command prefix the probe runs through");
  timeline_cmd->add_option("--repo", timeline.repos, "Git repository NAME=PATH of the reconstructed state (repeatable)");
  timeline_cmd->add_option("--checkpoints", timeline.checkpoints_dir, "Folder whose entries are checkpoint saves");
  timeline_cmd->add_option("--uv-cache", timeline.uv_cache_dir, "uv cache root (default $UV_CACHE_DIR or ~/.cache/uv)");
  timeline_cmd->add_option("--wheels", timeline.wheel_dirs, "Wheel directory (repeatable)");
  timeline_cmd->add_option("--as-of", timeline.as_of, "Reconstruct the state as of @EPOCH, a date-time or a checkpoint name");
  timeline_cmd->add_option("-o,--output", timeline.out_path, "Where the reconstructed state goes (needs --as-of)");
  timeline_cmd->add_flag("--json", timeline.json, "Print the timeline as JSON");
  return timeline_cmd;
}

// Add the `matrix` subcommand to `app`, its options read into `matrix`; return the subcommand.
CLI::App* add_matrix_command(CLI::App& app, MatrixOptions& matrix) {
  CLI::App* matrix_cmd = app.add_subcommand("matrix", "Run the nightly compatibility matrix; bisect cells that turned red");
  matrix_cmd->add_option("spec", matrix.spec_path, "Matrix spec (JSON, docs/MATRIX.md)")->required();
  matrix_cmd->add_option("--results", matrix.results_dir, "Results folder; each night goes to DIR/<date>/")->required();
  matrix_cmd->add_option("--jobs", matrix.jobs, "Cells measured at once (default 1; with --executor slurm: array tasks at once, default no limit)")->check(CLI::Range(1, 256));
  matrix_cmd->add_option("--date", matrix.date, "The night's date, YYYY-MM-DD (default today, UTC)");
  matrix_cmd->add_option("--executor", matrix.executor, "Where cells are measured: local (default) or slurm (one job array)")
      ->check(CLI::IsMember({"local", "slurm"}));
  matrix_cmd->add_option("--slurm-gpus", matrix.slurm_gpus, "slurm executor: GPUs per array task (--gres=gpu:N)")
      ->check(CLI::Range(0, 1024));
  matrix_cmd->add_option("--slurm-partition", matrix.slurm_partition, "slurm executor: partition to submit to");
  // Internal: what each Slurm array task runs (docs/MATRIX.md); hidden from --help.
  matrix_cmd->add_option("--cell", matrix.cell, "Measure only cell INDEX here")->check(CLI::NonNegativeNumber)->group("");
  return matrix_cmd;
}

// Add the `state` subcommand to `app`, its options read into `state_from`; return the subcommand.
CLI::App* add_state_command(CLI::App& app, StateFromOptions& state_from) {
  CLI::App* state_cmd = app.add_subcommand(
      "state", "Write a state from a lock file (uv.lock, pylock.toml, requirements.txt, pip freeze), as of a git revision");
  state_cmd->add_option("lockfile", state_from.lock_path, "uv.lock, pylock.toml, requirements.txt or pip freeze output")
      ->required();
  state_cmd->add_option("--at", state_from.at, "Read the lock as of this git revision (tag, branch, HEAD~20), not from disk");
  state_cmd->add_option("--python", state_from.python,
                        "Interpreter version the lock's entries are chosen for (default: the lowest the lock's "
                        "requires-python admits, else 3.11)");
  state_cmd->add_option("--machine", state_from.machine, "Platform machine wheels must fit (default x86_64)");
  state_cmd->add_option("--name", state_from.name, "The state's name (default: the revision or the file)");
  state_cmd->add_option("-o,--output,--out", state_from.out_path,
                        "State file to write, its folder created when missing (default stdout)");
  // uv.lock: what `uv sync` would install, chosen with uv's own flags.
  UvSelection& uv = state_from.uv;
  state_cmd->add_option("--package", uv.packages, "uv.lock: install this workspace member (repeatable)");
  state_cmd->add_flag("--all-packages", uv.all_packages, "uv.lock: install every workspace member");
  state_cmd->add_option("--extra", uv.extras, "uv.lock: include this optional extra of the roots (repeatable)");
  state_cmd->add_flag("--all-extras", uv.all_extras, "uv.lock: include every extra of the roots");
  state_cmd->add_option("--no-extra", uv.no_extras, "uv.lock: leave this extra out of --all-extras (repeatable)");
  state_cmd->add_option("--group", uv.groups, "uv.lock: include this dependency group (repeatable)");
  state_cmd->add_option("--only-group", uv.only_groups, "uv.lock: only this dependency group, not the roots' own dependencies");
  state_cmd->add_option("--no-group", uv.no_groups, "uv.lock: leave this dependency group out (repeatable)");
  state_cmd->add_flag("--no-default-groups", uv.no_default_groups, "uv.lock: leave out tool.uv.default-groups (default: dev)");
  state_cmd->add_flag("--all-groups", uv.all_groups, "uv.lock: include every dependency group");
  state_cmd->add_flag("--no-dev", uv.no_dev, "uv.lock: leave the dev group out");
  state_cmd->add_flag("--only-dev", uv.only_dev, "uv.lock: only the dev group, not the roots' own dependencies");
  return state_cmd;
}

// Add the `run` subcommand to `app`, its options read into `run` and its --budget text into `budget`;
// return the subcommand.
CLI::App* add_run_command(CLI::App& app, RunOptions& run, std::string& run_budget) {
  CLI::App* run_cmd = app.add_subcommand("run", "Find the minimal set of differences that turns good into bad");
  run_cmd->add_option("good", run.good_path, "Known-good state (JSON)")->required();
  run_cmd->add_option("bad", run.bad_path, "Known-bad state (JSON)")->required();
  run_cmd->add_option("--recipe", run.recipe_path, "Benchmark recipe (JSON)")->required();
  run_cmd->add_option("--wheels", run.wheel_dirs, "Local wheel directory (repeatable)");
  run_cmd->add_option("--uv-cache", run.uv_caches, "uv cache root to restore exact builds from (repeatable; default $UV_CACHE_DIR or ~/.cache/uv)");
  run_cmd->add_option("--store", run.store_dir, "Content-addressed store of unpacked wheels (default ~/.cache/envbisect/store)");
  run_cmd->add_option("--builder", run.builder, "How venvs are made: store (hard links, default) or installer (uv, else pip)")
      ->check(CLI::IsMember({"store", "installer"}));
  run_cmd->add_option("--index-url", run.index_urls,
                      "Simple repository API index (PEP 503/691) to fetch exact builds from (repeatable, e.g. one per "
                      "CUDA flavour; credentials from the URL or ~/.netrc are never written)");
  run_cmd->add_option("--find-links", run.find_links, "Wheel folder, or URL of a page of links to wheels (repeatable)");
  run_cmd->add_flag("--offline", run.offline, "Use only the store, wheel folders and uv caches; never an index");
  run_cmd->add_option("--index-timeout", run.index_timeout_s,
                      "Seconds an index page may take in all, and that any index transfer may stay under 1 KiB/s, "
                      "before it is given up (default 60)")
      ->check(CLI::Range(1, 3600));
  run_cmd->add_option("--download-timeout", run.download_timeout_s,
                      "Seconds one file downloaded from an index may take in all, however fast it trickles, before "
                      "it is given up (default 3600: 2.5 GB at 0.7 MB/s)")
      ->check(CLI::Range(1, 7 * 24 * 3600));
  run_cmd->add_option("--max-download-gib", run.max_download_gib,
                      "Largest file downloaded from an index, in GiB (default 8)")
      ->check(CLI::Range(1, 4096));
  run_cmd->add_option("-o,--output,--out", run.out_dir, "Run folder: journal, logs, result and reports (default runs/<time>)");
  run_cmd->add_option("--repeats", run.repeats,
                      "First runs per candidate (default: the recipe's; at least 2 for a metric); with "
                      "--deterministic, exactly this many (default 1)")
      ->check(CLI::Range(1, 100));
  run_cmd->add_option("--max-runs", run.max_runs, "Runs per candidate (and per anchor) at which a verdict must be reached (default 40)")
      ->check(CLI::Range(1, 100));
  run_cmd->add_option("--anchor-runs", run.anchor_runs, "Interleaved runs of each anchor before bisecting (default 5)")
      ->check(CLI::Range(1, 100));

  run_cmd->add_flag("--explain", run.explain, "Print why each candidate was chosen and how each verdict was reached");
  run_cmd->add_flag("--dry-run", run.dry_run,
                    "Print the plan, the worst-case number of evaluations and runs, and a time estimate; run nothing");
  run_cmd->add_option("--run-seconds", run.run_seconds,
                      "With --dry-run: seconds one benchmark run takes, for the time estimate")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--max-log-mb", run.max_log_mb,
                      "Cap on each benchmark log in MiB; past it the middle is cut, the attempt still counts "
                      "(default 64)")
      ->check(CLI::Range(1, 1 << 20));
  run_cmd->add_option("--budget", run_budget,
                      "Wall time the run may spend, e.g. 90s, 30m, 2h: before a candidate or run that would pass "
                      "it, stop with what is known (exit 1, outcome budget); `resume --budget` continues. With "
                      "--dry-run: whether the worst case fits");
  run_cmd->add_flag("--no-probe", run.no_probe, "Do not probe thread counts once the cause is found");
  run_cmd->add_option("--probe", run.probe,
                      "How the thread x cache probes are measured: boundary (default: bisect the thread counts for "
                      "the first bad one, flipped caches only at it) or full (every cell)")
      ->check(CLI::IsMember({"boundary", "full"}));
  run_cmd->add_flag("--deterministic", run.deterministic,
                    "The benchmark's exit status is the whole result, as git bisect run: 0 good, 125 skip, other bad; "
                    "one run per candidate (as the recipe's \"outcome\": \"pass-fail\"); the recipe needs no metric");
  run_cmd->add_flag("--any-change", run.any_change,
                    "Bisect any change between the anchors, also a bad state that measures better than good");
  run_cmd->add_flag("--first-parent", run.first_parent,
                    "Bisect commit ranges along first parents only (default: the whole DAG, as git bisect)");
  run_cmd->add_option("--executor", run.execution.executor, "Where benchmarks run: local (default), ssh or slurm")
      ->check(CLI::IsMember({"local", "ssh", "slurm"}));
  run_cmd->add_option("--host", run.execution.host, "ssh executor: user@host");
  run_cmd->add_option("--prefix", run.execution.prefix, "ssh executor: remote command prefix, e.g. 'pct exec 200 --'");
  run_cmd->add_option("--slots", run.execution.slots, "Candidates measured at once (default 1)")->check(CLI::Range(1, 256));
  run_cmd->add_option("--ssh-config", run.execution.ssh_config, "ssh executor: ssh configuration file (ssh -F)");
  run_cmd->add_option("--slurm-gpus", run.execution.slurm_gpus, "slurm executor: GPUs per job (--gres=gpu:N)")
      ->check(CLI::Range(0, 1024));
  run_cmd->add_option("--slurm-partition", run.execution.slurm_partition, "slurm executor: partition to submit to");
  run_cmd->add_option("--isolation", run.execution.isolation, "Isolation of each run: none (default), bwrap, podman or lxc")
      ->check(CLI::IsMember({"none", "bwrap", "podman", "lxc"}));
  run_cmd->add_option("--isolation-base", run.execution.isolation_base,
                      "Container base: a rootfs folder or a podman image (default: the host's /usr, read-only)");
  run_cmd->add_option("--remote-root", run.execution.remote_root,
                      "ssh executor without a shared filesystem: stage inputs under this remote folder and build "
                      "environments there");
  run_cmd->add_option("--remote-bundle", run.execution.remote_bundle,
                      "With --remote-root: the envbisect bundle (scripts/bundle) sent to build environments "
                      "(default: this envbisect, when it is a bundle)");
  return run_cmd;
}

// Print the usage of the command `topic` names ("run", "store gc"), or of envbisect when it names none.
// Throw Error (with the nearest command) for an unknown one.
ExitCode print_help(const CLI::App& app, const std::vector<std::string>& topic, std::ostream& out) {
  const CLI::App* scope = &app;
  std::string path;
  for (const std::string& word : topic) {
    std::vector<std::string> names;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : scope->get_subcommands({})) {
      names.push_back(sub->get_name());
      if (sub->get_name() == word) {
        next = sub;
      }
    }
    if (next == nullptr) {
      const std::string near = did_you_mean(word, names);
      throw Error("help: no command '" + (path.empty() ? word : path + " " + word) + "'" +
                      (near.empty() ? "" : "; did you mean '" + near + "'?") + " (envbisect help lists them)",
                  ExitCode::bad_input);
    }
    path += (path.empty() ? "" : " ") + word;
    scope = next;
  }
  // The formatter, not help(): after parsing `help`, App::help() describes the help command itself.
  out << scope->get_formatter()->make_help(scope, path.empty() ? "envbisect" : "envbisect " + path,
                                           CLI::AppFormatMode::Normal);
  return ExitCode::ok;
}

// Every subcommand's options, and the subcommand that holds them. CLI11 writes into these members
// while it parses, so a Commands never moves once its subcommands are added.
struct Commands {
  DiffOptions diff;
  CLI::App* diff_cmd = nullptr;
  RunOptions run;
  std::string run_budget;
  CLI::App* run_cmd = nullptr;
  std::string build_env_request;
  CLI::App* build_env_cmd = nullptr;
  std::string resume_dir;
  std::string resume_budget;
  CLI::App* resume_cmd = nullptr;
  LocateOptions locate;
  CLI::App* locate_cmd = nullptr;
  StoreGcOptions gc;
  CLI::App* gc_cmd = nullptr;
  StoreVerifyOptions verify;
  CLI::App* verify_cmd = nullptr;
  ReportOptions report;
  CLI::App* report_cmd = nullptr;
  CaptureOptions capture;
  CLI::App* capture_cmd = nullptr;
  TimelineOptions timeline;
  CLI::App* timeline_cmd = nullptr;
  std::string repro_dir;
  std::string repro_candidate;
  CLI::App* repro_cmd = nullptr;
  std::string replay_dir;
  std::string replay_journal;
  CLI::App* replay_cmd = nullptr;
  VersionsOptions versions;
  CLI::App* versions_cmd = nullptr;
  MatrixOptions matrix;
  CLI::App* matrix_cmd = nullptr;
  StateFromOptions state_from;
  CLI::App* state_cmd = nullptr;
  std::string completion_shell;
  CLI::App* completion_cmd = nullptr;
  CLI::App* manual_cmd = nullptr;
  std::vector<std::string> help_topic;
  CLI::App* help_cmd = nullptr;
};

// Add every subcommand to `app`, its options read into `c`.
void add_commands(CLI::App& app, Commands& c) {
  c.diff_cmd = app.add_subcommand("diff", "List the differences between two state files, by dimension");
  c.diff_cmd->add_option("good", c.diff.good_path, "Known-good state (JSON)")->required();
  c.diff_cmd->add_option("bad", c.diff.bad_path, "Known-bad state (JSON)")->required();
  c.diff_cmd->add_flag("--json", c.diff.json, "Print the differences as JSON");
  c.diff_cmd->add_flag("--exit-code", c.diff.exit_code, "Exit 1 when the states differ");

  c.run_cmd = add_run_command(app, c.run, c.run_budget);

  c.build_env_cmd = app.add_subcommand(
      "build-env", "Build one environment on this machine from a request file (what --remote-root runs remotely)");
  c.build_env_cmd->add_option("request", c.build_env_request, "Request file (JSON, docs/EXECUTORS.md)")->required();

  c.resume_cmd = app.add_subcommand("resume", "Continue a run that was stopped, reusing finished attempts");
  c.resume_cmd->add_option("rundir", c.resume_dir, "Run directory")->required();
  c.resume_cmd->add_option("--budget", c.resume_budget,
                           "Wall time this session may spend, e.g. 90s, 30m, 2h; past it the run stops with what it "
                           "knows (exit 1, outcome budget)");

  c.locate_cmd = app.add_subcommand("locate", "Say where an exact build (local label included) can be restored from offline");
  c.locate_cmd->add_option("requirement", c.locate.requirement, "NAME==VERSION, e.g. torch==2.11.0+cu128")->required();
  c.locate_cmd->add_option("--wheels", c.locate.wheel_dirs, "Wheel directory (repeatable)");
  c.locate_cmd->add_option("--uv-cache", c.locate.uv_caches, "uv cache root (repeatable; default $UV_CACHE_DIR or ~/.cache/uv)");

  CLI::App* store_cmd = app.add_subcommand("store", "Manage the content-addressed store of unpacked wheels");
  c.gc_cmd = store_cmd->add_subcommand("gc", "Remove store entries no recent run used");
  store_cmd->require_subcommand(1);
  c.gc_cmd->add_option("--store", c.gc.store_dir, "Store directory (default ~/.cache/envbisect/store)");
  c.gc_cmd->add_option("--older-than", c.gc.older_than_days, "Days without use before an entry goes (default 30)");
  c.verify_cmd = store_cmd->add_subcommand("verify", "Hash every store entry and check every shared environment; exit 1 on damage");
  c.verify_cmd->add_option("--store", c.verify.store_dir, "Store directory (default ~/.cache/envbisect/store)");

  c.report_cmd = app.add_subcommand("report", "Write the postmortem of a run: Markdown, self-contained HTML, JSON");
  c.report_cmd->add_option("rundir", c.report.run_dir, "Run directory")->required();
  c.report_cmd->add_option("--format", c.report.format, "md, html, json or all (default all, or the one -o's suffix names)")
      ->check(CLI::IsMember({"md", "html", "json", "all"}));
  c.report_cmd->add_option("-o,--output,--out", c.report.out_path,
                           "File to write (report.html, u.md) for one format; a folder for all (default the run "
                           "directory); missing folders are created");

  c.capture_cmd = add_capture_command(app, c.capture);
  c.timeline_cmd = add_timeline_command(app, c.timeline);

  c.repro_cmd = app.add_subcommand(
      "repro", "Rebuild one candidate's environment and run its benchmark once, printing the exact command");
  c.repro_cmd->add_option("rundir", c.repro_dir, "Run directory")->required();
  c.repro_cmd->add_option("candidate", c.repro_candidate, "good, bad, or a candidate id from the report")->required();

  c.replay_cmd = app.add_subcommand("replay", "Recompute every decision of a run from its journal, running nothing");
  c.replay_cmd->add_option("rundir", c.replay_dir, "Run directory")->required();
  c.replay_cmd->add_option("--journal", c.replay_journal,
                           "Where the replay's own journal goes (default RUNDIR/replay.jsonl; for a read-only run folder)");

  c.versions_cmd = app.add_subcommand("versions", "List a package's versions in wheel directories, PEP 440 order");
  c.versions_cmd->add_option("name", c.versions.name, "Distribution name")->required();
  c.versions_cmd->add_option("--wheels", c.versions.wheel_dirs, "Wheel directory (repeatable)")->required();

  c.matrix_cmd = add_matrix_command(app, c.matrix);
  c.state_cmd = add_state_command(app, c.state_from);

  c.completion_cmd = app.add_subcommand("completion", "Print a shell completion script (bash or zsh)");
  c.completion_cmd->add_option("shell", c.completion_shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  c.manual_cmd = app.add_subcommand("manual", "Print the manual page (roff), as installed as envbisect(1)");
  c.help_cmd = app.add_subcommand("help", "Print the usage of envbisect, or of one command (envbisect help run)");
  c.help_cmd->add_option("command", c.help_topic, "The command, e.g. run or store gc");
}

// Run the subcommand the command line named and return its exit code. Throws what the subcommand throws.
ExitCode dispatch(const CLI::App& app, Commands& c, const std::string& version, int verbosity, bool quiet) {
  c.run.quiet = quiet;
  c.run.verbose = verbosity > 0;
  if (c.run_cmd->parsed() && c.run.uv_caches.empty()) {
    c.run.uv_caches.push_back(default_uv_cache_dir());
  }
  if (c.diff_cmd->parsed()) {
    return run_diff(c.diff, std::cout);
  }
  if (c.run_cmd->parsed()) {
    c.run.budget_s = c.run_budget.empty() ? 0.0 : parse_duration(c.run_budget, "--budget");
    return run_run(c.run);
  }
  if (c.resume_cmd->parsed()) {
    return run_resume(c.resume_dir, c.resume_budget.empty() ? 0.0 : parse_duration(c.resume_budget, "--budget"),
                      quiet ? Announce::no : Announce::yes);
  }
  if (c.build_env_cmd->parsed()) {
    return run_build_env(c.build_env_request);
  }
  if (c.locate_cmd->parsed()) {
    if (c.locate.uv_caches.empty()) {
      c.locate.uv_caches.push_back(default_uv_cache_dir());
    }
    return run_locate(c.locate, std::cout, std::cerr);
  }
  if (c.gc_cmd->parsed()) {
    return run_store_gc(c.gc, std::cout);
  }
  if (c.verify_cmd->parsed()) {
    return run_store_verify(c.verify, std::cout);
  }
  if (c.report_cmd->parsed()) {
    return run_report(c.report);
  }
  if (c.capture_cmd->parsed()) {
    return run_capture(c.capture, std::cout);
  }
  if (c.timeline_cmd->parsed()) {
    return run_timeline(c.timeline, std::cout);
  }
  if (c.repro_cmd->parsed()) {
    return run_repro(c.repro_dir, c.repro_candidate, std::cout);
  }
  if (c.replay_cmd->parsed()) {
    return run_replay(c.replay_dir, c.replay_journal);
  }
  if (c.matrix_cmd->parsed()) {
    return run_matrix(c.matrix);
  }
  if (c.state_cmd->parsed()) {
    c.state_from.quiet = quiet;
    return run_state_from(c.state_from, std::cout, std::cerr);
  }
  if (c.completion_cmd->parsed()) {
    write_completion(app, c.completion_shell, std::cout);
  } else if (c.help_cmd->parsed()) {
    return print_help(app, c.help_topic, std::cout);
  } else if (c.manual_cmd->parsed()) {
    write_man_page(app, version, std::cout);
  } else if (c.versions_cmd->parsed()) {
    return run_versions(c.versions, std::cout, std::cerr);
  }
  return ExitCode::ok;
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"envbisect: find out why an ML training environment got slower or started crashing"};
  app.require_subcommand(1);
  const std::string version = std::string("envbisect ") + ENVBISECT_VERSION + " (commit " + k_build_commit + ")";
  app.set_version_flag("--version", version);
  int verbosity = 0;
  bool quiet = false;
  // Global flags are read after the subcommand too (`envbisect run -v ...`).
  app.fallthrough();
  app.add_flag("-v,--verbose", verbosity, "More log output on stderr (-vv: every spawned command)");
  app.add_flag("-q,--quiet", quiet, "Print only the result: no table, progress or warnings (errors still)");
  Commands commands;
  add_commands(app, commands);

  // An empty value is a mistake, never "not given": `--at "$LAST_GREEN"` with the variable unset read
  // the working tree, `--budget ""` ran unbounded, `--out ""` wrote to a new default folder.
  reject_empty_values(app);
  name_values(app);
  // Bare `envbisect`: the usage, as `envbisect help` prints it, not an error.
  app.name("envbisect");
  if (argc <= 1) {
    std::cout << app.help();
    return static_cast<int>(ExitCode::ok);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {
      return app.exit(error);  // --help, --version
    }
    // One line, like every other input error: what was wrong and where to look.
    std::string near = missing_value(app, argc, argv);
    if (near.empty()) {
      near = suggestion(app, argc, argv);
    }
    std::cerr << "envbisect: error: " << (near.empty() ? std::string(error.what()) : near) << " (see --help)\n";
    return static_cast<int>(ExitCode::bad_input);
  }
  setup_logging(verbosity, quiet);
  install_process_guards();
  start_group_watchdog();  // still single-threaded here, as it needs

  try {
    return static_cast<int>(dispatch(app, commands, version, verbosity, quiet));
  } catch (const Error& error) {
    std::cout.flush();
    // Messages name files, packages and values from the inputs: escaped, so none can drive the terminal;
    // a "hint:" line may follow, in the message.
    std::cerr << "envbisect: error: " << escape_control_lines(error.what()) << "\n";
    return static_cast<int>(error.code());
  } catch (const std::exception& error) {
    std::cout.flush();
    std::cerr << "envbisect: internal error: " << escape_control_lines(error.what()) << "\n";
    return static_cast<int>(ExitCode::environment);
  }
}

}  // namespace envbisect
