#include "cli/cli.hpp"

// Forward to the command line layer; it is the only place that catches errors.
int main(int argc, char** argv) { return envbisect::cli_main(argc, argv); }
