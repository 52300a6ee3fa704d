#!/usr/bin/env bash
# With --isolation bwrap, a candidate sees neither the host python's site-packages, nor another
# candidate's cache folder, nor the network (a listener on 127.0.0.1); the same probes without
# isolation see all three.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/isolation_lib/scenario.bash"
need bwrap bubblewrap
bwrap --unshare-all --ro-bind /usr /usr --ro-bind-try /lib64 /lib64 --ro-bind-try /lib /lib -- /usr/bin/true ||
  skip "bwrap cannot create namespaces here"
isolation_scenario bwrap
