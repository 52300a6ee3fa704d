#include "cli/cli.hpp"

#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/diff.hpp"
#include "app/run.hpp"
#include "app/versions.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"

namespace envbisect {

namespace {

void setup_logging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("envbisect");
  logger->set_pattern("envbisect: %^%l%$: %v");
  logger->set_level(verbosity >= 2 ? spdlog::level::debug : verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"envbisect: find out why an ML training environment got slower or started crashing"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("envbisect ") + ENVBISECT_VERSION);
  int verbosity = 0;
  app.add_flag("-v,--verbose", verbosity, "More log output on stderr (-vv: every spawned command)");

  DiffOptions diff;
  CLI::App* diff_cmd = app.add_subcommand("diff", "List the differences between two state files, by dimension");
  diff_cmd->add_option("good", diff.good_path, "Known-good state (JSON)")->required();
  diff_cmd->add_option("bad", diff.bad_path, "Known-bad state (JSON)")->required();
  diff_cmd->add_flag("--json", diff.json, "Print the differences as JSON");
  diff_cmd->add_flag("--exit-code", diff.exit_code, "Exit 1 when the states differ");

  RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "Find the minimal set of differences that turns good into bad");
  run_cmd->add_option("good", run.good_path, "Known-good state (JSON)")->required();
  run_cmd->add_option("bad", run.bad_path, "Known-bad state (JSON)")->required();
  run_cmd->add_option("--recipe", run.recipe_path, "Benchmark recipe (JSON)")->required();
  run_cmd->add_option("--wheels", run.wheel_dirs, "Local wheel directory (repeatable)");
  run_cmd->add_option("--out", run.out_dir, "Run directory (default runs/<time>)");
  run_cmd->add_option("--repeats", run.repeats, "First runs per candidate (default: the recipe's)")->check(CLI::Range(1, 100));
  run_cmd->add_option("--max-runs", run.max_runs, "Runs per candidate at which a verdict must be reached (default 10)")
      ->check(CLI::Range(1, 100));
  run_cmd->add_option("--anchor-runs", run.anchor_runs, "Interleaved runs of each anchor before bisecting (default 5)")
      ->check(CLI::Range(1, 100));

  run_cmd->add_flag("--explain", run.explain, "Print why each candidate was chosen and how each verdict was reached");
  run_cmd->add_flag("--dry-run", run.dry_run, "Print the plan and the worst-case number of evaluations; run nothing");
  run_cmd->add_flag("--no-probe", run.no_probe, "Do not probe thread counts once the cause is found");

  std::string resume_dir;
  CLI::App* resume_cmd = app.add_subcommand("resume", "Continue a run that was stopped, reusing finished attempts");
  resume_cmd->add_option("rundir", resume_dir, "Run directory")->required();

  std::string replay_dir;
  CLI::App* replay_cmd = app.add_subcommand("replay", "Recompute every decision of a run from its journal, running nothing");
  replay_cmd->add_option("rundir", replay_dir, "Run directory")->required();

  VersionsOptions versions;
  CLI::App* versions_cmd = app.add_subcommand("versions", "List a package's versions in wheel directories, PEP 440 order");
  versions_cmd->add_option("name", versions.name, "Distribution name")->required();
  versions_cmd->add_option("--wheels", versions.wheel_dirs, "Wheel directory (repeatable)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }
  setup_logging(verbosity);
  install_process_guards();

  try {
    ExitCode code = ExitCode::ok;
    if (diff_cmd->parsed()) {
      code = run_diff(diff, std::cout);
    } else if (run_cmd->parsed()) {
      code = run_run(run);
    } else if (resume_cmd->parsed()) {
      code = run_resume(resume_dir);
    } else if (replay_cmd->parsed()) {
      code = run_replay(replay_dir);
    } else if (versions_cmd->parsed()) {
      code = run_versions(versions, std::cout, std::cerr);
    }
    return static_cast<int>(code);
  } catch (const Error& error) {
    std::cout.flush();
    std::cerr << "envbisect: error: " << error.what() << "\n";
    return static_cast<int>(error.code());
  } catch (const std::exception& error) {
    std::cout.flush();
    std::cerr << "envbisect: internal error: " << error.what() << "\n";
    return static_cast<int>(ExitCode::environment);
  }
}

}  // namespace envbisect
