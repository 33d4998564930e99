"""Shared test configuration: Hypothesis profiles.

``HYPOTHESIS_PROFILE=ci`` (set by ``make test``) derandomizes Hypothesis so CI is reproducible;
``dev`` explores new examples on every run.
"""

import os

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
