"""API keys and the users they belong to, kept in the store's key/value table.

A key is shown once, when it is made; only its SHA-256 is stored. The user id (not the name) is
the owner id of everything the user uploads, searches, opens or asks.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from citeline.errors import ConfigurationError
from citeline.index.store import Store

KEYS_NS = "api_keys"
USERS_NS = "api_users"
USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
KEY_PREFIX = "cl_"
# How long a worker trusts a key it has checked; a removed user's key stops working within this
# time on every worker (they share the store, not this cache).
KEY_CACHE_S = 5.0


@dataclass(frozen=True)
class User:
    """Someone who may call the service: every document, session and run they create is theirs alone."""

    id: str
    name: str
    created_at: float = 0.0
    admin: bool = False  # sees every user's runs (`citeline users add NAME --admin`)


def hash_key(key: str) -> str:
    """The SHA-256 digest an API key is stored and looked up by: the key itself is never stored."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class UserRegistry:
    """Users and their API keys, kept in the store's key/value table so every worker and the CLI see
    the same users."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        # Key digest -> (user, when checked), per worker; entries expire after KEY_CACHE_S so a
        # user removed through any worker (or the CLI) is refused everywhere soon after.
        self._cache: dict[str, tuple[User, float]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def add(self, name: str, *, admin: bool = False) -> tuple[User, str]:
        """Create a user and its first key. Returns (user, the key in clear, shown once)."""
        if not USER_NAME.match(name):
            raise ConfigurationError(
                f"invalid user name `{name}`", hint="use 1-64 letters, digits, `_`, `.`, `@` or `-`"
            )
        if self.store.kv_get(USERS_NS, name) is not None:
            raise ConfigurationError(f"user `{name}` already exists", hint="pick another name")
        user = User(id="u_" + secrets.token_hex(8), name=name, created_at=time.time(), admin=admin)
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        self.store.kv_put(USERS_NS, name, json.dumps(asdict(user)))
        self.store.kv_put(KEYS_NS, hash_key(key), json.dumps(asdict(user)))
        return user, key

    def get(self, name: str) -> User | None:
        """The user with this name, or None."""
        raw = self.store.kv_get(USERS_NS, name)
        return User(**json.loads(raw)) if raw else None

    def list(self) -> list[User]:
        """Every user, by name."""
        return [User(**json.loads(raw)) for _, raw in self.store.kv_items(USERS_NS)]

    def remove(self, name: str) -> User | None:
        """Delete a user and every API key of theirs (their documents stay, owned by their id).
        Returns the removed user, or None when there is no such user."""
        user = self.get(name)
        if user is None:
            return None
        for digest, raw in self.store.kv_items(KEYS_NS):
            if json.loads(raw).get("id") == user.id:
                self.store.kv_delete(KEYS_NS, digest)
        self.store.kv_delete(USERS_NS, name)
        with self._lock:
            self._cache = {k: v for k, v in self._cache.items() if v[0].id != user.id}
        return user

    def authenticate(self, key: str) -> User | None:
        """The user an API key belongs to, or None; recent answers are cached briefly per worker, so a
        removed key stops working everywhere soon after."""
        if not key.startswith(KEY_PREFIX) or len(key) > 200:
            return None
        digest = hash_key(key)
        now = self._clock()
        with self._lock:
            cached = self._cache.get(digest)
        if cached is not None and now - cached[1] < KEY_CACHE_S:
            return cached[0]
        raw = self.store.kv_get(KEYS_NS, digest)
        if raw is None:
            with self._lock:
                self._cache.pop(digest, None)
            return None
        user = User(**json.loads(raw))
        with self._lock:
            self._cache[digest] = (user, now)
        return user
