#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// Split a `--via` command prefix into argv words: whitespace separates words; single quotes keep
// everything literally, double quotes keep everything but `\"` and `\\`, a backslash outside quotes
// escapes the next character. Throw Error (bad_input) on an unterminated quote or trailing backslash.
std::vector<std::string> split_command_prefix(std::string_view text);

// Return `prefix` followed by `argv`. When the prefix runs ssh (its first word's base name is "ssh"),
// each word of `argv` is shell-quoted once, because ssh joins its words into one remote shell line.
std::vector<std::string> apply_command_prefix(const std::vector<std::string>& prefix,
                                              const std::vector<std::string>& argv);

}  // namespace envbisect
