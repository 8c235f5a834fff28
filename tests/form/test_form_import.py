"""The pure model and the package root import without the widget layer (docs/design.md, 'Layers')."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("ipywidgets", "anywidget", "ipykernel", "IPython", "nbacp.widgets")


@pytest.mark.parametrize(
    "statement", ["import nbacp.form", "import nbacp", "from nbacp import Form; Form.from_schema({})"]
)
def test_no_widget_layer_is_imported(statement: str) -> None:
    code = f"{statement}\nimport sys\nprint(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_the_probe_does_see_ipywidgets_when_it_is_imported() -> None:
    """Guards the test above against a probe that can never report anything."""
    code = f"import ipywidgets\nimport sys\nprint(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "ipywidgets" in done.stdout.strip().split(",")


def test_public_names() -> None:
    import nbacp
    from nbacp import form

    assert nbacp.Form is form.Form
    assert nbacp.FormValidationError is form.FormValidationError
    assert nbacp.InvalidSchemaError is form.InvalidSchemaError
