#include "app/inputs/load.hpp"

#include <filesystem>
#include <iostream>

#include "core/json_input.hpp"
#include "env/git_checkout.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

EnvState load_state_file(const std::string& path) {
  EnvState state = parse_state(read_input_file(path), path);
  state.base_dir = parent_dir(path);
  // A container base that names a folder beside the state is a rootfs: made absolute. Otherwise it
  // is an image name and stays as written.
  if (!state.container.base.empty() && std::filesystem::is_directory(absolute_path(state.container.base, state.base_dir))) {
    state.container.base = absolute_path(state.container.base, state.base_dir);
  }
  for (auto& [name, repo] : state.repos) {
    if (!repo.path.empty()) {
      repo.path = absolute_path(repo.path, state.base_dir);
    }
  }
  // A captured cache directory is found like a repository: beside the state, not the current folder.
  for (auto& [name, cache] : state.caches) {
    if (cache.state != "cold" && cache.state != "warm") {
      cache.state = absolute_path(cache.state, state.base_dir);
    }
  }
  return state;
}

Recipe load_recipe_file(const std::string& path, Deterministic deterministic) {
  Recipe recipe = parse_recipe(read_input_file(path), path, deterministic);
  recipe.base_dir = parent_dir(path);
  return recipe;
}

namespace {

// Resolve one repo pin's commit to its full id, keeping a ref the state wrote; throw Error when the
// repository lacks it.
void resolve_repo_pin(RepoPin& repo) {
  const std::string id = resolve_commit(repo.path, repo.commit);
  if (repo.commit != id && repo.ref.empty()) {
    repo.ref = repo.commit;
  }
  repo.commit = id;
}

}  // namespace

std::set<std::string> resolve_present_repo_refs(EnvState& state) {
  std::set<std::string> as_written;
  for (auto& [name, repo] : state.repos) {
    std::error_code error;
    if (!std::filesystem::is_directory(repo.path, error)) {
      as_written.insert(name);
      continue;
    }
    try {
      resolve_repo_pin(repo);
    } catch (const Error&) {
      as_written.insert(name);  // shown as written: a diff does not need the repository
    }
  }
  return as_written;
}

namespace {

// Record a problem when `name` of a placeholder family is missing from the state.
template <typename Map>
void require_key(const Map& map, const std::string& section, const std::string& placeholder, const std::string& key,
                 const std::string& recipe_path, Problems& problems) {
  if (map.count(key) == 0) {
    problems.add("/" + section + "/" + pointer_token(key),
                 "missing; the recipe " + recipe_path + " uses {" + placeholder + "." + key + "}");
  }
}

void check_state_against_recipe(const EnvState& state, const Recipe& recipe, const std::string& recipe_path,
                                Problems& problems) {
  for (const std::string& name : recipe_placeholders(recipe)) {
    std::size_t dot = name.find('.');
    if (dot == std::string::npos) {
      continue;
    }
    std::string family = name.substr(0, dot);
    std::string key = name.substr(dot + 1);
    if (family == "threads") {
      require_key(state.threads, "threads", "threads", key, recipe_path, problems);
    } else if (family == "data") {
      require_key(state.data, "data", "data", key, recipe_path, problems);
    } else if (family == "cache") {
      require_key(state.caches, "caches", "cache", key, recipe_path, problems);
    } else if (family == "repo") {
      require_key(state.repos, "repos", "repo", key, recipe_path, problems);
    }
    // {env.NAME} and {package.NAME} may be absent in one state (added or removed): they expand to "".
  }
}

}  // namespace

void check_run_inputs(EnvState& good, const std::string& good_path, EnvState& bad,
                      const std::string& bad_path, const Recipe& recipe, const std::string& recipe_path,
                      const std::vector<std::string>& wheel_dirs) {
  Problems problems(recipe_path);
  Problems good_problems(good_path);
  Problems bad_problems(bad_path);
  check_state_against_recipe(good, recipe, recipe_path, good_problems);
  check_state_against_recipe(bad, recipe, recipe_path, bad_problems);
  for (const std::string& dir : wheel_dirs) {
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) {
      Problems wheels("--wheels " + dir);
      wheels.add("", "not a readable directory");
      problems.absorb(wheels);
    }
  }
  for (auto [state, state_problems] : {std::pair{&good, &good_problems}, std::pair{&bad, &bad_problems}}) {
    for (auto& [name, repo] : state->repos) {
      std::error_code error;
      if (repo.path.empty()) {
        state_problems->add("/repos/" + pointer_token(name) + "/path",
                            "missing: clone " + repo.url + " and give its folder as path");
        continue;
      }
      if (!std::filesystem::is_directory(repo.path, error)) {
        state_problems->add("/repos/" + pointer_token(name) + "/path", repo.path + " is not a directory");
        continue;
      }
      // The commit must be in the repository now, not when its checkout is first needed mid-run. A tag,
      // branch or revision is resolved here, once: from now on the full id is what counts, the ref beside it.
      try {
        // A name that is both a tag and a branch (say) means the first in git's order, as in git;
        // git warns, and so does this.
        if (const std::string meanings = ambiguous_ref(repo.path, repo.commit); !meanings.empty()) {
          std::cerr << "envbisect: warning: " << (state == &good ? good_path : bad_path) << ": /repos/"
                    << pointer_token(name) << "/commit: '" << repo.commit << "' is ambiguous in " << repo.path
                    << ": " << meanings << "; the first is used, as git does (write the full name to choose)\n";
        }
        resolve_repo_pin(repo);
      } catch (const Error& unresolved) {
        state_problems->add("/repos/" + pointer_token(name) + "/commit", unresolved.what());
      }
    }
  }
  // A captured cache directory is copied into every attempt: it must be a folder, and not the root.
  for (auto [state, state_problems] : {std::pair{&good, &good_problems}, std::pair{&bad, &bad_problems}}) {
    for (const auto& [name, cache] : state->caches) {
      if (cache.state == "cold" || cache.state == "warm") {
        continue;
      }
      std::error_code error;
      const std::string pointer = "/caches/" + pointer_token(name) + "/state";
      if (!std::filesystem::is_directory(cache.state, error)) {
        state_problems->add(pointer, cache.state + " is not a directory (a captured cache is copied into each run)");
      } else if (std::filesystem::canonical(cache.state, error) == "/") {
        state_problems->add(pointer, "the root folder cannot be a captured cache (it would be copied into each run)");
      }
    }
  }
  good_problems.absorb(bad_problems);
  good_problems.absorb(problems);
  good_problems.throw_if_any();
}

void check_store_dir(const std::string& store_dir) {
  if (store_dir.empty()) {
    return;
  }
  // The store is made on first use, mid-run: a path that cannot become a folder is refused before
  // anything is written (the nearest existing ancestor must be a folder).
  std::filesystem::path path = std::filesystem::absolute(store_dir);
  std::error_code error;
  while (!path.empty() && !std::filesystem::exists(path, error)) {
    if (path == path.parent_path()) {
      break;
    }
    path = path.parent_path();
  }
  if (!std::filesystem::is_directory(path, error)) {
    throw Error("--store " + store_dir + ": " + path.string() + " is not a directory", ExitCode::bad_input);
  }
}

}  // namespace envbisect
