#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace envbisect {

// Run a short cleanup command (a remote kill, `scancel`) to completion or `limit`, even after an
// interrupt: LocalRunner refuses to start anything once SIGINT arrived, but the remote work that the
// interrupt abandoned must still be cancelled. Output goes to /dev/null; return true if it exited 0.
bool run_cleanup_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds limit);

}  // namespace envbisect
