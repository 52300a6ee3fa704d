#include <catch2/catch.hpp>

#include <string>

#include "util/strings.hpp"

using envbisect::display_argv;
using envbisect::escape_control;
using envbisect::escape_control_lines;
using envbisect::shell_quote;

TEST_CASE("shell_quote never prints a raw control byte, and quotes so bash gives the bytes back", "[util][strings]") {
  CHECK(shell_quote("plain/path-1.0+cu130") == "plain/path-1.0+cu130");
  CHECK(shell_quote("two words") == "'two words'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  // Control bytes, C1 controls and invalid UTF-8: bash's $'...' with every such byte as \xHH.
  CHECK(shell_quote("\x1b]0;owned\x07") == "$'\\x1b]0;owned\\x07'");
  CHECK(shell_quote("a\nb") == "$'a\\x0ab'");
  CHECK(shell_quote("red\xc2\x9b" "2J") == "$'red\\xc2\\x9b2J'");
  CHECK(shell_quote("\xff'\\") == "$'\\xff\\'\\\\'");
  CHECK(shell_quote("caf\xc3\xa9\x7f") == "$'caf\xc3\xa9\\x7f'");  // valid UTF-8 stays as it is
  for (const std::string& word : {std::string("\x1b[2J"), std::string("x\x01y"), std::string("\xc2\x85")}) {
    CHECK(escape_control(shell_quote(word)) == shell_quote(word));
  }
  // A variable whose name begins with "-S" stays one quoted word; "--" before it is the caller's.
  CHECK(display_argv({"env", "-i", "--", "-Stouch x=1"}) == "env -i -- '-Stouch x=1'");
}

TEST_CASE("escape_control_lines keeps line breaks and escapes every other control byte", "[util][strings]") {
  CHECK(escape_control_lines("one\ntwo\x1b[31m\n") == "one\ntwo\\x1b[31m\n");
  CHECK(escape_control_lines("tab\there\r") == "tab\\x09here\\x0d");
  CHECK(escape_control_lines("") == "");
}
