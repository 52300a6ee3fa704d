#include <catch2/catch.hpp>

#include "env/index_source.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {

IndexFile file_named(const std::string& name, const std::string& sha = "") {
  IndexFile file;
  file.filename = name;
  file.url = "http://h/f/" + name;
  file.sha256 = sha;
  return file;
}

const std::string k_a = std::string(64, 'a');
const std::string k_b = std::string(64, 'b');

}  // namespace

TEST_CASE("the exact build is chosen, local label included, the best fitting wheel first", "[index]") {
  const std::vector<IndexFile> files = {
      file_named("torch-2.11.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"),
      file_named("torch-2.11.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl"),
      file_named("torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_aarch64.whl"),
      file_named("torch-2.11.0+cu130-py3-none-any.whl"),
      file_named("torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"),
  };
  const IndexChoice choice = choose_index_file(files, "torch", "2.11.0+cu130", "3.12", WheelPin{});
  REQUIRE(choice.found);
  CHECK(choice.file.filename == "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  const IndexChoice plain = choose_index_file(files, "torch", "2.11.0", "3.12", WheelPin{});
  CHECK_FALSE(plain.found);
  CHECK(plain.reason.find("not on the index (versions listed: 2.11.0+cu128, 2.11.0+cu130)") != std::string::npos);
}

TEST_CASE("when no wheel fits, each wheel's misfit is said", "[index]") {
  const std::vector<IndexFile> files = {file_named("torch-2.11.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl"),
                                        file_named("torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_aarch64.whl")};
  const IndexChoice choice = choose_index_file(files, "torch", "2.11.0+cu130", "3.12", WheelPin{});
  REQUIRE_FALSE(choice.found);
  CHECK(choice.reason.find("no wheel fits CPython 3.12") != std::string::npos);
  CHECK(choice.reason.find("cp313-cp313-manylinux_2_28_x86_64.whl: ") != std::string::npos);
  CHECK(choice.reason.find("aarch64.whl: ") != std::string::npos);
  const IndexChoice sdist = choose_index_file({file_named("torch-2.11.0.tar.gz")}, "torch", "2.11.0", "3.12", WheelPin{});
  CHECK(sdist.reason.find("only a source distribution") != std::string::npos);
}

TEST_CASE("a pin's sha256 and file name choose among the index's files", "[index]") {
  const std::vector<IndexFile> files = {file_named("a-1.0-py3-none-any.whl", k_a), file_named("a-1.0-py2.py3-none-any.whl", k_b)};
  const IndexChoice by_hash = choose_index_file(files, "a", "1.0", "3.11", WheelPin{"", k_b});
  REQUIRE(by_hash.found);
  CHECK(by_hash.file.filename == "a-1.0-py2.py3-none-any.whl");
  const IndexChoice by_name = choose_index_file(files, "a", "1.0", "3.11", WheelPin{"/x/a-1.0-py3-none-any.whl", ""});
  REQUIRE(by_name.found);
  CHECK(by_name.file.sha256 == k_a);
  const IndexChoice none = choose_index_file(files, "a", "1.0", "3.11", WheelPin{"", std::string(64, 'c')});
  CHECK_FALSE(none.found);
  CHECK(none.reason.find("the state pins " + std::string(64, 'c')) != std::string::npos);
}

TEST_CASE("the package index asks each index once per project, a 404 means the index lacks it", "[index]") {
  std::vector<std::string> asked;
  PageFetcher fetch = [&](const std::string& url) {
    asked.push_back(url);
    HttpPage page;
    page.url = url;
    if (url == "http://u:pw@one/simple/fauxtorch/") {
      page.status = 200;
      page.content_type = "text/html";
      page.body = "<html><a href=\"../../f/fauxtorch-1.0+cu128-py3-none-any.whl#sha256=" + k_a + "\">x</a></html>";
    } else if (url == "http://two/cu130/fauxtorch/") {
      page.status = 200;
      page.content_type = "application/vnd.pypi.simple.v1+json";
      page.body = R"({"meta": {"api-version": "1.0"}, "files": [{"filename": "fauxtorch-1.0+cu130-py3-none-any.whl",
                   "url": "fauxtorch-1.0+cu130-py3-none-any.whl", "hashes": {"sha256": ")" + k_b + R"("}}]})";
    } else {
      page.status = 404;
    }
    return page;
  };
  PackageIndex index(IndexSettings{{"http://u:pw@one/simple", "http://two/cu130/"}, {}, {}}, fetch);
  const auto& files = index.files("FauxTorch");
  REQUIRE(files.size() == 2);
  CHECK(files[0].url == "http://u:pw@one/f/fauxtorch-1.0+cu128-py3-none-any.whl");
  CHECK(files[0].page == "http://<redacted>@one/simple/fauxtorch/");
  CHECK(files[1].url == "http://two/cu130/fauxtorch/fauxtorch-1.0+cu130-py3-none-any.whl");
  CHECK(files[1].sha256 == k_b);
  index.files("fauxtorch");
  CHECK(asked.size() == 2);
  CHECK(index.files("other").empty());
  CHECK(index.pages_for("other") == std::vector<std::string>{"http://<redacted>@one/simple/other/", "http://two/cu130/other/"});
}

