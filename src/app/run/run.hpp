#pragma once

#include <string>
#include <vector>

#include "app/measure/runners.hpp"
#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect run` (and `resume`, which reads them back from the run directory).
struct RunOptions {
  std::string good_path;
  std::string bad_path;
  std::string recipe_path;
  std::vector<std::string> wheel_dirs;
  std::vector<std::string> uv_caches;  // uv cache roots searched after the wheel folders
  std::string store_dir;               // content-addressed store; "" means the default
  std::string builder = "store";       // "store" (hard links) or "installer" (uv when on PATH, else pip)
  std::string index_url;               // an index handed to the installer; only an older run.json sets it (resume)
  std::vector<std::string> index_urls;  // --index-url: simple repository API indexes wheels are fetched from
  std::vector<std::string> find_links;  // --find-links: folders (wheel folders) or URLs of pages of wheel links
  bool offline = false;                 // --offline: only the store, wheel folders and uv caches
  long index_timeout_s = 60;            // whole-transfer limit of an index page; stall window of every transfer
  long download_timeout_s = 3600;       // whole-transfer limit of one file downloaded from an index
  long max_download_gib = 8;            // the largest file downloaded from an index
  std::string out_dir;   // run directory; default runs/<time>
  int repeats = 0;       // first runs per candidate; 0: the recipe's
  int max_runs = 40;     // runs per candidate at which a verdict must be reached
  int anchor_runs = 5;   // interleaved runs of each anchor before the preflight
  bool explain = false;  // print why each candidate was chosen and each verdict's reasoning
  bool dry_run = false;  // print the plan and the worst-case number of evaluations; run nothing
  double run_seconds = 0;  // --dry-run: seconds one benchmark run takes, for a time estimate; 0: unknown
  bool quiet = false;      // print only the result: no table, no progress, no decisions
  bool verbose = false;    // log lines are asked for (-v): progress as lines, not a status line
  bool no_probe = false; // skip probing thread counts once the cause is found
  double budget_s = 0;  // --budget: wall seconds this session may spend before it stops with what it knows; 0: none
  std::string replay_journal;  // replay: where its journal goes; default RUNDIR/replay.jsonl
  int stop_after_decisions = -1;  // replay of a session its budget stopped: stop after as many decisions
  std::string probe = "boundary";  // --probe: "boundary" (bisect the thread counts) or "full" (every cell)
  bool first_parent = false;  // bisect commit ranges along first parents only (git bisect --first-parent)
  int max_log_mb = 64;         // cap on each benchmark log (stdout, stderr) in MiB; past it the middle is cut
  bool any_change = false;     // a bad anchor that measures better than good is a change to bisect too
  bool deterministic = false;  // the exit status is the whole result (as the recipe's "outcome": "pass-fail")
  ExecutionOptions execution;  // where benchmark processes run, how many at once, how isolated
};

// Find the minimal cause that turns good into bad, write RUNDIR/result.json and print a summary.
ExitCode run_run(const RunOptions& options);

// Whether `resume` first says on stderr what it resumes.
enum class Announce { yes, no };

// Continue the run in `run_dir` where it stopped, reusing every finished attempt; this session may
// spend `budget_s` wall seconds (0: no limit). First say on stderr what it resumes (`announce`).
ExitCode run_resume(const std::string& run_dir, double budget_s = 0, Announce announce = Announce::yes);

// Recompute every decision of the run in `run_dir` from its journal, running nothing; exit 0 when the
// decisions and the result are the same as recorded. The replay's own journal goes to `journal_path`
// (default RUNDIR/replay.jsonl): a read-only or archived run folder is replayed with it elsewhere.
ExitCode run_replay(const std::string& run_dir, const std::string& journal_path = "");

}  // namespace envbisect
