"""What may never be shown or written: keys, and the credentials a base URL may carry.

A key is read from the environment and handed to the SDK; a base URL may hold a user and
password (`http://user:pass@host/v1`, sent by the SDK as Basic authentication). Neither may
reach a file, a log or a message. This module holds the rules:

- `shown_url` is the one form in which a URL is recorded or shown: its password (its user,
  when it has no password) and the values of its query string replaced by `***`;
  `redact_urls` does the same to every URL in a text.
- `url_problem` and `key_problem` refuse, before any request, a base URL or a key that
  cannot work (and whose failure would otherwise quote it): a base URL that is not http(s)
  with a host, or has a query string or fragment; a key with white space at an end (a
  .env file with Windows line endings), control characters or non-ASCII characters.
- `secret_forms` lists every form in which a secret may come back in an error (as
  written, escaped as Python or JSON write it, percent-encoded, Basic-encoded, cut by a
  server echoing a header), so that the provider can scrub them all. A model's answer is
  scrubbed more narrowly (`answer_forms`): only secrets long enough to be nothing else,
  never cut, since a scrubbed answer is a changed answer (a password `downlink` would
  change an argument's value, and with it the score).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

#: What replaces a secret.
HIDDEN = "***"
#: A secret shorter than this is not scrubbed from free text (it would hit ordinary words);
#: a URL's own credentials are hidden by `shown_url` whatever their length.
MIN_SCRUBBED = 4
#: How many characters a server may cut off either end of an echoed header value and the
#: rest still be scrubbed (`Basic abc...` echoed as if it were `Bearer abc...`).
_CUT = 3

#: A URL, and the characters of a scheme that cannot begin it (kept). The look-behind starts
#: a try only where a run of scheme characters begins: the same matches as trying at each
#: letter, in time linear in the text (a long word would otherwise take minutes).
_URL = re.compile(r"(?<![A-Za-z0-9+.-])([0-9+.-]*)([A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+)")


@dataclass(frozen=True)
class UrlCredentials:
    """The user and password a URL carries (percent-decoded, as sent)."""

    user: str
    password: str | None

    @property
    def basic(self) -> str:
        """The token of `Authorization: Basic`, as an HTTP client builds it."""
        pair = f"{self.user}:{self.password or ''}"
        return base64.b64encode(pair.encode("utf-8", "surrogatepass")).decode("ascii")


def url_credentials(url: str) -> UrlCredentials | None:
    """The user and password in `url`, None when it has none."""
    _, netloc, _ = _parts(url)
    if "@" not in netloc:
        return None
    userinfo = netloc.rpartition("@")[0]
    user, sep, password = userinfo.partition(":")
    return UrlCredentials(unquote(user), unquote(password) if sep else None)


def _parts(url: str) -> tuple[str, str, str]:
    """`url` as (`scheme://` or "", the authority, the rest)."""
    scheme, sep, rest = url.partition("://")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        scheme, rest = "", url
    netloc, path = _split_first(rest, "/?#")
    return (scheme + "://" if scheme else ""), netloc, path


def shown_url(url: str) -> str:
    """`url` as it may be recorded or shown: `http://alice:***@host/v1?key=***`.

    The password is hidden (the user too when there is no password: it is then the
    secret), every query value, and a fragment. A URL without any is returned unchanged.
    """
    scheme, netloc, path = _parts(url)
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{HIDDEN}@{host}" if colon else f"{HIDDEN}@{host}"
    path, fragment = _split_first(path, "#")
    path, query = _split_first(path, "?")
    if query:
        query = "?" + "&".join(_hidden_value(p) for p in query[1:].split("&"))
    if fragment:
        fragment = "#" + HIDDEN
    return f"{scheme}{netloc}{path}{query}{fragment}"


def _split_first(text: str, marks: str) -> tuple[str, str]:
    """`text` cut before the first of `marks` (the second part keeps the mark)."""
    for i, char in enumerate(text):
        if char in marks:
            return text[:i], text[i:]
    return text, ""


def _hidden_value(pair: str) -> str:
    name, sep, _ = pair.partition("=")
    return f"{name}={HIDDEN}" if sep else (HIDDEN if pair else pair)


def redact_urls(text: str) -> str:
    """`text` with every URL in it shown as `shown_url` shows it."""
    return _URL.sub(lambda m: m[1] + shown_url(m[2]), text)


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a base URL, None when it can. Never quotes its credentials."""
    example = "write it as http://HOST:PORT/v1"
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return f"it is not a URL: {example}"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return f"it is not an http:// or https:// URL with a host: {example}"
    if url[-1:] in ("\r", "\n"):
        return "it ends with a line break (a .env file with Windows line endings?)"
    if any(c.isspace() or not c.isprintable() for c in url):
        return "it holds white space or a control character"
    try:
        parts.port  # noqa: B018 (a port that is not a number raises)
    except ValueError:
        return f"its port is not a number from 0 to 65535: {example}"
    if parts.query or parts.fragment or "?" in url or "#" in url:
        return (
            "a base URL takes no query string (?...) or fragment (#...): the API's paths "
            "are joined after it; give the key in the environment instead"
        )
    return None


