#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/recipe.hpp"
#include "core/state.hpp"

namespace envbisect {

// Read and validate a state file; repo paths become absolute against the file's folder.
// Throw Error (bad_input) naming the file and every problem in it.
EnvState load_state_file(const std::string& path);

// Read and validate a recipe file; its folder becomes {recipe_dir}. Throw Error naming every problem.
Recipe load_recipe_file(const std::string& path, Deterministic deterministic = Deterministic::no);

// Resolve the commit of each repo whose repository is present here to its full id, the text written
// kept as the pin's ref; a repo absent here, or lacking the commit, stays as written. Return the
// names of the repos that stayed as written.
std::set<std::string> resolve_present_repo_refs(EnvState& state);

// Check that the recipe's placeholders can be filled for both states and that the wheel folders
// exist, and resolve each repo's commit (a tag, branch or revision) to its full id, keeping what the
// state wrote as the pin's ref; throw one Error listing every problem (file, field, what is missing).
void check_run_inputs(EnvState& good, const std::string& good_path, EnvState& bad,
                      const std::string& bad_path, const Recipe& recipe, const std::string& recipe_path,
                      const std::vector<std::string>& wheel_dirs);

// Throw Error (bad input) when `store_dir` ("" for the default) cannot be a folder: it, or the
// nearest part of it that exists, is not a directory.
void check_store_dir(const std::string& store_dir);

}  // namespace envbisect
