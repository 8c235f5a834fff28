"""The one place nbacp's version is written: pyproject reads it (hatch's version source), the package and
the ``clientInfo`` sent in ``initialize`` import it."""

__version__ = "0.1.0"
