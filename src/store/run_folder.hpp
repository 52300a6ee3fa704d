#pragma once

#include <sys/types.h>

#include <string>

namespace envbisect {

// A run folder is input: anyone who can write it (or hand it over) chooses what its files are. Every
// file of it is opened relative to the folder's descriptor, never through a symbolic link, and only
// when it is a regular file; see docs/RELIABILITY.md ("The run folder is untrusted input").

// Open `name` (one file name, no '/') inside the folder `dir` with `flags` (O_CLOEXEC and O_NOFOLLOW
// are added; `mode` for O_CREAT), refusing a symbolic link anywhere below `dir` (openat2
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, openat with O_NOFOLLOW otherwise) and
// anything but a regular file. Return the descriptor. Throw Error (bad_input) naming the file when it
// is a link or not a regular file, Error (environment) for other failures; ENOENT without O_CREAT
// returns -1.
int open_run_file(const std::string& dir, const std::string& name, int flags, mode_t mode = 0644);

// Split `path` into its folder and file name and call open_run_file.
int open_run_path(const std::string& path, int flags, mode_t mode = 0644);

// Return the whole content of the regular file `path` read through open_run_path ("" when missing).
std::string read_run_path(const std::string& path);

// Check that the run folder `dir` and the envbisect files directly in it may be trusted before a
// command reads them: each is owned by the invoking user, not writable by others, and not a symbolic
// link (the folder itself may be reached through one the user named). Throw Error (bad_input) naming
// the first one that is not.
void check_run_folder_trust(const std::string& dir);

// Make (or take) the folder `name` inside `dir` for writing: refuse a symbolic link or anything but a
// folder owned by the invoking user and not writable by others. Return its path. Throw Error
// (bad_input) naming it.
std::string own_subfolder(const std::string& dir, const std::string& name);

}  // namespace envbisect
