#!/usr/bin/env bash
# With --isolation lxc (lxc-execute, an overlay: rootfs over the host's /usr, an empty network), a
# candidate sees neither the host python's site-packages, nor another candidate's cache folder, nor
# the network. Exits 125 when lxc-execute cannot start a container here.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/isolation_lib/scenario.bash"
need lxc-execute lxc
mkdir -p "$T/probe/lower/usr" "$T/probe/upper" "$T/probe/path"
ln -s usr/lib64 "$T/probe/lower/lib64"
ln -s usr/lib "$T/probe/lower/lib"
printf 'lxc.rootfs.path = overlay:%s:%s\nlxc.mount.entry = /usr usr none ro,bind 0 0\nlxc.net.0.type = empty\n' \
  "$T/probe/lower" "$T/probe/upper" >"$T/probe/config"
lxc-execute -P "$T/probe/path" -n "envbisect-probe-$$" -f "$T/probe/config" -- /usr/bin/true >/dev/null 2>&1 ||
  skip "lxc-execute cannot start a container here"
isolation_scenario lxc
