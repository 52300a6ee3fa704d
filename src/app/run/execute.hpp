#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run/run.hpp"
#include "exec/runner.hpp"
#include "store/run_lock.hpp"
#include "util/error.hpp"

// The one walk every run takes (src/app/run/run.cpp), shared by `run`, `resume` and `replay`
// (src/app/run/resume.cpp): not part of the app's public surface.
namespace envbisect {

// Whether attempts may be run (run, resume) or must all come from the journal (replay).
enum class Mode { run, replay };

// Walk a run from its options: inputs, anchors, search, verification, probes, result and reports,
// taking every attempt `previous` (the journal's records) already holds instead of running it again;
// `held` is the run folder's lock when the caller took it already. Every process is spawned by the
// runner the options name, or by `machine` when given.
ExitCode execute(RunOptions options, const std::vector<nlohmann::json>& previous, Mode mode, const RunLock* held,
                 Runner* machine = nullptr);

// Run as `envbisect run` does (run_run), every process spawned by `machine`: a simulated machine
// (bench/verdicts) drives the product's own run loop, from the anchors to the result.
ExitCode run_on(const RunOptions& options, Runner& machine);

// Compare a replay's decisions and result with the journal's last session; ok when identical.
ExitCode compare_replay(const std::vector<nlohmann::json>& previous, const std::vector<nlohmann::json>& decisions,
                        const nlohmann::json& result, const std::string& run_dir);

}  // namespace envbisect
