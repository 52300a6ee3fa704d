#include <catch2/catch.hpp>

#include "env/index_page.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {
const std::string k_hash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
}

TEST_CASE("a PEP 503 page lists its anchors with absolute URLs and sha256 fragments", "[index]") {
  const std::string page = "<!DOCTYPE html><html><body>\n"
                           "<a href=\"../../files/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl#sha256=" +
                           k_hash + "\">fauxtorch-2.11.0+cu128-py3-none-any.whl</a><br/>\n"
                           "<A HREF='https://cdn.example/f/fauxtorch-2.10.0-py3-none-any.whl' data-yanked=\"\">x</A>\n"
                           "<abbr>not an anchor</abbr></body></html>";
  const auto files = parse_simple_html(page, "http://127.0.0.1:8000/simple/fauxtorch/", "shown");
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename == "fauxtorch-2.11.0+cu128-py3-none-any.whl");
  CHECK(files[0].url == "http://127.0.0.1:8000/files/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl");
  CHECK(files[0].sha256 == k_hash);
  CHECK_FALSE(files[0].yanked);
  CHECK(files[0].page == "shown");
  CHECK(files[1].url == "https://cdn.example/f/fauxtorch-2.10.0-py3-none-any.whl");
  CHECK(files[1].sha256.empty());
  CHECK(files[1].yanked);
}

TEST_CASE("entities in hrefs are decoded", "[index]") {
  const auto files = parse_simple_html("<html><a href=\"/f/a-1.0-py3-none-any.whl?x=1&amp;y=2\">a</a></html>",
                                       "http://h/simple/a/", "shown");
  REQUIRE(files.size() == 1);
  CHECK(files[0].url == "http://h/f/a-1.0-py3-none-any.whl?x=1&y=2");
  CHECK(files[0].filename == "a-1.0-py3-none-any.whl");
}

TEST_CASE("an HTML page without anchors is an empty project, garbage is an error naming the page", "[index]") {
  CHECK(parse_simple_html("<!doctype html><html><body></body></html>", "http://h/s/a/", "shown").empty());
  try {
    parse_simple_html("\x89PNG garbage, not a page", "http://h/s/a/", "http://h/s/a/");
    FAIL("garbage accepted");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("http://h/s/a/: not a package index page") != std::string::npos);
    CHECK(error.code() == ExitCode::bad_input);
  }
  CHECK_THROWS_WITH(parse_simple_html("<html><a href=\"x.whl\"", "http://h/", "P"), Catch::Contains("never closed"));
  CHECK(parse_simple_html("<html><a name=x>y</a><a href=\"a-1.0-py3-none-any.whl\">a</a>", "http://h/", "P").size() == 1);
  CHECK_THROWS_WITH(parse_simple_html("<html><a href=\"a-1.0-py3-none-any.whl#sha256=abc\">", "http://h/", "P"),
                    Catch::Contains("not 64 hex digits"));
}

TEST_CASE("a PEP 691 JSON page lists files with hashes and yanked flags", "[index]") {
  const std::string page = R"({"meta": {"api-version": "1.1"}, "name": "fauxtorch", "files": [
    {"filename": "fauxtorch-2.11.0+cu130-py3-none-any.whl", "url": "../../f/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl",
     "hashes": {"sha256": ")" + k_hash + R"(", "md5": "00"}},
    {"filename": "fauxtorch-2.9.0-py3-none-any.whl", "url": "https://x/y.whl", "hashes": {}, "yanked": "broken"}]})";
  const auto files = parse_simple_json(page, "http://h:1/simple/fauxtorch/", "shown");
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename == "fauxtorch-2.11.0+cu130-py3-none-any.whl");
  CHECK(files[0].url == "http://h:1/f/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl");
  CHECK(files[0].sha256 == k_hash);
  CHECK(files[1].sha256.empty());
  CHECK(files[1].yanked);
}

