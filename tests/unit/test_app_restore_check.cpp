#include <catch2/catch.hpp>

#include "app/inputs/restore_check.hpp"
#include "core/state.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {

EnvState state_of(const std::string& torch, bool with_other) {
  return parse_state(std::string(R"({"format": 1, "python": {"version": "3.12"}, "packages": {"fauxtorch": ")") + torch +
                         "\"" + (with_other ? R"(, "other": "1.0")" : "") + "}}",
                     "state.json");
}

// An index whose fauxtorch page lists four builds and which lacks every other project.
PackageIndex scripted_index() {
  PageFetcher fetch = [](const std::string& url) {
    HttpPage page;
    page.url = url;
    page.status = 404;
    if (url == "http://idx/simple/fauxtorch/") {
      page.status = 200;
      page.content_type = "text/html";
      page.body = "<html>";
      for (const char* v : {"2.9.0+cu128", "2.10.0+cu128", "2.10.0+cu130", "2.11.0+cu130"}) {
        page.body += std::string("<a href=\"/f/fauxtorch-") + v + "-py3-none-any.whl#sha256=" + std::string(64, 'a') + "\">x</a>";
      }
      page.body += "</html>";
    }
    return page;
  };
  return PackageIndex(IndexSettings{{"http://idx/simple"}, {}, {}}, fetch);
}

}  // namespace

TEST_CASE("the restore check lists every build no source has, in both states, at once", "[index][restore]") {
  PackageIndex index = scripted_index();
  try {
    check_restore(state_of("2.9.0+cu128", true), "good.json", state_of("2.11.0+cu130", true), "bad.json", WheelSources{},
                  "/nonexistent/downloads", &index);
    FAIL("no error");
  } catch (const Error& error) {
    const std::string text = error.what();
    CHECK(error.code() == ExitCode::bad_input);
    CHECK(text.find("good.json: /packages/other: other==1.0 is in no wheel folder or uv cache") != std::string::npos);
    CHECK(text.find("bad.json: /packages/other: other==1.0") != std::string::npos);
    CHECK(text.find("(looked in http://idx/simple/other/)") != std::string::npos);
    CHECK(text.find("fauxtorch") == std::string::npos);  // it has a source
  }
}

TEST_CASE("offline, the restore check asks no index", "[index][restore]") {
  CHECK_THROWS_WITH(check_restore(state_of("2.9.0+cu128", false), "good.json", state_of("2.11.0+cu130", false), "bad.json",
                                  WheelSources{}, "/nonexistent/downloads", nullptr),
                    Catch::Contains("good.json: /packages/fauxtorch: fauxtorch==2.9.0+cu128 is in no wheel folder or uv cache (no build of fauxtorch at all)"));
}

TEST_CASE("the restore plan names each end's source and the inner builds for refinement", "[index][restore]") {
  PackageIndex index = scripted_index();
  const RestorePlan plan = check_restore(state_of("2.9.0+cu128", false), "good.json", state_of("2.11.0+cu130", false),
                                         "bad.json", WheelSources{}, "/nonexistent/downloads", &index);
  REQUIRE(plan.sources.size() == 2);
  CHECK(plan.sources[0].state_path == "good.json");
  CHECK(plan.sources[0].from_index);
  CHECK(plan.sources[0].where == "index http://idx/f/fauxtorch-2.9.0+cu128-py3-none-any.whl (sha256 " + std::string(64, 'a') + ")");
  CHECK(plan.sources[1].file.filename == "fauxtorch-2.11.0+cu130-py3-none-any.whl");
  REQUIRE(plan.inner.size() == 1);
  CHECK(plan.inner[0].version == "2.10.0+cu130");  // the bad end's flavour of the inner release
  CHECK(plan.download_dirs.empty());
}
