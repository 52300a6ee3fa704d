#pragma once

#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace envbisect {

// Write the manual page (roff, section 1) of `app`: every visible subcommand with its arguments and options.
void write_man_page(const CLI::App& app, const std::string& version, std::ostream& out);

// Write a completion script for `shell` ("bash" or "zsh") that completes subcommands and their options.
// Throw Error for any other shell.
void write_completion(const CLI::App& app, const std::string& shell, std::ostream& out);

}  // namespace envbisect
