#include "stats/samples.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <set>

namespace envbisect::stats {

std::vector<double> SampleSet::metrics() const {
  std::vector<double> out;
  for (const Sample& s : samples) {
    if (!s.failed && !s.skipped) {
      out.push_back(s.metric);
    }
  }
  return out;
}

std::size_t SampleSet::failure_count() const {
  return static_cast<std::size_t>(
      std::count_if(samples.begin(), samples.end(), [](const Sample& s) { return s.failed; }));
}

double SampleSet::failure_rate() const {
  if (samples.empty()) {
    return 0.0;
  }
  return static_cast<double>(failure_count()) / static_cast<double>(samples.size());
}

bool SampleSet::any_skipped() const {
  return std::any_of(samples.begin(), samples.end(), [](const Sample& s) { return s.skipped; });
}

std::vector<std::string> SampleSet::failure_signatures() const {
  std::set<std::string> seen;
  for (const Sample& s : samples) {
    if (s.failed) {
      seen.insert(s.failure_signature);
    }
  }
  return {seen.begin(), seen.end()};
}

bool SampleSet::checksum_mismatch() const {
  const std::string* first = nullptr;
  for (const Sample& s : samples) {
    if (s.failed || s.skipped || s.checksum.empty()) {
      continue;
    }
    if (first == nullptr) {
      first = &s.checksum;
    } else if (*first != s.checksum) {
      return true;
    }
  }
  return false;
}

namespace {

// Mask the parts of an error line that change between repeats of one failure: runs of digits
// (line numbers, pids, addresses, shapes) become "N", hex addresses "0xN".
std::string mask_volatile(const std::string& line) {
  std::string out;
  std::size_t i = 0;
  while (i < line.size()) {
    const bool hex = line.compare(i, 2, "0x") == 0 && i + 2 < line.size() &&
                     std::isxdigit(static_cast<unsigned char>(line[i + 2]));
    if (hex) {
      i += 2;
      while (i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i]))) {
        ++i;
      }
      out += "0xN";
    } else if (std::isdigit(static_cast<unsigned char>(line[i]))) {
      while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) {
        ++i;
      }
      out += 'N';
    } else {
      out += line[i++];
    }
  }
  // Trailing whitespace differs between runners; it never identifies a failure.
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) {
    out.pop_back();
  }
  return out;
}

}  // namespace

std::string failure_signature(const RunResult& run) {
  std::string how;
  if (run.status == RunStatus::timeout) {
    how = "timeout";
  } else if (run.signal != 0) {
    how = "signal:" + std::to_string(run.signal);
  } else {
    how = "exit:" + std::to_string(run.exit_code);
  }
  // A timeout's stderr is wherever the kill interrupted it: not part of the failure's identity.
  if (run.status == RunStatus::timeout || run.error_class.empty()) {
    return how;
  }
  return how + "|" + mask_volatile(run.error_class);
}

Sample to_sample(const RunResult& run) {
  Sample s;
  s.checksum = run.checksum.value_or("");
  if (run.status == RunStatus::skip) {
    s.skipped = true;
    return s;
  }
  if (run.status == RunStatus::ok && run.metric.has_value()) {
    s.metric = *run.metric;
    return s;
  }
  s.failed = true;
  s.failure_signature = run.metric.has_value() || run.status != RunStatus::ok
                            ? failure_signature(run)
                            : "exit:0|no metric";
  return s;
}

double median(std::vector<double> values) {
  if (values.empty()) {
    return 0.0;
  }
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) {
    return upper;
  }
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

double coefficient_of_variation(const std::vector<double>& values) {
  if (values.size() < 2) {
    return 0.0;
  }
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (mean == 0.0) {
    return 0.0;
  }
  double sq = 0.0;
  for (double v : values) {
    sq += (v - mean) * (v - mean);
  }
  return std::sqrt(sq / (n - 1.0)) / std::fabs(mean);
}

double hodges_lehmann_shift(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> diffs;
  diffs.reserve(x.size() * y.size());
  for (double a : x) {
    for (double b : y) {
      diffs.push_back(a - b);
    }
  }
  return median(std::move(diffs));
}

}  // namespace envbisect::stats