def key_problem(key: str, env: str) -> str | None:
    """Why the key in the environment variable `env` cannot be sent, None when it can.

    Names what is wrong, never the key.
    """
    wrong: list[str] = []
    if key != key.strip():
        wrong.append(
            "a line break at its start or end (a .env file with Windows line endings?)"
            if key[:1] in "\r\n" or key[-1:] in "\r\n"
            else "white space at its start or end"
        )
    if any(not c.isprintable() for c in key.strip()):
        wrong.append("a control character")
    if not key.isascii():
        wrong.append("a character that is not ASCII")
    if not wrong:
        return None
    return (
        f"{env} cannot be sent in an HTTP header: it holds {' and '.join(wrong)}; set it "
        "to the key alone (it is read from the environment and never shown or written)"
    )


#: The shortest secret scrubbed from a model's answer (an API key is longer; a shorter
#: one, `EMPTY` or a short password, is more likely an ordinary word of the answer).
MIN_IN_ANSWERS = 12


def answer_forms(secrets: Iterable[str]) -> tuple[str, ...]:
    """The forms scrubbed from a model's answer: each secret of at least MIN_IN_ANSWERS
    characters as written or escaped, never cut (see the module)."""
    return secret_forms((s for s in secrets if len(s) >= MIN_IN_ANSWERS), cuts=False)


def secret_forms(secrets: Iterable[str], *, cuts: bool = True) -> tuple[str, ...]:
    """Every form in which these secrets may be quoted, longest first (see the module);
    `cuts=False` leaves out the forms cut at an end."""
    forms: set[str] = set()
    for secret in secrets:
        written = {secret, secret.strip(), quote(secret, safe=""), unquote(secret)}
        for text in list(written):
            written.add(repr(text)[1:-1])
            written.add(json.dumps(text)[1:-1])
            written.add(json.dumps(text, ensure_ascii=False)[1:-1])
            written.add(text.encode("unicode_escape").decode("ascii"))
            written.add(repr(text.encode("utf-8", "surrogatepass"))[2:-1])
        for form in written:
            forms.add(form)
            if cuts and len(form) >= 2 * MIN_SCRUBBED + _CUT:
                forms.update(form[cut:] for cut in range(1, _CUT + 1))
                forms.update(form[:-cut] for cut in range(1, _CUT + 1))
    return tuple(sorted((f for f in forms if len(f) >= MIN_SCRUBBED), key=len, reverse=True))


def scrub_forms(text: str, forms: Iterable[str]) -> str:
    """`text` with each of `forms` (longest first) replaced by `***`."""
    for form in forms:
        if form in text:
            text = text.replace(form, HIDDEN)
    return text
