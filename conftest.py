"""The top folder's collection rule: the demo's scratch notebooks are a person's files, never tests.

``make demo`` copies the example notebooks into ``./workspace/`` for a person to run and save;
``pytest --nbval .`` must not collect them (``tests/test_first_run.py`` checks it). Only that
folder is ignored: a folder of the same name inside ``tests/`` is collected as usual.
"""

collect_ignore = ["workspace"]
