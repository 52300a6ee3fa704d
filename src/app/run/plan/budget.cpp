#include "app/run/plan/budget.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "util/error.hpp"

namespace envbisect {

double parse_duration(const std::string& text, const std::string& option) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  const std::string unit(end == nullptr ? "" : end);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  // Decimal digits only ("0x10" read as 16 s by strtod), at least a second, at most a year: what
  // the budget's arithmetic and its messages hold ("1e19s" printed as -9223372036854775808 s).
  const bool decimal = text.find_first_not_of("0123456789.smh") == std::string::npos;
  if (end == begin || scale == 0 || !decimal || !std::isfinite(number) || number <= 0 ||
      text.find_first_of(" \t+-") != std::string::npos) {
    throw Error(option + ": expected a duration such as 90s, 30m or 2h, not '" + text + "'", ExitCode::bad_input);
  }
  const double seconds = number * scale;
  if (seconds < 1 || seconds > 366.0 * 24 * 3600) {
    throw Error(option + ": expected a duration from 1 s to a year, not '" + text + "'", ExitCode::bad_input);
  }
  return seconds;
}

std::string duration_text(double seconds) {
  const long total = std::lround(seconds);
  char text[48];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%ld h %02ld min", total / 3600, total / 60 % 60);
  } else if (total >= 60) {
    std::snprintf(text, sizeof text, "%ld min %02ld s", total / 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld s", total);
  }
  return text;
}

}  // namespace envbisect
