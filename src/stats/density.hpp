#pragma once

#include <vector>

namespace envbisect::stats {

// Return the robust spread of `values`: the median absolute deviation scaled to a normal's standard
// deviation (1.4826 MAD); 0 for an empty vector.
double robust_sd(const std::vector<double>& values);

// Return the kernel width for two anchors' densities: the smaller anchor's robust spread (a bad
// anchor that is sometimes slow is wide only because it has two modes), widened by Silverman's factor
// for its run count, never below a twentieth of the gap between the anchors' medians.
double kernel_width(const std::vector<double>& good, const std::vector<double>& bad);

// Return the Gaussian kernel density of `anchor`'s runs at `x`, up to a constant shared by every
// anchor with the same width; 0 for no runs, no width, or a point so far from every run that the
// density underflows.
double density(const std::vector<double>& anchor, double x, double width);

// The most one run counts for in log_likelihood_ratio, either way: log 8.
inline constexpr double k_run_evidence_bound = 2.0794415416798357;

// Return the log likelihood ratio "measures like `x_anchor`" over "measures like `y_anchor`" of the
// runs `c` (each anchor's runs shifted by its offset), each run's term bounded to +-log(8) so that no
// single run (an outlier, a run in a tail the few anchor runs did not sample) decides alone; a run
// where neither density is above zero counts for nothing (unlike both anchors).
double log_likelihood_ratio(const std::vector<double>& c, const std::vector<double>& x_anchor, double x_shift,
                            const std::vector<double>& y_anchor, double y_shift, double width);

}  // namespace envbisect::stats