TEST_CASE("an index answering an error status is one error naming the page without credentials", "[index]") {
  PageFetcher fetch = [](const std::string& url) {
    HttpPage page;
    page.url = url;
    page.status = 503;
    return page;
  };
  PackageIndex index(IndexSettings{{"https://alice:s3cret@idx/simple/"}, {}, {}}, fetch);
  try {
    index.files("a");
    FAIL("no error");
  } catch (const Error& error) {
    const std::string text = error.what();
    CHECK(text == "https://<redacted>@idx/simple/a/: the index answered HTTP 503");
    CHECK(error.code() == ExitCode::bad_input);
  }
}

TEST_CASE("find-links pages are fetched once and filtered by project", "[index]") {
  int fetched = 0;
  PageFetcher fetch = [&](const std::string& url) {
    ++fetched;
    HttpPage page;
    page.url = url;
    page.status = 200;
    page.content_type = "text/html";
    page.body = "<html><a href=\"a-1.0-py3-none-any.whl\">a</a><a href=\"b-2.0-py3-none-any.whl\">b</a></html>";
    return page;
  };
  PackageIndex index(IndexSettings{{}, {"http://h/wheels/"}, {}}, fetch);
  REQUIRE(index.files("a").size() == 1);
  CHECK(index.files("a")[0].url == "http://h/wheels/a-1.0-py3-none-any.whl");
  REQUIRE(index.files("b").size() == 1);
  CHECK(fetched == 1);
}

TEST_CASE("the builds between two ends are one per public version, the bad end's label first", "[index]") {
  const std::vector<IndexFile> files = {
      file_named("torch-2.9.0+cu128-py3-none-any.whl"),  file_named("torch-2.10.0+cu128-py3-none-any.whl"),
      file_named("torch-2.10.0+cu130-py3-none-any.whl"), file_named("torch-2.10.1-cp313-cp313-manylinux_2_28_x86_64.whl"),
      file_named("torch-2.10.2-py3-none-any.whl"),        file_named("torch-2.11.0+cu130-py3-none-any.whl"),
      file_named("torch-2.12.0+cu130-py3-none-any.whl"),
  };
  const auto up = index_versions_between(files, "torch", "2.9.0+cu128", "2.11.0+cu130", "3.12");
  REQUIRE(up.size() == 2);  // 2.10.1 has no wheel for 3.12
  CHECK(up[0].version == "2.10.0+cu130");
  CHECK(up[0].file.filename == "torch-2.10.0+cu130-py3-none-any.whl");
  CHECK(up[1].version == "2.10.2");
  const auto down = index_versions_between(files, "torch", "2.11.0+cu130", "2.9.0+cu128", "3.12");
  REQUIRE(down.size() == 2);
  CHECK(down[0].version == "2.10.2");
  CHECK(down[1].version == "2.10.0+cu128");
  CHECK(index_versions_between(files, "torch", "2.11.0+cu128", "2.11.0+cu130", "3.12").empty());
}

TEST_CASE("files that tie with the one chosen and may hold other bytes are named", "[index]") {
  // Two indexes listing numpy 2.0 for the same interpreter: with one sha256 it is one build; with
  // two, or none given, the state does not say which it means.
  IndexFile mirror = file_named("numpy-2.0-py3-none-any.whl", k_a);
  mirror.url = "http://mirror/numpy-2.0-py3-none-any.whl";
  IndexFile other = file_named("numpy-2.0-py3-none-any.whl", k_b);
  other.url = "http://other/numpy-2.0-py3-none-any.whl";
  IndexFile unhashed = file_named("numpy-2.0-py3-none-any.whl");
  unhashed.url = "http://plain/numpy-2.0-py3-none-any.whl";
  const IndexFile worse = file_named("numpy-2.0-py2-none-any.whl", k_b);
  const IndexChoice same = choose_index_file({file_named("numpy-2.0-py3-none-any.whl", k_a), mirror, worse}, "numpy",
                                             "2.0", "3.12", WheelPin{});
  REQUIRE(same.found);
  CHECK(same.others.empty());
  const IndexChoice open = choose_index_file({file_named("numpy-2.0-py3-none-any.whl", k_a), other, unhashed}, "numpy",
                                             "2.0", "3.12", WheelPin{});
  REQUIRE(open.found);
  CHECK(open.file.url == "http://h/f/numpy-2.0-py3-none-any.whl");
  CHECK(open.others == std::vector<std::string>{other.url, unhashed.url});
}
