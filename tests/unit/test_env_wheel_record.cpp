#include "env/wheel_record.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "util/strings.hpp"

using envbisect::parse_record;
using envbisect::record_problems;
using envbisect::RecordLookup;
using envbisect::RecordRow;

namespace {

// sha256 of "x\n" in RECORD's encoding and in hex.
// python3 -c 'import hashlib, base64; d = hashlib.sha256(b"x\n").digest(); print(d.hex(),
// base64.urlsafe_b64encode(d).rstrip(b"="))'
const std::string k_x_b64 = "c8s4WKaHqElMozIwUwFigvPa051Cz2LKTnndoqrH2aw";

std::string hex_of_x() { return "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac"; }

// A lookup over files held in memory: path -> (sha256 hex, size).
RecordLookup lookup_of(const std::map<std::string, std::pair<std::string, std::uint64_t>>& files) {
  RecordLookup lookup;
  lookup.digest_hex = [files](const std::string& path, const std::string& algorithm) -> std::optional<std::string> {
    REQUIRE(algorithm == "sha256");
    return files.at(path).first;
  };
  lookup.size = [files](const std::string& path) { return files.at(path).second; };
  return lookup;
}

}  // namespace

TEST_CASE("parse_record reads RECORD as Python's csv module writes it", "[env][record]") {
  const std::vector<RecordRow> rows = parse_record("p/__init__.py,sha256=" + k_x_b64 + ",2\r\n"
                                                   "\"p/a,b.py\",sha256=" + k_x_b64 + ",2\n"
                                                   "\"p/say \"\"hi\"\".py\",,\n"
                                                   "\n"
                                                   "p-1.dist-info/RECORD,,\n",
                                                   "p-1.dist-info/RECORD");
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].path == "p/__init__.py");
  CHECK(rows[0].algorithm == "sha256");
  CHECK(rows[0].digest_hex == hex_of_x());
  CHECK(rows[0].size == "2");
  CHECK(rows[1].path == "p/a,b.py");
  CHECK(rows[2].path == "p/say \"hi\".py");
  CHECK(rows[2].algorithm.empty());
  CHECK(rows[3].line == 5);
}

