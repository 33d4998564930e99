"""The commands of ``cardcore`` (:mod:`cardcore.cli`, the entry point, dispatches to them), one
module each: :mod:`.games`, :mod:`.simulate`, :mod:`.verify`, :mod:`.replay`, :mod:`.fairness`,
:mod:`.ladder`; :mod:`.parser` (the argument parser of them all) and :mod:`.common` (what they
share: exit codes, reading a log).

With :mod:`cardcore.cli`, the one part of the package that touches files, the terminal and a clock
(tests/unit/test_purity.py): only to report steps per second; no time ever reaches a game or a
log.
"""
