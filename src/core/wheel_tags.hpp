#pragma once

#include <string>

#include "core/marker.hpp"
#include "core/wheel_name.hpp"

namespace envbisect {

// Return how well a wheel's tags fit CPython python_version on Linux (machine, glibc) in `environment`,
// as pip and uv rank them: -1 when it cannot be installed there; otherwise higher is preferred (a
// platform wheel over `any`, the newest manylinux glibc that fits, `cpXY` ABI over `abi3` over `none`,
// `cpXY` over `py3`). Compressed tag sets ("py2.py3", "manylinux2014_x86_64.manylinux_2_17_x86_64")
// count as their best member.
long wheel_tag_score(const WheelName& wheel, const MarkerEnvironment& environment);

// Return a one-line reason why `wheel` does not fit `environment` ("needs cp313, the interpreter is
// 3.12"), for messages that list the wheels a lock offered; "" when it fits.
std::string wheel_misfit_reason(const WheelName& wheel, const MarkerEnvironment& environment);

}  // namespace envbisect
