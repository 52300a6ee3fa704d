#include <catch2/catch.hpp>

#include <compare>
#include <string>
#include <utility>
#include <vector>

#include "core/version.hpp"

using envbisect::PreKind;
using envbisect::Version;

namespace {

Version v(const std::string& text) {
  std::optional<Version> parsed = Version::parse(text);
  INFO("parsing '" << text << "'");
  REQUIRE(parsed.has_value());
  return *parsed;
}

}  // namespace

TEST_CASE("versions normalise as PEP 440 spells them", "[version]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1.0", "1.0"},
      {"0", "0"},
      {"00", "0"},
      {"09000", "9000"},
      {"1.01.001", "1.1.1"},
      {"1.1RC1", "1.1rc1"},
      {"1.1.a1", "1.1a1"},
      {"1.1-a1", "1.1a1"},
      {"1.1_a1", "1.1a1"},
      {"1.0alpha1", "1.0a1"},
      {"1.0beta2", "1.0b2"},
      {"1.0c1", "1.0rc1"},
      {"1.0pre1", "1.0rc1"},
      {"1.0preview1", "1.0rc1"},
      {"1.0-a-1", "1.0a1"},
      {"1.0a.1", "1.0a1"},
      {"1.2a", "1.2a0"},
      {"1.2b", "1.2b0"},
      {"1.2.post2", "1.2.post2"},
      {"1.2-post2", "1.2.post2"},
      {"1.2_post2", "1.2.post2"},
      {"1.2post2", "1.2.post2"},
      {"1.2.post-2", "1.2.post2"},
      {"1.2.post", "1.2.post0"},
      {"1.2-2", "1.2.post2"},
      {"1.0.0-1", "1.0.0.post1"},
      {"1.0-r4", "1.0.post4"},
      {"1.0rev4", "1.0.post4"},
      {"1.2-dev2", "1.2.dev2"},
      {"1.2dev2", "1.2.dev2"},
      {"1.2.dev", "1.2.dev0"},
      {"1.0a1.post2.dev3", "1.0a1.post2.dev3"},
      {"1.0a1-2", "1.0a1.post2"},
      {"1.0+ubuntu-1", "1.0+ubuntu.1"},
      {"1.0+ubuntu_1", "1.0+ubuntu.1"},
      {"1.0+UBUNTU.1", "1.0+ubuntu.1"},
      {"1.0+foo0100", "1.0+foo0100"},
      {"1.0+0100", "1.0+100"},
      {"2.11.0+cu128", "2.11.0+cu128"},
      {"v1.0", "1.0"},
      {"V1.0", "1.0"},
      {"  1.0\n", "1.0"},
      {"\t1.0rc1 ", "1.0rc1"},
      {"1!1.0", "1!1.0"},
      {"0!1.0", "1.0"},
      {"v2!1.0.POST1.DEV2+Local.7", "2!1.0.post1.dev2+local.7"},
      {"20231231235959", "20231231235959"},
  };
  for (const auto& [input, normalised] : cases) {
    INFO("input '" << input << "'");
    std::optional<Version> parsed = Version::parse(input);
    REQUIRE(parsed.has_value());
    CHECK(parsed->to_string() == normalised);
    // The normalised form parses back to itself.
    CHECK(v(normalised).to_string() == normalised);
  }
}

TEST_CASE("invalid version strings are refused, not guessed", "[version]") {
  const std::vector<std::string> cases = {
      "",          " ",         "v",          "vv1.0",       "a1",         "1.0.",
      ".1",        "1..0",      "1.0-",       "1.0_",        "1.0+",       "1.0+-abc",
      "1.0+abc..1", "1.0+abc-", "1.0+abc+def", "1.0 1",      "1. 0",       "1.0a1b1",
      "1.0a1a2",   "1.0.dev1.post1", "1.0devpost", "1.0-1-1", "1.0-1.post", "1!",
      "!1.0",      "1!2!3",     "1.0.x",      "1.0-x",       "1.0.dev1dev2", "1.0post1post2",
      "1.0+cu128 x", "1.0,2",   "1.0.*",      "==1.0",       "99999999999999999999999", // past 64 bits
      "1.0+abc.99999999999999999999999",
  };
  for (const std::string& input : cases) {
    INFO("input '" << input << "'");
    CHECK_FALSE(Version::parse(input).has_value());
  }
}

TEST_CASE("the parts of a version are exposed", "[version]") {
  const Version version = v("3!1.2.3rc4.post5.dev6+cu128.1");
  CHECK(version.epoch() == 3);
  CHECK(version.release() == std::vector<std::uint64_t>{1, 2, 3});
  REQUIRE(version.pre().has_value());
  CHECK(version.pre()->kind == PreKind::rc);
  CHECK(version.pre()->number == 4);
  CHECK(version.post() == 5u);
  CHECK(version.dev() == 6u);
  CHECK(version.has_local());
  CHECK(version.local() == "cu128.1");
  CHECK(version.public_version() == "3!1.2.3rc4.post5.dev6");
  CHECK(version.is_prerelease());

  const Version plain = v("2.11.0");
  CHECK_FALSE(plain.has_local());
  CHECK(plain.local().empty());
  CHECK(plain.public_version() == "2.11.0");
  CHECK_FALSE(plain.pre().has_value());
  CHECK_FALSE(plain.post().has_value());
  CHECK_FALSE(plain.dev().has_value());
  CHECK_FALSE(plain.is_prerelease());
  CHECK(v("1.0.dev1").is_prerelease());
  CHECK_FALSE(v("1.0.post1").is_prerelease());
  CHECK(Version().to_string() == "0");
}

