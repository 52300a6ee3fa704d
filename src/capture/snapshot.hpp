#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/git_facts.hpp"
#include "core/state.hpp"

namespace envbisect {

// What a capture read: the python probe's report and the git repositories, plus naming.
struct CaptureInputs {
  nlohmann::json probe;                     // run_python_probe's report
  std::map<std::string, RepoFacts> repos;   // NAME -> what the repository is at
  std::string state_dir;                    // absolute folder of the state file; repo paths under it are made relative
  std::string name;                         // the state's name
  std::vector<std::string> via;             // the --via words, recorded in the facts
};

// A captured environment: the state that `diff` and `run` read, and every fact the state format
// has no field for (see docs/CAPTURE.md, "The facts file").
struct Capture {
  EnvState state;
  nlohmann::json facts;               // {"format": 1, "captured": {...}, "warnings": [...]}
  std::vector<std::string> warnings;  // things the state could not hold (invalid versions, dirty repos)
};

// Return the state and facts for `inputs`: packages with local labels (wheel and sha256 when
// direct_url.json names a .whl with its hash), repos at HEAD, caches warm when they hold entries and
// cold otherwise, captured variables without secrets. Never throws for odd probe content: what cannot
// be used becomes a warning.
Capture build_capture(const CaptureInputs& inputs);

// Return the repositories of a probe report's "repos" section (read by the git CLI on the target).
std::map<std::string, RepoFacts> repo_facts_from_probe(const nlohmann::json& probe);

// Return `epoch_seconds` as UTC ISO 8601 ("2026-11-12T20:41:00Z").
std::string format_utc_time(double epoch_seconds);

}  // namespace envbisect
