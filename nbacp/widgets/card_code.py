"""The cards' JavaScript and stylesheet, sent to the front end once per kernel.

Every card is one anywidget model (``nbacp.widgets.card.Card``). Its module is either a stub
of a few hundred bytes that renders through the shared ``CardCode`` model (anywidget >= 0.11:
``host.getWidget``), or, where the front end cannot reach another model's exports (Colab's
anywidget 0.9.21), the whole bundle (docs/cards.md, 'One code model per kernel').
The stylesheet is the code model's ``_css``: anywidget puts it into ONE ``<style>`` in the
page, whatever the number of cards.
"""

from __future__ import annotations

import os
import pathlib
import re
from importlib import metadata
from typing import Any

import anywidget

from nbacp import marimo_runtime
from nbacp.widgets import shared

ESM_FILE = pathlib.Path(__file__).parent / "static" / "card.js"
CSS_FILE = pathlib.Path(__file__).parent / "static" / "card.css"


def _read(path: pathlib.Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuntimeError(
            f"nbacp's card code is not built ({path} is missing): reinstall nbacp with npm available "
            "(`pip install -e .` runs the JS build), or run `cd js && npm run build`."
        ) from None


def esm_source() -> str | pathlib.Path:
    """The bundle as text, not as a Path.

    Given a Path, anywidget 0.11 connects every instance to the file's change signal and never
    disconnects it (manzt/anywidget#929), so no card could ever be freed, even after close().
    ``ANYWIDGET_HMR=1`` keeps the Path, for live reloading while developing the JS.
    """
    if os.environ.get("ANYWIDGET_HMR") == "1":
        return ESM_FILE
    return _read(ESM_FILE)


def css_source() -> str:
    return _read(CSS_FILE)


def whole_module() -> str:
    """The whole bundle as text, for a model that cannot render through the shared code model
    (marimo: a view's shadow root and a re-run cell lose it, docs/marimo.md)."""
    return _read(ESM_FILE)


def own_code_in_marimo(kwargs: dict[str, Any]) -> None:
    """In a marimo cell, a card or turn view carries the whole bundle (``_esm``) and stylesheet
    (``_css``) itself: marimo gives each view a shadow root holding only its own model's
    ``_css``, and loses the shared code model once the cell that made it re-runs (the stub's
    ``host.getWidget`` then never resolves; docs/marimo.md). Elsewhere nothing changes."""
    if marimo_runtime.running_in_marimo():
        kwargs.setdefault("_esm", whole_module())
        kwargs.setdefault("_css", css_source())
        kwargs.setdefault("code", "")


def _stub(what: str, call: str) -> str:
    """A model's own module: it renders through the shared code model's ``call``.

    anywidget >= 0.11 hands ``render`` a ``host`` whose ``getWidget("anywidget:<id>")`` waits for
    that model's ``initialize`` and gives what it returned (see js/src/card.js)."""
    return (
        "export default {\n"
        "  async render({ model, el, host }) {\n"
        '    const ref = model.get("code");\n'
        "    if (!ref || !host) {\n"
        f'      el.textContent = "This {what} needs nbacp\'s code: run the cell again.";\n'
        "      return;\n"
        "    }\n"
        "    const code = await host.getWidget(ref);\n"
        f"    return code.exports.{call};\n"
        "  },\n"
        "};\n"
    )


CARD_STUB = _stub("card", "render({ model, el })")
"""Every card's own module: renders the card's model with the shared code's ``render``."""
TURN_STUB = _stub("turn", "renderTurn({ model, el, host })")
"""Every turn view's own module: renders the turn's model with the shared code's ``renderTurn``
(js/src/turn_view.js), handing it the ``host`` through which it draws the turn's cards."""


def _host_lookup() -> bool:
    """Whether this anywidget hands ``render`` a ``host`` with ``getWidget`` (0.11 and later).

    The front end's anywidget matches the kernel's where it is loaded per kernel (Colab loads the
    version the kernel's model names). With an older anywidget (Colab's 0.9.21) a stub could not
    reach the shared code, so each card carries the whole module (docs/kernels.md, 'Colab').
    """
    try:
        found = re.match(r"(\d+)\.(\d+)", metadata.version("anywidget"))
    except metadata.PackageNotFoundError:
        return False
    return found is not None and (int(found.group(1)), int(found.group(2))) >= (0, 11)


HOST_LOOKUP = _host_lookup()


class CardCode(anywidget.AnyWidget):
    """The cards' bundle and stylesheet, one model per kernel; renders nothing itself."""

    _esm = esm_source()
    _css = css_source()


def card_code() -> CardCode:
    """This kernel's one live CardCode (made again if it was closed)."""
    return shared.shared_model("card-code", lambda: CardCode(layout=shared.layout()))


def card_module() -> str:
    """What a card model carries as its own ``_esm``: the stub, or the whole bundle (see above).

    Always text: a card declares ``_esm`` as a trait (``nbacp.widgets.card_model``). With
    ``ANYWIDGET_HMR=1`` the live reloading happens in the shared ``CardCode`` the stub renders
    through (anywidget >= 0.11)."""
    return CARD_STUB if HOST_LOOKUP else _read(ESM_FILE)


def turn_module() -> str:
    """What a turn view carries as its ``_esm``: the stub, or the whole bundle (as ``card_module``)."""
    return TURN_STUB if HOST_LOOKUP else _read(ESM_FILE)
