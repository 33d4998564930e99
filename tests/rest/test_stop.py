"""Stopping with REST actions in flight (issue 13 fault 7, the REST half of
tests/service/test_stop.py): an action still waiting when the server stops is answered 503 with
``Retry-After`` — retryable with the same ``action_id`` on the next server — not cut off when the
grace period ends. The store's commit hangs, so one action is in the round being committed and
one is queued behind it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from cardcore_server.transports.server import ServerOptions, start

from ..service.helpers import hang_store_commits


def test_rest_actions_in_flight_at_stop_get_a_retryable_503(tmp_path: Path) -> None:
    async def main() -> None:
        running = await start(ServerOptions(port=0, rest_port=0, db=str(tmp_path / "s.db")))
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{running.rest_port}") as http:
            created = await http.post(
                "/v1/games",
                json={
                    "game": "ratscrew",
                    "seats": [{"kind": "human"}] * 2,
                    "timeouts_ms": {"Collect": 0},
                },
            )
            assert created.status_code == 201, created.text
            game = created.json()
            token = game["seat_tokens"][0]["token"]
            hang_store_commits(running.app)

            async def submit(action_id: str) -> tuple[int, str, str | None]:
                r = await http.post(
                    f"/v1/games/{game['game_id']}/actions",
                    json={"action_id": action_id, "command": {"kind": "Play"}},
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=10,
                )
                problem = r.json()
                assert "retry with the same action_id" in problem["detail"], problem
                return r.status_code, problem["code"], r.headers.get("retry-after")

            calls = [asyncio.create_task(submit(f"a{i}")) for i in range(2)]
            await asyncio.sleep(0.3)  # both are in: one in the hanging round, one queued
            await running.stop(grace_s=1.5)
            answers = await asyncio.gather(*calls)
        # The store's word, as on gRPC: it did not confirm the action, so it may or may not
        # have landed; the same action_id gets the one answer either way.
        assert answers == [(503, "StoreUnavailable", "1")] * 2, answers

    asyncio.run(main())
