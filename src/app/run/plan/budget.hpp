#pragma once

#include <chrono>
#include <string>

namespace envbisect {

// Return the seconds `text` names: a positive number with an optional unit s, m or h ("90s", "30m",
// "2h", "1.5h"; no unit: seconds). Throw Error (bad_input) naming `option` for anything else.
double parse_duration(const std::string& text, const std::string& option);

// Return a duration for people: "45 s", "12 min 05 s", "2 h 03 min".
std::string duration_text(double seconds);

// The wall time one session of a run may spend (--budget), counted from its construction.
class Budget {
public:
  // Start counting; `seconds` <= 0 means no limit.
  explicit Budget(double seconds) : m_seconds(seconds), m_started(std::chrono::steady_clock::now()) {}

  // Return whether there is a limit.
  bool limited() const { return m_seconds > 0; }

  // Return the limit in seconds (0: none).
  double seconds() const { return m_seconds; }

  // Return the seconds spent since the session started.
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
  }

  // Return whether a step expected to take `cost` seconds still ends within the limit.
  bool fits(double cost) const { return !limited() || elapsed() + cost <= m_seconds; }

private:
  double m_seconds;
  std::chrono::steady_clock::time_point m_started;
};

}  // namespace envbisect
