#pragma once

namespace envbisect {

// Parse the command line, run the subcommand and return the process exit code (README "Exit codes").
// The only place that turns an envbisect::Error into an exit code.
int cli_main(int argc, char** argv);

}  // namespace envbisect
