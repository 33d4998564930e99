#!/usr/bin/env bash
# The shared servers harness with cardcore's play channel added (see README.md here):
#   bash benchmarks/servers/run.sh OUT_DIR [bench.py options]     # as the shared run.sh:
#   bash benchmarks/servers/run.sh /tmp/srvbench --rounds 5
#   bash benchmarks/servers/run.sh /tmp/srvbench-smoke --smoke --only cc_ws,cc_play,ws_echo,noop_grpc
#   bash benchmarks/servers/run.sh /tmp/x --list
# Copies the shared harness (SHARED, default /work/shared/bench/servers; never written) into a
# fresh temp dir (its node_modules symlinked, or `npm ci` there if the shared one has none),
# lays the overlay over the copy (overlay.py), runs the copy's bench.py as the shared run.sh
# would, and removes the temp dir at the end.
# Needs: the cardcore checkout with its venv (CC, default: this repository; make setup), node >= 20.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHARED=${SHARED:-/work/shared/bench/servers}
OUT=${1:?usage: bash run.sh OUT_DIR [--rounds N] [--max-s S] [--smoke] [--only IDS] [--list]}
shift
CC=${CC:-$(cd "$HERE/../.." && pwd)}   # the project checkout: this repository by default
CC=$(cd "$CC" && pwd)
export PYTHONDONTWRITEBYTECODE=1   # write no __pycache__ into the checkout or the copy
PY="$CC/.venv/bin/python"
export CC_PROTO_ROOT="$CC/proto"   # node_worker.js loads the proto from the checkout
[ -x "$PY" ] || { echo "no cardcore venv at $CC/.venv (set CC=...)" >&2; exit 2; }
command -v node >/dev/null || { echo "node not found" >&2; exit 2; }
[ -f "$SHARED/bench.py" ] || { echo "no shared harness at $SHARED (set SHARED=...)" >&2; exit 2; }
"$PY" -c 'import cardcore_proto.game_service_pb2' 2>/dev/null \
  || { echo "no gRPC stubs in $CC: run make -C $CC proto" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/cardcore-bench-servers.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
find "$SHARED" -mindepth 1 -maxdepth 1 ! -name node_modules -exec cp -r {} "$W"/ \;
chmod -R u+w "$W"
if [ -d "$SHARED/node_modules/boardgame.io" ] && [ -d "$SHARED/node_modules/@colyseus/core" ]; then
  ln -s "$SHARED/node_modules" "$W/node_modules"
else
  (cd "$W" && npm ci --no-audit --no-fund --legacy-peer-deps)
fi
"$PY" "$HERE/overlay.py" "$W"

mkdir -p "$OUT"
"$PY" "$W/bench.py" "$OUT" --cc "$CC" "$@" 2>&1 | tee "$OUT/run.log"
