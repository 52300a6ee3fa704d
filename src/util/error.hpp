#pragma once

#include <stdexcept>
#include <string>

namespace envbisect {

// Exit codes documented in README.md; every error maps to one of them.
enum class ExitCode : int {
  ok = 0,
  inconclusive = 1,   // the run finished but could not isolate a cause
  bad_input = 2,      // invalid arguments, state files or recipes; nothing was done
  indistinct = 3,     // good and bad anchors cannot be told apart
  environment = 4,    // the harness itself could not work (missing tool, unwritable dir, ...)
  interrupted = 130,  // stopped by a signal; the run directory can be resumed
};

// The one exception type: a message written for the user, naming the thing that is wrong.
class Error : public std::runtime_error {
public:
  // Construct an error with a user-facing message and the exit code it maps to.
  explicit Error(const std::string& message, ExitCode code = ExitCode::bad_input)
      : std::runtime_error(message), m_code(code) {}

  // Return the exit code this error maps to.
  ExitCode code() const { return m_code; }

private:
  ExitCode m_code;
};

}  // namespace envbisect
