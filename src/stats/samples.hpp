#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace envbisect::stats {

// One run of the benchmark, reduced to what the verdict rules read.
struct Sample {
  bool failed = false;            // non-zero exit, signal, timeout, or no metric
  double metric = 0.0;            // meaningful only when !failed
  std::string failure_signature;  // meaningful only when failed; see failure_signature()
  std::string checksum;           // fixed-seed loss checksum as text; empty when not reported
  bool skipped = false;           // the benchmark said it cannot test this candidate (exit 125)
};

// The runs of one environment (an anchor or a candidate), in the order they ran.
struct SampleSet {
  std::vector<Sample> samples;

  // Return the number of runs, failed and skipped ones included.
  std::size_t size() const { return samples.size(); }

  // Return the metrics of the runs that did not fail or skip, in run order.
  std::vector<double> metrics() const;

  // Return how many runs failed.
  std::size_t failure_count() const;

  // Return the fraction of runs that failed; 0 for an empty set.
  double failure_rate() const;

  // Return true when any run was skipped.
  bool any_skipped() const;

  // Return the distinct failure signatures, sorted.
  std::vector<std::string> failure_signatures() const;

  // Return true when two non-failed runs reported different non-empty checksums.
  bool checksum_mismatch() const;
};

// Return a signature that stays equal across repeats of the same failure: how the run ended
// ("timeout", "signal:11", "exit:1") and the error class or last stderr line with numbers,
// addresses and paths' volatile parts masked, e.g. "exit:1|RuntimeError: shape [N, N]".
std::string failure_signature(const RunResult& run);

// Return the sample for one run: skipped for RunStatus::skip, failed for failed/timeout or a
// missing metric.
Sample to_sample(const RunResult& run);

// Return the median of `values`; 0 for an empty vector.
double median(std::vector<double> values);

// Return the coefficient of variation (sample standard deviation / |mean|); 0 for fewer than
// two values or a zero mean.
double coefficient_of_variation(const std::vector<double>& values);

// Return the Hodges-Lehmann shift of x over y: the median of all differences x_i - y_j.
// 0 when either is empty.
double hodges_lehmann_shift(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace envbisect::stats
