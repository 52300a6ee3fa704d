#pragma once

#include <string>

#include "core/marker.hpp"
#include "core/wheel_name.hpp"

namespace envbisect {

// Return how well a wheel's tags fit a standard (not debug, not free-threaded) CPython python_version on
// Linux (machine, glibc) in `environment`, as pip and uv rank them: -1 when neither would install it
// there (another interpreter, a debug "cp311d" or free-threaded "cp313t" ABI, musllinux, a manylinux
// glibc newer than the target's); otherwise higher is preferred, in pip's and uv's order: the
// interpreter and ABI first (`cpXY` ABI, then `abi3`, then `none` with a platform, then `pyXY`/`pyX`
// with a platform, then `any`), and among those the newest manylinux glibc that fits, linux_<machine>
// last. Compressed tag sets ("py2.py3", "manylinux2014_x86_64.manylinux_2_17_x86_64") count as their
// best member. Without python_version in `environment` (MarkerEnvironment{}: any interpreter) every
// python and ABI tag is accepted and only the platform is checked and ranked.
long wheel_tag_score(const WheelName& wheel, const MarkerEnvironment& environment);

// Return a one-line reason why `wheel` does not fit `environment` ("built for cp313, the interpreter is
// CPython 3.12"; "built for platform manylinux_2_39_x86_64 (needs glibc 2.39), the target is Linux
// x86_64 with glibc 2.36"), for messages that list the wheels offered and not taken; "" when it fits.
std::string wheel_misfit_reason(const WheelName& wheel, const MarkerEnvironment& environment);

}  // namespace envbisect
