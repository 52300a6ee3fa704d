#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// Return the Levenshtein edit distance between a and b.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Return the candidate closest to `word` within edit distance 2, or "" when none is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// Return the parts joined with `sep`.
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Return `text` quoted for display as one shell word (for logs and printed commands; never executed by
// envbisect): plain words as they are, others in '...', and words with control bytes, C1 controls or
// invalid UTF-8 in bash's $'...' with those bytes as \xHH, so no raw control byte is ever printed.
std::string shell_quote(std::string_view text);

// Return the argv displayed as a shell-like command line (for logs and reports only).
std::string display_argv(const std::vector<std::string>& argv);

// Return true when `text` starts with `prefix`.
bool starts_with(std::string_view text, std::string_view prefix);

// Return `text` with ASCII letters A-Z made lower case, other bytes unchanged (names and hex digests,
// never locale-dependent).
std::string ascii_lower(std::string_view text);

// Return `text` without leading and trailing whitespace.
std::string trim(std::string_view text);

// Return the length (1-4) of the UTF-8 sequence starting at text[i], or 0 when the bytes there are
// not valid UTF-8 (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut off).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Return whether `text` is valid UTF-8 throughout.
bool is_valid_utf8(std::string_view text);

// Return `text` safe to print on a terminal: control characters (C0, DEL, and C1 written in UTF-8)
// and bytes that are not valid UTF-8 become visible escapes ("\x1b", "\x07", "\u009b", "\xff");
// printable ASCII and valid UTF-8 stay as they are. A backslash stays a backslash.
std::string escape_control(std::string_view text);

// Return `text` escaped as escape_control does, line by line: its '\n' line breaks stay (a message of
// several lines), every other control byte is escaped.
std::string escape_control_lines(std::string_view text);

// Return `text` with each "%XX" (two hex digits) replaced by the byte it encodes (RFC 3986); a "%"
// not followed by two hex digits stays as it is. "torch-2.11.0%2Bcu128" -> "torch-2.11.0+cu128".
std::string percent_decode(std::string_view text);

// Return the lines of `text` split on '\n', a '\r' before it dropped; no last empty line for a
// trailing '\n' ("a\r\n\nb" -> {"a", "", "b"}).
std::vector<std::string> lines_of(std::string_view text);

// Return the JSON pointer token escaped per RFC 6901 ("a/b" -> "a~1b").
std::string pointer_token(std::string_view token);

}  // namespace envbisect
