#!/usr/bin/env bash
# With --isolation podman (runc, --network none, the environment committed as an image layer), a
# candidate sees neither the host python's site-packages, nor another candidate's cache folder, nor
# the network. Exits 125 when podman cannot run containers here.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/isolation_lib/scenario.bash"
need podman podman
need runc runc
printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' \
  >"$T/containers.conf"
mkdir -p "$T/skel/usr"
for link in bin lib lib64; do ln -s "usr/$link" "$T/skel/$link"; done
tar -C "$T/skel" -cf "$T/skel.tar" .
CONTAINERS_CONF="$T/containers.conf" podman import -q "$T/skel.tar" localhost/envbisect-probe:test >/dev/null 2>&1 &&
  CONTAINERS_CONF="$T/containers.conf" podman run --rm --network none -v /usr:/usr:ro \
    localhost/envbisect-probe:test /usr/bin/true >/dev/null 2>&1 ||
  skip "podman cannot run a container here (see MACHINE-NOTES: runc and a containers.conf are needed)"
CONTAINERS_CONF="$T/containers.conf" podman rmi -f localhost/envbisect-probe:test >/dev/null 2>&1 || true
podman images --format '{{.Repository}}:{{.Tag}}' | sort >"$T/images-before"
isolation_scenario podman
# Each environment (good and bad) became one committed layer image; they are this test's, so removed.
podman images --format '{{.Repository}}:{{.Tag}}' | sort >"$T/images-after"
comm -13 "$T/images-before" "$T/images-after" | grep '^localhost/envbisect-layer:' >"$T/new-layers"
[[ $(wc -l <"$T/new-layers") -eq 2 ]]
CONTAINERS_CONF="$T/containers.conf" xargs podman rmi -f <"$T/new-layers" >/dev/null
