#!/usr/bin/env bash
# Poke a running cardcore server from a shell with `buf curl` and server reflection (no .proto
# files needed): list the services, the catalogue, create a game, submit one action, read the
# view. Usage: clients/node/scripts/buf-curl-smoke.sh [HOST:PORT]   (default 127.0.0.1:50051)
# buf comes from `make setup-node` / `npm ci` at the repository root (npm @bufbuild/buf).
set -euo pipefail
target="${1:-127.0.0.1:50051}"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
buf="${BUF:-$root/node_modules/.bin/buf}"
admin=()
[ -n "${CARDCORE_ADMIN_KEY:-}" ] && admin=(-H "x-cardcore-admin-key: $CARDCORE_ADMIN_KEY")
call() { # METHOD JSON [extra buf flags...]
  local method="$1" data="$2"
  shift 2
  "$buf" curl --protocol grpc --http2-prior-knowledge "$@" -d "$data" \
    "http://$target/cardcore.v1.GameService/$method"
}
field() { # JSON-FIELD: read it from stdin
  python3 -c "import json,sys; print(json.load(sys.stdin)$1)"
}

echo "== services (reflection)"
"$buf" curl --protocol grpc --http2-prior-knowledge --list-services "http://$target"
echo "== ListGames"
call ListGames '{}' | field "['games'][0]['name']" | sed 's/^/first game: /'
echo "== CreateGame (ratscrew, one human seat, one reaction bot)"
created="$(call CreateGame '{"game":"ratscrew","seats":[{"kind":"SEAT_KIND_HUMAN"},{"kind":"SEAT_KIND_REACTION_BOT"}]}' "${admin[@]}")"
game_id="$(printf '%s' "$created" | field "['gameId']")"
token="$(printf '%s' "$created" | field "['seatTokens'][0]['token']")"
echo "game_id: $game_id"
echo "== SubmitAction (seat 0 plays its top card)"
call SubmitAction "{\"gameId\":\"$game_id\",\"actionId\":\"smoke-1\",\"command\":{\"kind\":\"Play\",\"json\":\"{\\\"kind\\\":\\\"Play\\\"}\"}}" \
  -H "authorization: Bearer $token" | field "['entry']['seq']" | sed 's/^/accepted seq: /'
echo "== GetView"
call GetView "{\"gameId\":\"$game_id\"}" -H "authorization: Bearer $token" | field "['seq']" | sed 's/^/view at seq: /'
echo "smoke OK"
