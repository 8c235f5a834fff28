"""Which SDK line the tests run on, and what the 1.x line cannot have (docs/protocol.md, 'Two SDK lines').

pydantic-acp (ACP Kit) and acpremote have no release for ``agent-client-protocol`` 1.x (their
newest, 1.10.0, pin 0.12.1 and import the removed ``acp.helpers``). Tests that need them skip
there with these reasons; everything else runs on both lines (``make test-sdk1``).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from nbacp.client.wire.sdk_compat import SDK_MAJOR, SDK_VERSION

NO_ACP_KIT = f"pydantic-acp (ACP Kit) has no release for agent-client-protocol {SDK_VERSION} (1.10.0 pins 0.12.1)"
NO_ACPREMOTE = f"acpremote has no release for agent-client-protocol {SDK_VERSION} (1.10.0 pins 0.12.1)"
HAS_ACP_KIT = importlib.util.find_spec("pydantic_acp") is not None
HAS_ACPREMOTE = importlib.util.find_spec("acpremote") is not None
SDK1 = SDK_MAJOR >= 1


# pytest is imported only where a test uses it: test kernels import support.agents (and so this
# module) in their cells, and their venvs have no pytest.
def require_acp_kit() -> None:
    """Skip the calling test where ACP Kit cannot be installed (SDK 1.x)."""
    if not HAS_ACP_KIT:
        import pytest

        pytest.skip(NO_ACP_KIT)


def require_acpremote() -> None:
    """Skip the calling test where acpremote cannot be installed (SDK 1.x)."""
    if not HAS_ACPREMOTE:
        import pytest

        pytest.skip(NO_ACPREMOTE)


def __getattr__(name: str) -> Any:
    """``needs_acp_kit`` / ``needs_acpremote``: skip marks, made when a test module imports them."""
    if name not in ("needs_acp_kit", "needs_acpremote"):
        raise AttributeError(name)
    import pytest

    if name == "needs_acp_kit":
        return pytest.mark.skipif(not HAS_ACP_KIT, reason=NO_ACP_KIT)
    return pytest.mark.skipif(not HAS_ACPREMOTE, reason=NO_ACPREMOTE)
