"""The wire layer of the client: what stands between the agent's bytes and the ACP client object.

The guard, safe frames, the raw tap, size budgets, the three transports, the agent's process
and its stderr, the connection's log, extension notifications, the SDK's connection internals
and the agent's JSON-RPC refusals as ``AgentError``.

Rule: nothing here imports the session layer (``nbacp.client`` outside ``wire``), the widgets
or anything above them. What the wire must route or call back (the ``mcp/*`` handlers, the
cancel-request callback, the client object) is passed in as arguments or protocols. It may
import ``nbacp.errors`` and ``nbacp.render.safe_text``.
"""
