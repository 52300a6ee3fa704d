#pragma once

#include <optional>
#include <string>

#include "report/answer.hpp"
#include "report/report_model.hpp"

namespace envbisect::report {

// Load everything a report shows from the run directory: journal.jsonl (required), run.json, the
// input files' current hashes, the recipe (when unchanged since the run) and the tails of the
// attempts' log files. Throw Error (bad_input) when `run_dir` holds no journal.
ReportModel load_report_model(const std::string& run_dir);

// Write report.md, report.html and report.json into `run_dir`; for the end of `run`. Return the
// run's answer as the reports give it, so the terminal says the same; nullopt when the reports could
// not be written. Never throws: a report that cannot be written is a warning, not a failed run.
std::optional<Answer> write_reports(const std::string& run_dir);

}  // namespace envbisect::report