TEST_CASE("parse_record names the line that is not a RECORD line", "[env][record]") {
  auto message = [](const std::string& text) {
    try {
      parse_record(text, "p-1.dist-info/RECORD");
    } catch (const envbisect::Error& e) {
      CHECK(e.code() == envbisect::ExitCode::bad_input);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message("a,,\n\"b,sha256=x,1\n") == "p-1.dist-info/RECORD line 2: not a RECORD line (path,algorithm=digest,size)");
  CHECK(message("a,sha256,1\n") == "p-1.dist-info/RECORD line 1: the hash 'sha256' is not algorithm=digest");
  CHECK(message("a,sha256=no+slash/,1\n") == "p-1.dist-info/RECORD line 1: the digest of a is not URL-safe base64");
  CHECK(message("a,b,c,d\n") == "p-1.dist-info/RECORD line 1: not a RECORD line (path,algorithm=digest,size)");
}

TEST_CASE("record_problems: a RECORD that matches its files has none", "[env][record]") {
  const auto rows = parse_record("p/__init__.py,sha256=" + k_x_b64 + ",2\np/__pycache__/m.cpython-311.pyc,,\n"
                                 "p-1.dist-info/RECORD,,\n", "R");
  const auto lookup = lookup_of({{"p/__init__.py", {hex_of_x(), 2}}, {"p/__pycache__/m.cpython-311.pyc", {"ff", 9}},
                                 {"p-1.dist-info/RECORD", {"ee", 1}}});
  CHECK(record_problems(rows, "p-1.dist-info",
                        {"p/__init__.py", "p/__pycache__/m.cpython-311.pyc", "p-1.dist-info/RECORD"}, lookup)
            .empty());
}

TEST_CASE("record_problems names a changed, a resized, an added and a removed file", "[env][record]") {
  const auto rows = parse_record("p/__init__.py,sha256=" + k_x_b64 + ",2\n"
                                 "p/sized.py,sha256=" + k_x_b64 + ",3\n"
                                 "p/gone.py,sha256=" + k_x_b64 + ",2\n"
                                 "p/nohash.py,,\n"
                                 "p/weak.py,md5=" + k_x_b64.substr(0, 22) + ",2\n"
                                 "p-1.dist-info/RECORD,,\n", "R");
  const auto lookup = lookup_of({{"p/__init__.py", {std::string(64, '0'), 2}}, {"p/sized.py", {hex_of_x(), 2}},
                                 {"p/extra.py", {"aa", 1}}, {"p/nohash.py", {"bb", 1}}, {"p/weak.py", {"cc", 2}},
                                 {"p-1.dist-info/RECORD", {"ee", 1}}, {"p-1.dist-info/RECORD.jws", {"dd", 1}}});
  const std::vector<std::string> problems = record_problems(
      rows, "p-1.dist-info",
      {"p/__init__.py", "p/sized.py", "p/extra.py", "p/nohash.py", "p/weak.py", "p-1.dist-info/RECORD",
       "p-1.dist-info/RECORD.jws"},
      lookup);
  CHECK(problems == std::vector<std::string>{
                        "p/__init__.py: its sha256 is 0000000000000000..., RECORD says 73cb3858a687a849...",
                        "p/sized.py: 2 bytes, RECORD says 3",
                        "p/gone.py: in RECORD but not in the wheel",
                        "p/weak.py: hashed with md5 (a wheel's RECORD takes sha256 or stronger)",
                        "p/extra.py: not in RECORD",
                        "p/nohash.py: in RECORD without a hash"});
}

TEST_CASE("record_problems checks nothing against a RECORD without hashes", "[env][record]") {
  // Hand-made wheels list their files without hashes, or not at all: such a RECORD claims nothing.
  const auto rows = parse_record("p/__init__.py,,\n", "R");
  CHECK(record_problems(rows, "p-1.dist-info", {"p/__init__.py", "p/other.py"}, lookup_of({})).empty());
  CHECK(record_problems({}, "p-1.dist-info", {"p/__init__.py"}, lookup_of({})).empty());
}

TEST_CASE("record_problems skips files not kept and compiled bytecode", "[env][record]") {
  const auto rows = parse_record("p/__init__.py,sha256=" + k_x_b64 + ",2\n"
                                 "p-1.data/odd/x,sha256=" + k_x_b64 + ",2\n"
                                 "p/__pycache__/m.cpython-311.pyc,sha256=" + k_x_b64 + ",2\n", "R");
  RecordLookup lookup = lookup_of({{"p/__init__.py", {hex_of_x(), 2}}, {"p/__pycache__/m.cpython-311.pyc", {"ff", 5}}});
  const auto inner = lookup.digest_hex;
  lookup.digest_hex = [inner](const std::string& path, const std::string& algorithm) -> std::optional<std::string> {
    if (path.rfind("p-1.data/", 0) == 0) {
      return std::nullopt;
    }
    return inner(path, algorithm);
  };
  CHECK(record_problems(rows, "p-1.dist-info", {"p/__init__.py", "p-1.data/odd/x", "p/__pycache__/m.cpython-311.pyc"},
                        lookup)
            .empty());
}

TEST_CASE("record_line quotes as Python's csv module does, and parse_record reads it back", "[env][record]") {
  CHECK(envbisect::record_line("p/__init__.py", "sha256=" + k_x_b64, "2") == "p/__init__.py,sha256=" + k_x_b64 + ",2\n");
  CHECK(envbisect::record_line("p/a,b.py", "", "") == "\"p/a,b.py\",,\n");
  CHECK(envbisect::record_line("p/say \"hi\".py", "", "") == "\"p/say \"\"hi\"\".py\",,\n");
  const auto rows = parse_record(envbisect::record_line("p/a,b.py", "sha256=" + k_x_b64, "2") +
                                     envbisect::record_line("p/say \"hi\".py", "", ""),
                                 "R");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].path == "p/a,b.py");
  CHECK(rows[0].hash == "sha256=" + k_x_b64);
  CHECK(rows[0].digest_hex == hex_of_x());
  CHECK(rows[1].path == "p/say \"hi\".py");
}

TEST_CASE("lines_of splits on newlines, drops a carriage return before one, keeps blank lines", "[env][record]") {
  CHECK(envbisect::lines_of("a\r\n\nb") == std::vector<std::string>{"a", "", "b"});
  CHECK(envbisect::lines_of("a\n") == std::vector<std::string>{"a"});
  CHECK(envbisect::lines_of("").empty());
}

TEST_CASE("wheel_version_problem accepts 1.x and names any other Wheel-Version", "[env][record]") {
  CHECK(envbisect::wheel_version_problem("Wheel-Version: 1.0\r\nRoot-Is-Purelib: true\r\n").empty());
  CHECK(envbisect::wheel_version_problem("Root-Is-Purelib: true\nWheel-Version: 1.9\n").empty());
  CHECK(envbisect::wheel_version_problem("Wheel-Version: 2.0\n") ==
        "says Wheel-Version 2.0; pip and uv install wheels of version 1.x only");
  CHECK(envbisect::wheel_version_problem("Root-Is-Purelib: true\n") ==
        "says no Wheel-Version; pip and uv install wheels of version 1.x only");
}
