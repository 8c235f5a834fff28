"""Which SDK line the tests run on, and what the 1.x line cannot have (docs/protocol.md, 'Two SDK lines').

pydantic-acp (ACP Kit) and acpremote have no release for ``agent-client-protocol`` 1.x (their
newest, 1.10.0, pin 0.12.1 and import the removed ``acp.helpers``). Tests that need them skip
there with these reasons; everything else runs on both lines (``make test-sdk1``).
"""

from __future__ import annotations

import importlib.util

import pytest

from nbacp.client.wire.sdk_compat import SDK_MAJOR, SDK_VERSION

NO_ACP_KIT = f"pydantic-acp (ACP Kit) has no release for agent-client-protocol {SDK_VERSION} (1.10.0 pins 0.12.1)"
NO_ACPREMOTE = f"acpremote has no release for agent-client-protocol {SDK_VERSION} (1.10.0 pins 0.12.1)"
HAS_ACP_KIT = importlib.util.find_spec("pydantic_acp") is not None
HAS_ACPREMOTE = importlib.util.find_spec("acpremote") is not None
SDK1 = SDK_MAJOR >= 1


def require_acp_kit() -> None:
    """Skip the calling test where ACP Kit cannot be installed (SDK 1.x)."""
    if not HAS_ACP_KIT:
        pytest.skip(NO_ACP_KIT)


def require_acpremote() -> None:
    """Skip the calling test where acpremote cannot be installed (SDK 1.x)."""
    if not HAS_ACPREMOTE:
        pytest.skip(NO_ACPREMOTE)


needs_acp_kit = pytest.mark.skipif(not HAS_ACP_KIT, reason=NO_ACP_KIT)
needs_acpremote = pytest.mark.skipif(not HAS_ACPREMOTE, reason=NO_ACPREMOTE)
