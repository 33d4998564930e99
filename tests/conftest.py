"""Shared test configuration: Hypothesis profiles, and which tests may run side by side.

``HYPOTHESIS_PROFILE=ci`` (set by ``make test``) derandomizes Hypothesis so CI is reproducible;
``dev`` explores new examples on every run.

``make pytest`` runs the suite in three parts (the Makefile adds the compiled build's suites):

1. ``-m "not solo and not serial"`` on pytest-xdist workers (``--dist loadgroup``). Every test
   has its own ports (0, or free ones the harness picks), ``tmp_path`` and PostgreSQL schema,
   so most may run beside any other. The tests on the PostgreSQL server (``pg_url``) run one
   at a time: NOTIFY, which carries the stores' change hints, is per database, not per schema.
   The ``pg_url`` fixture holds a lock for that (``tests/service/pg.py``); the
   ``xdist_group`` marked here would also keep them on one worker, but pytest 9.2 broke xdist
   3.8's groups (it can no longer rename the items it groups), so today they are spread like
   the rest.
2. ``-m serial`` in one process of its own, at the same time as part 1: the browser tests
   (marked here: every test that drives Chromium, through tests/web's ``browser_ready``
   fixture; they play each game once per process against bots in real time, so they share one
   browser and one server, and they mostly wait) and the served first contact
   (tests/e2e/test_serve.py, which mostly waits on pip). They hold no timing to a bound that a
   busy machine would break: the slap sample's bound (250 ms) is thirty times its quiet p50.
   tests/web's other tests (the files served, the wheel) run in part 1.
3. ``-m solo`` in one process, after the others, with the machine to itself: tests that hold
   timings to bounds (each marks itself, browser tests too: tests/web/test_play_channel_web.py
   compares two transports' latencies).
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=25,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# tryfirst: before ``-m`` deselects by marker and before xdist names the items by their group
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    xdist = config.pluginmanager.hasplugin("xdist")
    for item in items:
        if "browser_ready" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "solo"
        ):
            item.add_marker(pytest.mark.serial)
        if xdist and "pg_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("postgres"))