TEST_CASE("versions sort in PEP 440 order", "[version]") {
  // The spec's example list (each strictly less than the next), extended with epochs and locals.
  const std::vector<std::string> ordered = {
      "0.9",
      "1.0.dev456",
      "1.0a1",
      "1.0a2.dev456",
      "1.0a12.dev456",
      "1.0a12",
      "1.0b1.dev456",
      "1.0b2",
      "1.0b2.post345.dev456",
      "1.0b2.post345",
      "1.0rc1.dev456",
      "1.0rc1",
      "1.0",
      "1.0+abc.5",
      "1.0+abc.7",
      "1.0+5",
      "1.0.post0.dev0",
      "1.0.post456.dev34",
      "1.0.post456",
      "1.0.15",
      "1.1.dev1",
      "1.1",
      "2.11.0",
      "2.11.0+cu128",
      "2.11.0+cu130",
      "10.0",
      "1!0.1",
      "1!1.0",
      "2!0.0.dev0",
  };
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    for (std::size_t j = 0; j < ordered.size(); ++j) {
      INFO("'" << ordered[i] << "' vs '" << ordered[j] << "'");
      CHECK(std::is_lt(v(ordered[i]) <=> v(ordered[j])) == (i < j));
      CHECK((v(ordered[i]) == v(ordered[j])) == (i == j));
    }
  }
}

TEST_CASE("local labels compare segment by segment", "[version]") {
  const std::vector<std::pair<std::string, std::string>> less = {
      {"1.0", "1.0+a"},
      {"1.0+abc", "1.0+abc.1"},     // a prefix sorts first
      {"1.0+abc", "1.0+abd"},       // alphanumeric segments lexically
      {"1.0+2", "1.0+10"},          // numeric segments numerically
      {"1.0+abc", "1.0+1"},         // numeric after alphanumeric
      {"1.0+a.b", "1.0+a.1"},
      {"1.0+cu128", "1.0+cu13"},    // "cu128" is text, so lexical: '2' < '3'
      {"2.11.0+cu128", "2.11.0+cu130"},
      {"2.11.0+cu130", "2.11.1"},
  };
  for (const auto& [a, b] : less) {
    INFO("'" << a << "' < '" << b << "'");
    CHECK(v(a) < v(b));
    CHECK(v(b) > v(a));
    CHECK(v(a) != v(b));
  }
}

TEST_CASE("equal versions in PEP 440 order", "[version]") {
  const std::vector<std::pair<std::string, std::string>> equal = {
      {"1.0", "1.0.0"},
      {"1.0", "1.0.0.0"},
      {"1", "1.0"},
      {"0!1.0", "1.0"},
      {"1.0+abc", "1.0+ABC"},
      {"1.0+01", "1.0+1"},
      {"1.0+ubuntu-1", "1.0+ubuntu.1"},
      {"1.0c1", "1.0rc1"},
      {"1.0-1", "1.0.post1"},
      {"1.0.0a1", "1.0a1"},
  };
  for (const auto& [a, b] : equal) {
    INFO("'" << a << "' == '" << b << "'");
    CHECK(v(a) == v(b));
    CHECK(std::is_eq(v(a) <=> v(b)));
  }
}

TEST_CASE("exact matching follows the == specifier", "[version]") {
  struct Case {
    std::string candidate;
    std::string pin;
    bool matches;
  };
  const std::vector<Case> cases = {
      {"2.11.0+cu130", "2.11.0", true},        // a pin without local matches any local label
      {"2.11.0+cu128", "2.11.0", true},
      {"2.11.0", "2.11.0", true},
      {"2.11.0", "2.11", true},                // zero padding
      {"2.11", "2.11.0", true},
      {"2.11.0+cu130", "2.11.0+cu128", false}, // a pin with local matches only that label
      {"2.11.0", "2.11.0+cu128", false},
      {"2.11.0+cu128", "2.11.0+cu128", true},
      {"2.11.0+CU128", "2.11.0+cu128", true},
      {"2.11.0+cu128", "2.11+cu128", true},
      {"2.11.0rc1", "2.11.0", false},
      {"2.11.0.post1", "2.11.0", false},
      {"2.11.0.dev1", "2.11.0", false},
      {"1!2.11.0", "2.11.0", false},
      {"2.11.1", "2.11.0", false},
  };
  for (const Case& c : cases) {
    INFO("'" << c.candidate << "' matches ==" << c.pin);
    CHECK(v(c.candidate).matches_exact(v(c.pin)) == c.matches);
  }
}
