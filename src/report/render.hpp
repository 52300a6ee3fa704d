#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace envbisect::report {

// Return the report as Markdown: the verdict and its evidence up top, the differences, the search
// timeline, each candidate's runs with a log excerpt, probes, builds, input hashes, reproduction
// commands and the harness's versions. Deterministic: the same model gives the same bytes.
std::string render_markdown(const ReportModel& model);

// Return the report as one self-contained HTML page (inline CSS and SVG plots, no script, no
// external fetch) readable in light and dark colour schemes and printable. Deterministic.
std::string render_html(const ReportModel& model);

// Return the report as a JSON document (format 1) holding the same facts as the other renderings.
// Deterministic.
std::string render_json(const ReportModel& model);

// Return the attempts whose log excerpt a report shows for the candidate: its first run, and its
// first run that did not end ok when that is another one (indices into the model's attempts).
std::vector<int> excerpt_attempts(const ReportModel& model, const CandidateView& view);

}  // namespace envbisect::report
