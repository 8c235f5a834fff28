"""Whether a link the agent sends may be offered for opening, and what to warn a person about.

Pure text checks, kept apart from the URL consent card (``nbacp.widgets.url_card``) so they run
and are tested without widgets: only http and https, no spaces, invisible or control
characters, a host; warnings for punycode and non-ASCII hosts, hosts that mix scripts
(look-alike letters, after UTS #39's "highly restrictive" level), text before ``@`` and
plain http to another machine (loopback, the person's own machine, is not warned about: the
traffic never leaves it). The card shows the host as the browser will contact it, and the full
URL with the host marked (``url_parts``).
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")

# Script sets that legitimately share one host label (UTS #39 "highly restrictive").
_CJK_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_NAME_PREFIXES = {"CJK": "HAN", "FULLWIDTH": "", "HALFWIDTH": ""}


@dataclass(frozen=True)
class UrlCheck:
    """What a person needs to know about a URL before consenting to open it."""

    url: str
    host: str = ""
    """The host as the browser will contact it (ASCII, punycode kept)."""
    display_host: str = ""
    """The host as it reads (punycode decoded); equal to ``host`` for plain ASCII hosts."""
    refusal: str | None = None
    """Why the URL must not be opened (decline-only card), or None."""
    warnings: tuple[str, ...] = field(default=())

    @property
    def openable(self) -> bool:
        return self.refusal is None


def _script(char: str) -> str:
    """The Unicode script of a letter, from its character name (good enough for hosts)."""
    words = unicodedata.name(char, "UNKNOWN").split()
    first = _NAME_PREFIXES.get(words[0], words[0])
    if not first and len(words) > 1:
        first = words[1]
    return first.split("-")[0]


def _label_scripts(label: str) -> set[str]:
    return {_script(c) for c in label if unicodedata.category(c).startswith("L")}


def _mixed(scripts: set[str]) -> bool:
    return len(scripts) > 1 and not any(scripts <= allowed for allowed in _CJK_MIXES)


def _decode_label(label: str) -> str | None:
    """The Unicode form of one ``xn--`` label, or None when it is not valid punycode."""
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return None


def _encode_label(label: str) -> str:
    if label.isascii():
        return label
    return "xn--" + label.encode("punycode").decode("ascii")


def check_url(url: str) -> UrlCheck:
    """Decide whether ``url`` may be offered for opening, and what to warn about."""
    if not url:
        return UrlCheck(url, refusal="The agent sent an empty link.")
    if any(unicodedata.category(c)[0] in "CZ" for c in url):
        return UrlCheck(url, refusal="The link contains spaces, invisible or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return UrlCheck(url, refusal=f"The link cannot be parsed ({exc}).")
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"'{scheme}:'" if scheme else "no scheme"
        return UrlCheck(url, refusal=f"Only http and https links can be opened; this one has {shown}.")
    raw_host = parts.hostname or ""
    if not raw_host:
        return UrlCheck(url, refusal="The link has no host.")
    labels = raw_host.rstrip(".").split(".")
    warnings: list[str] = []
    decoded: list[str] = []
    for label in labels:
        if label.startswith("xn--"):
            plain = _decode_label(label)
            if plain is None:
                warnings.append(f"The host label '{label}' is malformed punycode.")
            decoded.append(plain if plain is not None else label)
        else:
            decoded.append(label)
    host = ".".join(_encode_label(label) for label in labels)
    display_host = ".".join(decoded)
    if any(label.startswith("xn--") for label in labels):
        warnings.append(f"The host is punycode: '{host}' reads as '{display_host}'. Check it is the site you expect.")
    elif not raw_host.isascii():
        warnings.append(
            f"The host has non-ASCII letters; the browser will contact '{host}'. Check it is the site you expect."
        )
    mixed = sorted({s for label in decoded if _mixed(scripts := _label_scripts(label)) for s in scripts})
    if mixed:
        names = ", ".join(s.title() for s in mixed)
        warnings.append(f"The host mixes scripts ({names}): look-alike letters can imitate another site.")
    if parts.username is not None or "@" in parts.netloc:
        warnings.append(f"The link has text before '@' in its address; the site it opens is '{display_host}'.")
    if scheme == "http" and not is_loopback(raw_host):
        warnings.append("The link is not encrypted (http).")
    if port is not None:
        host_port = f":{port}"
        host, display_host = host + host_port, display_host + host_port
    return UrlCheck(url, host=host, display_host=display_host, warnings=tuple(warnings))


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine: 127.0.0.0/8, ::1, ``localhost`` or a name under it.

    Browsers resolve ``localhost`` and ``*.localhost`` to loopback themselves (RFC 6761 6.3;
    Chromium and Firefox treat them as secure contexts), so plain http there crosses no network.
    """
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def url_parts(url: str) -> tuple[str, str, str]:
    """``url`` cut around its host as written: ``(before, host, after)``, joined they are ``url``.

    The card shows the whole URL with the host part marked, so ``https://bank.example@evil.example``
    marks ``evil.example``. A URL without a findable host gives ``(url, "", "")``.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, "", ""
    if not parts.netloc:
        return url, "", ""
    start = url.find("//")
    if start < 0:
        return url, "", ""
    start += 2
    netloc = url[start : start + len(parts.netloc)]
    host_start = netloc.rfind("@") + 1
    rest = netloc[host_start:]
    bracket = rest.find("]") + 1 if rest.startswith("[") else 0  # an IPv6 literal holds colons
    colon = rest.find(":", bracket)
    end = bracket or (colon if colon >= 0 else len(rest))
    begin = start + host_start
    return url[:begin], url[begin : begin + end], url[begin + end :]
