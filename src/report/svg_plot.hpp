#pragma once

#include <string>

#include "report/report_model.hpp"

namespace envbisect::report {

// The plots of a report as inline SVG elements drawn by our own code. Colours are CSS classes
// (good, bad, skip, unknown, axis, grid, band-good, band-bad, muted) that the page styles, so one
// drawing serves light, dark and print. Each returns "" when the model holds nothing to draw.

// Return the metric of every attempt per candidate (anchors first, then decisions in order), with
// the good and bad anchors' ranges and medians as horizontal bands; failed runs drawn as crosses.
std::string svg_metric_per_candidate(const ReportModel& model);

// Return the anchors' samples as two strips on one metric axis, with their medians.
std::string svg_anchor_distributions(const ReportModel& model);

// Return the search's progress: benchmark runs over elapsed time, each decision a dot in its
// verdict's colour.
std::string svg_search_progress(const ReportModel& model);

// Return the probe table as a heat grid: one row per knob and cache state, one column per value,
// each cell coloured by verdict and labelled with the median.
std::string svg_probe_grid(const ReportModel& model);

}  // namespace envbisect::report