TEST_CASE("a PEP 691 page nested past the limit is refused before it is built", "[index]") {
  // 30 million levels once took 2.2 GB in the parser; 4 million show the same: refused at level 129,
  // before any value exists (nlohmann would build every level, and recurse to destroy them).
  const std::string deep = R"({"meta": {"api-version": "1.0"}, "files": )" + std::string(4'000'000, '[');
  CHECK_THROWS_WITH(parse_simple_json(deep, "http://h/", "P"),
                    Catch::Contains("P: not a PEP 691 JSON page") && Catch::Contains("nested deeper than 128 levels"));
  std::string nested = R"({"meta": {"api-version": "1.0"}, "files": [)";
  for (int i = 0; i < 200; ++i) {
    nested += R"({"a": )";
  }
  CHECK_THROWS_WITH(parse_simple_json(nested, "http://h/", "P"), Catch::Contains("/files/0/a/a/a"));
}

TEST_CASE("index pages past the size limit are refused before they are parsed", "[index]") {
  const std::string big(envbisect::k_max_index_page_bytes + 1, ' ');
  CHECK_THROWS_WITH(parse_simple_json(big, "http://h/", "P"), Catch::Contains("larger than"));
  CHECK_THROWS_WITH(parse_simple_html(big, "http://h/", "P"), Catch::Contains("larger than"));
}

TEST_CASE("malformed PEP 691 pages name the field", "[index]") {
  CHECK_THROWS_WITH(parse_simple_json("{not json", "http://h/", "P"), Catch::Contains("P: not a PEP 691 JSON page"));
  CHECK_THROWS_WITH(parse_simple_json(R"({"meta": {"api-version": "2.0"}, "files": []})", "http://h/", "P"),
                    Catch::Contains("/meta/api-version"));
  CHECK_THROWS_WITH(parse_simple_json(R"({"meta": {"api-version": "1.0"}, "files": [{"url": 3}]})", "http://h/", "P"),
                    Catch::Contains("P: /files/0"));
  CHECK_THROWS_WITH(parse_simple_json(R"({"meta": {"api-version": "1.0"}, "files": [{"filename": "a", "url": "a",
                    "hashes": {"sha256": "zz"}}]})", "http://h/", "P"), Catch::Contains("/files/0/hashes/sha256"));
}

TEST_CASE("content types choose the parser", "[index]") {
  CHECK(page_format("application/vnd.pypi.simple.v1+json") == PageFormat::pep691_json);
  CHECK(page_format("Application/VND.pypi.simple.v1+json; charset=utf-8") == PageFormat::pep691_json);
  CHECK(page_format("text/html; charset=utf-8") == PageFormat::html);
  CHECK(page_format("") == PageFormat::html);
}

TEST_CASE("URLs resolve as RFC 3986 says", "[index]") {
  CHECK(resolve_url("http://h/a/b/c", "d") == "http://h/a/b/d");
  CHECK(resolve_url("http://h/a/b/", "../d#x") == "http://h/a/d");
  CHECK(resolve_url("http://h/a/b/", "/d") == "http://h/d");
  CHECK(resolve_url("https://u:p@h/a/", "//cdn/x") == "https://cdn/x");
  CHECK(resolve_url("http://u:p@h:8/a/", "x.whl") == "http://u:p@h:8/a/x.whl");
  CHECK(resolve_url("http://h", "x") == "http://h/x");
  CHECK(resolve_url("http://h/a/", "../../../x") == "http://h/x");
  // A scheme starts with a letter: an href of digits before "https:" is a relative path (found by fuzzing).
  CHECK(resolve_url("http://h/a/", "999https:/cdn/x.whl") == "http://h/a/999https:/cdn/x.whl");
  CHECK(project_page_url("http://h/simple", "Faux_Torch") == "http://h/simple/faux-torch/");
  CHECK(project_page_url("http://h/simple/", "a.b") == "http://h/simple/a-b/");
}

TEST_CASE("shown URLs carry no credentials", "[index]") {
  CHECK(display_url("https://alice:s3cret@idx.example/simple/") == "https://<redacted>@idx.example/simple/");
  CHECK(display_url("https://tok@idx.example/s/x.whl#sha256=1") == "https://<redacted>@idx.example/s/x.whl#sha256=1");
  CHECK(display_url("http://127.0.0.1:8/simple/") == "http://127.0.0.1:8/simple/");
  CHECK(display_url("https://h/x?token=abc").find("abc") == std::string::npos);
  CHECK(display_url("https://h/p@x") == "https://h/p@x");
}
