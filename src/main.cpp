#include "cli/cli.hpp"

// Forward to the command line layer; it alone turns an Error into an exit code.
int main(int argc, char** argv) { return envbisect::cli_main(argc, argv); }
