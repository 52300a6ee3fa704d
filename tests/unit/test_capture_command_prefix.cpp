#include "capture/command_prefix.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

using envbisect::apply_command_prefix;
using envbisect::split_command_prefix;
using Words = std::vector<std::string>;

TEST_CASE("split_command_prefix splits words like a shell without expanding anything", "[capture][prefix]") {
  CHECK(split_command_prefix("") == Words{});
  CHECK(split_command_prefix("  env   FOO=1 ") == Words{"env", "FOO=1"});
  CHECK(split_command_prefix("ssh root@host pct exec 200 --") == Words{"ssh", "root@host", "pct", "exec", "200", "--"});
  CHECK(split_command_prefix("env 'A=x y' \"B=\\\"q\\\"\" C=a\\ b") == Words{"env", "A=x y", "B=\"q\"", "C=a b"});
  CHECK(split_command_prefix("a '' b") == Words{"a", "", "b"});
  CHECK(split_command_prefix("x'y'\"z\"") == Words{"xyz"});
  CHECK(split_command_prefix("'$HOME' *") == Words{"$HOME", "*"});
}

TEST_CASE("split_command_prefix rejects unterminated quotes and a trailing backslash", "[capture][prefix]") {
  CHECK_THROWS_AS(split_command_prefix("ssh 'host"), envbisect::Error);
  CHECK_THROWS_AS(split_command_prefix("ssh \"host"), envbisect::Error);
  CHECK_THROWS_WITH(split_command_prefix("ssh host\\"), Catch::Contains("trailing backslash"));
}

TEST_CASE("apply_command_prefix quotes the probe's words once only for ssh", "[capture][prefix]") {
  const Words probe = {"python3", "-c", "print('hi there')", "{\"a\": 1}"};
  CHECK(apply_command_prefix({}, probe) == probe);
  CHECK(apply_command_prefix({"env", "FOO=1"}, probe) ==
        Words{"env", "FOO=1", "python3", "-c", "print('hi there')", "{\"a\": 1}"});
  CHECK(apply_command_prefix({"/usr/bin/ssh", "root@h", "pct", "exec", "200", "--"}, probe) ==
        Words{"/usr/bin/ssh", "root@h", "pct", "exec", "200", "--", "python3", "-c", "'print('\\''hi there'\\'')'",
              "'{\"a\": 1}'"});
}
