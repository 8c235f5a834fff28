"""ipykernel 7.0-7.3 can strand a shell request unread: replies go out through the stream.

Those releases send every shell reply with a raw ``send_multipart`` on the shell ROUTER socket
(from the shell channel thread), while requests are read through a ``ZMQStream`` on the same
socket. The raw send consumes the socket's edge-triggered read notification, which the stream
never learns about, so a request that arrives during that send sits in the socket until
something else wakes it: the kernel looks idle and never answers (ipykernel#1554; fixed in
7.4 by ipykernel#1529, which sends replies through the stream). A front end that sends the
next request right after a reply (the next cell, a widget edit after a click) meets it in
about one run in twenty here. :func:`ensure_stream_replies` applies 7.4's fix to a running
7.0-7.3 kernel; elsewhere it does nothing (docs/kernels.md, 'Stranded shell requests').
"""

from __future__ import annotations

from typing import Any

from nbacp.kernel import versions


def ensure_stream_replies() -> bool:
    """Send this kernel's shell replies through its shell ``ZMQStream``; True once arranged.

    Feature-detected: needs the shell channel thread and its subshell manager as in 7.0-7.3
    (7.4+ keeps the stream on the manager already, and 6.x replies through the stream).
    Idempotent; the switch happens in the shell channel thread, where those sends run.
    """
    kernel = versions.current_kernel() if versions.running_in_kernel() else None
    thread = getattr(kernel, "shell_channel_thread", None)
    manager = getattr(thread, "manager", None) if thread else None
    if manager is None:
        return False
    if getattr(manager, "_nbacp_stream_replies", False):
        return True
    if hasattr(manager, "_shell_stream"):
        return False  # 7.4+: already fixed upstream
    stream: Any = getattr(kernel, "shell_stream", None)
    socket = getattr(manager, "_shell_socket", None)
    replies: Any = getattr(getattr(manager, "_main_to_shell_channel", None), "to_stream", None)
    loop = getattr(thread, "io_loop", None)
    if (
        socket is None
        or getattr(stream, "socket", None) is not socket
        or loop is None
        or not callable(getattr(manager, "_send_on_shell_channel", None))
        or not callable(getattr(replies, "on_recv", None))
    ):
        return False

    def send(msg: Any) -> None:
        stream.send_multipart(msg)  # the stream reads any pending request before it writes

    def switch() -> None:
        manager._send_on_shell_channel = send  # subshells created from now on
        replies.on_recv(send, copy=False)  # the main thread's replies
        for subshell in list(getattr(manager, "_cache", {}).values()):
            pair = getattr(getattr(subshell, "subshell_to_shell_channel", None), "to_stream", None)
            if pair is not None:
                pair.on_recv(send, copy=False)

    manager._nbacp_stream_replies = True
    loop.add_callback(switch)
    return True
