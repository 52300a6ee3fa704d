#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace envbisect::report {

// One difference between the good and the bad state, as the journal's "start" record lists it.
struct Change {
  std::string dimension;
  std::string name;
  std::optional<std::string> good;  // absent: added in bad
  std::optional<std::string> bad;   // absent: removed in bad
  std::string good_ref{};           // repos: the tag, branch or revision good gave for its commit, or empty
  std::string bad_ref{};            // repos: the same for bad
};

// Return one side of a change as reports show it: "(absent)", the value, or for a commit a state
// named by a ref, the ref with the id's first 12 digits beside it ("v2.3 (0a515c7dd136)").
std::string shown_side(const std::optional<std::string>& value, const std::string& ref);

// One benchmark run ("attempt") or warm-up ("warmup") as journaled.
struct Attempt {
  std::string candidate;              // full candidate hash
  std::vector<std::size_t> applied;   // indices into ReportModel::deltas
  std::string env_hash;
  int index = 0;                      // attempt number within the candidate (-1 for a warm-up)
  std::string status;                 // ok | failed | timeout | skip
  int exit_code = 0;
  int signal = 0;
  std::optional<double> metric;
  std::optional<std::string> checksum;
  std::string error_class;
  std::string cause;                  // why it gave no result, as a class ("no_metric_key", ...); "" when ok
  std::string diagnosis;              // that cause in a sentence
  double wall_s = 0;
  double t = 0;                       // wall-clock seconds since the epoch, from the journal
  std::optional<double> load1;        // the machine's 1-minute load average as it ended
  std::string stdout_path;            // as journaled
  std::string stderr_path;
  std::vector<std::string> argv;      // when the journal records it
  std::map<std::string, std::string> env;  // the whole environment it ran with, when journaled
  std::string cwd;                    // the folder it ran in, when journaled
  int session = 1;                    // which "start" record it follows (1-based)
};

// The tails of an attempt's log files, read by the loader (empty when the files are gone).
struct Excerpt {
  std::string stdout_tail;
  std::string stderr_tail;
  bool stdout_found = false;
  bool stderr_found = false;
};

// A candidate environment build ("build" record).
struct Build {
  std::string env_hash;
  bool ok = false;
  std::string reason;
  std::string builder;
  std::string python;
  std::map<std::string, std::string> installed;
  std::vector<std::string> logs;
  double seconds = 0;
  double t = 0;
  bool damaged = false;                     // rebuilt because what ran in it changed its files
  std::vector<std::string> damaged_files;   // those files, relative to the environment
  std::string damaged_after_candidate;      // the candidate whose run was the last in it, "" when none was
  int damaged_after_attempt = 0;            // that run's number
  std::string damaged_latest_candidate;     // the run last anywhere, when another: it may have written
  int damaged_latest_attempt = 0;           // through store files the environments share
};

// The anchors' preflight ("preflight" record).
struct Preflight {
  int anchor_runs = 0;              // the runs each anchor had at least
  int good_runs = 0, bad_runs = 0;  // each anchor's own (they differ where run times made them)
  bool distinguishable = false;
  std::optional<double> good_median;
  std::optional<double> bad_median;
  std::optional<double> good_cv;
  std::optional<double> bad_cv;
  std::optional<double> effect;
  std::optional<double> metric_p;
  std::optional<double> failure_p;
  std::string message;
};

// Return how the anchors ran before the search: "5 interleaved runs each" or "good 6 runs, bad 4,
// each next run where it told most per second".
std::string anchor_runs_words(int good_runs, int bad_runs);
std::string anchor_runs_words(const Preflight& preflight);

// One decided candidate ("decision" record of the last session), with the search's reason for asking.
struct Decision {
  int n = 0;
  std::string stage;                  // isolate | refine | probe | "" (older journals)
  std::string label;
  std::vector<std::size_t> applied;
  std::string candidate;
  std::string verdict;
  int runs = 0;
  std::optional<double> median;
  std::string reason;
  std::optional<double> p_vs_good;
  std::optional<double> p_vs_bad;
  std::optional<double> position;
  bool different_failure = false;
  bool checksum_mismatch = false;
  std::optional<double> cv;           // the coefficient of variation of its runs' metrics
  bool noisy = false;                 // the run judged that CV too high (stats::k_noisy_cv)
  std::string why;                    // from the result's search steps, when one matches
  double t = 0;                       // time of the last attempt journaled before it
  int runs_before = 0;                // attempts journaled before it (all sessions)
};

