#include <catch2/catch.hpp>

#include <string>

#include "app/run/plan/budget.hpp"
#include "util/error.hpp"

namespace envbisect {

TEST_CASE("parse_duration reads seconds, minutes and hours", "[app][budget]") {
  struct Case {
    std::string text;
    double seconds;
  };
  for (const Case& c : {Case{"90s", 90}, Case{"90", 90}, Case{"30m", 1800}, Case{"2h", 7200}, Case{"1.5h", 5400},
                        Case{"1s", 1}}) {
    INFO(c.text);
    CHECK(parse_duration(c.text, "--budget") == c.seconds);
  }
}

TEST_CASE("parse_duration refuses what is not a positive duration, naming the option", "[app][budget]") {
  for (const std::string text : {"", "m", "30 m", "30min", "-5m", "0s", "1d", "inf", "nan", "+3s",
                                 // below a second, past a year (1e19 s overflowed into a negative budget), hex
                                 "0.5s", "1e19s", "99999999999999999999h", "0x10"}) {
    INFO(text);
    try {
      parse_duration(text, "--budget");
      FAIL("accepted " + text);
    } catch (const Error& error) {
      CHECK(error.code() == ExitCode::bad_input);
      CHECK(std::string(error.what()).find("--budget") == 0);
    }
  }
}

TEST_CASE("a budget fits a step only while the elapsed time plus its cost stays within it", "[app][budget]") {
  const Budget none(0);
  CHECK_FALSE(none.limited());
  CHECK(none.fits(1e9));
  const Budget hour(3600);
  CHECK(hour.limited());
  CHECK(hour.fits(3000));
  CHECK_FALSE(hour.fits(3601));
}

}  // namespace envbisect
