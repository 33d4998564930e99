"""``python -m cardcore``: the same command line as ``cardcore`` (:mod:`cardcore.cli`)."""

from .cli import main

raise SystemExit(main())