// One thread/cache probe ("probe" record).
struct Probe {
  std::string knob;
  long long value = 0;
  std::string cache;
  std::string verdict;
  std::optional<double> median;
};

// One refinement inside an ordered axis ("refine" record).
struct Refinement {
  Change delta;
  std::string kind;
  std::vector<std::string> points;
  bool found = false;
  std::string last_good;
  std::string first_bad;
  int evaluations = 0;
  std::string note;
};

// A record of a type this renderer does not know; shown as it is.
struct OtherRecord {
  std::string type;
  nlohmann::json record;
};

// An input file of the run (run.json): its path, the sha256 recorded when the run started, and
// what the loader found there now.
struct InputFile {
  std::string role;                   // good | bad | recipe
  std::string path;
  std::string sha256;
  std::string now;                    // "same", "changed (sha256 ...)", "missing", or "" when not checked
};

// The recipe, read back from its file when its sha256 still matches run.json.
struct RecipeView {
  bool available = false;
  std::string note;                   // why it is not available
  std::vector<std::string> command;
  std::vector<std::string> warmup;
  std::string metric;
  std::string unit;                   // the metric's unit ("tok/s"); "" when the recipe names none
  std::string direction;              // higher | lower
  int seed = 0;
  double timeout_s = 0;
  std::map<std::string, std::string> env;
};

// A candidate as the report shows it: the attempts of one candidate hash and what it was for.
struct CandidateView {
  std::string hash;
  std::string label;                  // "good anchor", "bad anchor", or the decision's label
  std::string role;                   // good-anchor | bad-anchor | decision
  std::vector<std::size_t> applied;
  std::string env_hash;
  std::vector<int> decisions;         // indices into ReportModel::decisions
  std::vector<int> attempts;          // indices into ReportModel::attempts, in journal order
};

// Everything a report shows, loaded from one run directory. Nothing here is recomputed: every
// field is what the journal (or run.json, or a log file) says.
struct ReportModel {
  std::string run_dir;
  std::vector<std::string> versions;  // envbisect versions of the sessions, in order
  int sessions = 0;
  std::vector<InputFile> inputs;
  std::vector<std::string> wheel_dirs;
  nlohmann::json run_options = nlohmann::json::object();  // run.json's other keys (repeats, ...)
  std::vector<Change> deltas;
  std::vector<Attempt> attempts;      // every session's
  std::vector<Attempt> warmups;
  std::vector<Build> builds;
  std::optional<Preflight> preflight; // last session's
  std::vector<Decision> decisions;    // last session's
  std::vector<Probe> probes;          // last session's
  std::vector<Refinement> refinements;
  std::vector<OtherRecord> others;
  std::optional<nlohmann::json> result;  // last session's result
  nlohmann::json host = nlohmann::json::object();  // the last session's start record's "host"
  std::optional<std::string> stopped;    // last session's "stopped" message: the inputs made it stop
  std::vector<CandidateView> candidates; // anchors first, then in order of first decision
  RecipeView recipe;
  std::map<std::string, Excerpt> excerpts;  // by excerpt_key()
  std::string journal_sha256;
  std::vector<std::string> notes;     // what the loader had to say (torn tail, missing files)
  double t_first = 0;                 // earliest and latest journaled times
  double t_last = 0;
};

// Build the model from a journal's records and run.json's document; pure: no file is read. Unknown
// record types become OtherRecord; malformed fields are read as absent, never thrown on.
ReportModel model_from_journal(const std::vector<nlohmann::json>& records, const nlohmann::json& run_doc,
                               const std::string& run_dir);

// Return the key of an attempt's excerpt: the first 16 digits of its candidate hash, '/', its number.
std::string excerpt_key(const Attempt& attempt);

// Return the candidate view with this hash, or nullptr.
const CandidateView* find_candidate(const ReportModel& model, const std::string& hash);

// Return "dimension/name" of the delta at `index`, or "#index" when the journal has no such delta.
std::string delta_name(const ReportModel& model, std::size_t index);

// Return the latest decision of the last session about the candidate that first tested exactly
// `applied` in stage isolate (or with no stage): its isolate, recheck or verify decisions, or nullptr.
const Decision* find_isolate_decision(const ReportModel& model, const std::vector<std::size_t>& applied);

// Return the result's cause as indices into the model's deltas (deltas matched by dimension and name).
std::vector<std::size_t> cause_indices(const ReportModel& model);

}  // namespace envbisect::report
