"""Session tokens: the server accepts only those it issued.

A token is 32 random bytes and an HMAC of them under the server's key, so
a cookie a client (or another site sharing the host name) made up, however
well-formed, is refused and replaced by a fresh token: a client cannot
choose the name its games and finished records are kept under. The key
lives in ``DATA/session.key`` (created once, mode 0600) so that tokens,
and with them a browser's list of its finished games, survive a restart;
tables sharing the folder share it. Deleting the file signs every browser
out.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets

KEY_BYTES = 32
NONCE_CHARS = 43  # secrets.token_urlsafe(32)
TOKEN = re.compile(r"[A-Za-z0-9_-]{65}")  # the nonce, then 22 characters of its MAC


class SessionTokens:
    """Issues session tokens and tells the ones it issued from any other text."""

    def __init__(self, key_path: str) -> None:
        self.key = _load_key(key_path)

    def issue(self) -> str:
        nonce = secrets.token_urlsafe(KEY_BYTES)
        return nonce + self._mac(nonce)

    def valid(self, token: str) -> bool:
        """Whether ``token`` is one this server (or one with its key) issued."""
        if TOKEN.fullmatch(token) is None:
            return False
        return hmac.compare_digest(token[NONCE_CHARS:], self._mac(token[:NONCE_CHARS]))

    def _mac(self, nonce: str) -> str:
        digest = hmac.new(self.key, nonce.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _load_key(path: str) -> bytes:
    """The key in ``path``, made first if there is none (linked into place whole, so a table
    starting at the same moment reads either no file or the complete key)."""
    if not os.path.lexists(path):
        tmp = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:  # another table made one first: use that
            pass
        finally:
            os.unlink(tmp)
    if not os.path.isfile(path):
        raise ValueError(f"{path}: not a regular file (the session key)")
    with open(path, "rb") as f:
        key = f.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise ValueError(f"{path}: not a session key ({KEY_BYTES} bytes); delete it to make a new one")
    return key


__all__ = ["SessionTokens"]
