#include "app/commands/state.hpp"

#include <sys/stat.h>

#include <ostream>

#include <nlohmann/json.hpp>

#include "app/inputs/load.hpp"
#include "capture/git_blob.hpp"
#include "capture/lock_source.hpp"
#include "capture/lockfile.hpp"
#include "core/marker.hpp"
#include "core/state.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect {

ExitCode run_state_from(const StateFromOptions& options, std::ostream& out, std::ostream& err) {
  // Decide the target first: a bad --python is an input error before any file is read.
  if (!options.python.empty()) {
    linux_marker_environment(options.python, options.machine);
  }
  // -o naming the lock itself (or a link to it) would replace the lock with the state.
  struct stat lock_stat {};
  struct stat out_stat {};
  if (!options.out_path.empty() && ::stat(options.lock_path.c_str(), &lock_stat) == 0 &&
      ::stat(options.out_path.c_str(), &out_stat) == 0 && lock_stat.st_dev == out_stat.st_dev &&
      lock_stat.st_ino == out_stat.st_ino) {
    throw Error("--out: " + options.out_path + " is the lock file " + options.lock_path +
                    " itself; writing the state there would replace the lock (give another file)",
                ExitCode::bad_input);
  }

  // The lock's text: the file on disk, or the blob in the repository's history at --at.
  std::string text;
  std::string label = options.lock_path;
  std::string commit;
  if (options.at.empty()) {
    text = read_input_file(options.lock_path);  // regular files only, size-capped
  } else {
    FileAtRevision at = read_file_at_revision(options.lock_path, options.at);
    text = std::move(at.text);
    commit = at.commit;
    label = options.lock_path + " at " + options.at;
  }

  // The interpreter: --python, else the lowest the lock's requires-python admits, else 3.11.
  const LockFormat format = lock_format_of(options.lock_path);
  std::string python = options.python.empty() ? default_python_of(format, text) : options.python;
  if (python.empty()) {
    python = "3.11";
  }
  const MarkerEnvironment target = linux_marker_environment(python, options.machine);

  // Every exact build the lock names for this interpreter, platform and uv selection; the project
  // files beside the lock (default-groups) come from the same revision.
  LockOptions lock_options;
  lock_options.uv = options.uv;
  lock_options.read_beside = [&](const std::string& relative) { return read_file_beside(options.lock_path, options.at, relative); };
  const LockRead read = read_lock(format, text, label, target, lock_options);
  if (read.packages.empty() && read.repos.empty()) {
    // The fix is usually another interpreter: name the ones the lock does have packages for.
    std::vector<std::string> versions;
    for (int minor = 8; minor <= 14; ++minor) {
      const std::string version = "3." + std::to_string(minor);
      if (version != python) {
        const LockRead other = read_lock(format, text, label, linux_marker_environment(version, options.machine), lock_options);
        if (!other.packages.empty() || !other.repos.empty()) {
          versions.push_back(version);
        }
      }
    }
    const std::string hint = versions.empty() ? "check --machine (" + options.machine + ") and the lock's markers"
                                              : "the lock has packages for CPython " + join(versions, ", ") +
                                                    ": add --python " + versions.front();
    throw Error(with_hint(label + ": names no package for CPython " + python + " on Linux " + options.machine, hint),
                ExitCode::bad_input);
  }

  EnvState state;
  state.name = options.name.empty() ? (options.at.empty() ? options.lock_path : options.at) : options.name;
  state.description = "from " + label + (commit.empty() ? "" : " (commit " + commit + ")") + ", for CPython " +
                      python + " on Linux " + options.machine + (read.selection.empty() ? "" : "; " + read.selection);
  state.python.version = python;  // as given: "3.11.7" names the patch release a capture records
  // A lock or freeze names builds, not the machine: the rest is unknown, and beside a state that knows
  // it (a capture) takes that state's value. The version too, when neither --python nor the file gave it.
  state.unknown = {"python/interpreter", "caches", "threads", "env", "data", "gpus", "container"};
  if (options.python.empty() && default_python_of(format, text).empty()) {
    state.unknown.insert("python/version");
  }
  for (const LockedPackage& package : read.packages) {
    PackagePin pin;
    pin.version = package.version;
    if (!package.wheel.empty()) {
      pin.wheel = package.wheel;
    }
    if (!package.sha256.empty()) {
      pin.sha256 = package.sha256;
    } else if (package.hashes.size() > 1) {
      pin.hashes = package.hashes;  // a requirements line's several files: the wheel taken must be one of them
    }
    state.packages[package.name] = pin;
  }
  // Git and local sources are repositories at a commit: git ones by URL, local folders at the
  // lock's own revision (the working tree's HEAD when read from disk).
  std::vector<std::string> notes = read.notes;
  std::size_t repo_count = 0;
  for (const LockedRepo& repo : read.repos) {
    if (repo.kind == "project") {
      notes.push_back(repo.name + " (" + repo.path + "): the project itself, left out (what the job runs, not an installed build)");
      continue;
    }
    ++repo_count;
    state.repos[repo.name] = repo_pin_of(repo, options.lock_path, commit.empty() ? "HEAD" : commit,
                                         options.out_path.empty() ? "." : parent_dir(options.out_path));
  }
  // The state must load back exactly as written; anything else is our bug, caught here.
  const std::string json_text = state_to_json(state).dump(2) + "\n";
  parse_state(json_text, label);

  for (const std::string& note : notes) {
    if (!options.quiet) {
      err << "envbisect: " << escape_control_lines(note) << "\n";
    }
  }
  if (!options.quiet) {
    err << "envbisect: " << read.packages.size() << " package" << (read.packages.size() == 1 ? "" : "s") << " and "
        << repo_count << " repo" << (repo_count == 1 ? "" : "s") << " from " << escape_control(label)
        << (commit.empty() ? "" : " (commit " + escape_control(commit) + ")") << " for CPython " << escape_control(python)
        << (read.selection.empty() ? "" : " (" + escape_control(read.selection) + ")") << "\n";
  }
  if (options.out_path.empty()) {
    out << json_text;
  } else {
    make_dirs(parent_dir(options.out_path));
    write_file_atomic(options.out_path, json_text);
  }
  return ExitCode::ok;
}

}  // namespace envbisect
