#include "stats/quantity.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace envbisect::stats {

namespace {

bool is_rate(const std::string& unit) { return unit.ends_with("/s") || unit.ends_with("/sec"); }

bool is_duration(const std::string& unit) {
  static const std::array<const char*, 9> k_durations = {"s", "sec", "ms", "us", "\u00b5s", "ns", "min", "h", "seconds"};
  for (const char* name : k_durations) {
    if (unit == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string human_number(double value) {
  if (!std::isfinite(value)) {
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  }
  if (value == 0) {
    return "0";
  }
  char buffer[64];
  const double magnitude = std::fabs(value);
  if (magnitude < 1e-4) {
    std::snprintf(buffer, sizeof buffer, "%.3e", value);
    return buffer;
  }
  if (magnitude < 1000) {
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%.0f", magnitude);
  const std::string digits = buffer;
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    // Groups of three from the right, split by a space (SI style: 4-digit numbers stay whole).
    const std::size_t left = digits.size() - i;
    if (i > 0 && digits.size() > 4 && left % 3 == 0) {
      out += ' ';
    }
    out += digits[i];
  }
  return out;
}

std::string with_unit(double value, const std::string& unit) {
  return unit.empty() ? human_number(value) : human_number(value) + " " + unit;
}

std::string comparison_words(double good, double bad, Better better, const std::string& unit) {
  if (!(good > 0) || !(bad > 0)) {
    return "not comparable as a ratio";
  }
  const double ratio = bad / good;
  const bool worse = better == Better::higher ? ratio < 1.0 : ratio > 1.0;
  const double factor = ratio >= 1.0 ? ratio : 1.0 / ratio;
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx ", factor);
  // A rate that drops, or a duration that grows, is slower; any other metric is only worse or better.
  if (is_rate(unit) || is_duration(unit)) {
    const bool slower = is_rate(unit) ? ratio < 1.0 : ratio > 1.0;
    return std::string(text) + (slower ? "slower" : "faster");
  }
  return std::string(text) + (worse ? "worse" : "better");
}

}  // namespace envbisect::stats
