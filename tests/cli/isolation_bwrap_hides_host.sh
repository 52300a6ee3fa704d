#!/usr/bin/env bash
# With --isolation bwrap, a candidate sees neither the host python's site-packages, nor another
# candidate's cache folder, nor the network (a listener on 127.0.0.1); the same probes without
# isolation see all three. Installs bubblewrap when missing.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/isolation_lib/scenario.bash"
if ! command -v bwrap >/dev/null; then
  [[ $(id -u) -eq 0 ]] || skip "bubblewrap is not installed and we are not root"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null 2>&1 ||
    skip "cannot install bubblewrap with apt"
fi
bwrap --unshare-all --ro-bind /usr /usr --ro-bind-try /lib64 /lib64 --ro-bind-try /lib /lib -- /usr/bin/true ||
  skip "bwrap cannot create namespaces here"
isolation_scenario bwrap
