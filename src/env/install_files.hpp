#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace envbisect {

struct StoreEntry;

namespace detail {

// Place every file of the store entry `entry` in the venv at `env_dir` (package files in `site`,
// scripts in bin/, data under the venv), hard-linked from the store and copied when the filesystem
// refuses links; per-install dist-info files (RECORD, INSTALLER, REQUESTED, direct_url.json) are
// never shared. Then write what an installer writes: "#!python" scripts and the console/GUI scripts
// of entry_points.txt with `python` in the shebang, INSTALLER, REQUESTED and the installed RECORD.
// Append to `notes` the overwrites and the switch to copying. Return the number of files placed.
// Throw Error (bad_input) naming the distribution when it would write through or over a link, mix
// a file and a folder of one name, replace the environment's pyvenv.cfg, place a file past the
// system's path length, or name a script badly (script_name_problem); Error (environment) when a
// file cannot be read, linked or written.
std::size_t install_entry(const StoreEntry& entry, const std::string& env_dir, const std::string& site,
                          const std::string& python, std::vector<std::string>& notes);

// Return the text of the console script that calls `reference` ("module:attr [extras]") with the
// interpreter `python`, as pip writes it.
std::string console_script(const std::string& python, const std::string& reference);

// Return the RECORD path, relative to site-packages, of the wheel file `path` once installed: files
// under `data_dir` ("NAME-VERSION.data") in purelib/, platlib/, scripts/ or data/ move to
// site-packages, bin/ or the venv root; other paths are returned unchanged.
std::string installed_record_path(const std::string& path, const std::string& data_dir);


// Return why `name` cannot be a script in the venv folder `bin_dir` ("" when it can): not a plain
// file name ("", ".", "..", a '/'), an interpreter name (python, python3, python3.11, ...), or the
// name of a link bin_dir already has.
std::string script_name_problem(const std::string& bin_dir, const std::string& name);

}  // namespace detail

}  // namespace envbisect
