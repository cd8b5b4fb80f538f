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
from dataclasses import asdict, dataclass

from citeline.errors import ConfigurationError
from citeline.index.store import Store

KEYS_NS = "api_keys"
USERS_NS = "api_users"
USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
KEY_PREFIX = "cl_"


@dataclass(frozen=True)
class User:
    id: str
    name: str
    created_at: float = 0.0


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class UserRegistry:
    def __init__(self, store: Store) -> None:
        self.store = store
        # Key digest -> user, per worker. Safe behind a load balancer only because a key is never
        # revoked or reassigned; a revocation feature must expire or drop these entries.
        self._cache: dict[str, User] = {}
        self._lock = threading.Lock()

    def add(self, name: str) -> tuple[User, str]:
        """Create a user and its first key. Returns (user, the key in clear, shown once)."""
        if not USER_NAME.match(name):
            raise ConfigurationError(
                f"invalid user name `{name}`", hint="use 1-64 letters, digits, `_`, `.`, `@` or `-`"
            )
        if self.store.kv_get(USERS_NS, name) is not None:
            raise ConfigurationError(f"user `{name}` already exists", hint="pick another name")
        user = User(id="u_" + secrets.token_hex(8), name=name, created_at=time.time())
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        self.store.kv_put(USERS_NS, name, json.dumps(asdict(user)))
        self.store.kv_put(KEYS_NS, hash_key(key), json.dumps(asdict(user)))
        return user, key

    def get(self, name: str) -> User | None:
        raw = self.store.kv_get(USERS_NS, name)
        return User(**json.loads(raw)) if raw else None

    def authenticate(self, key: str) -> User | None:
        if not key.startswith(KEY_PREFIX) or len(key) > 200:
            return None
        digest = hash_key(key)
        with self._lock:
            cached = self._cache.get(digest)
        if cached is not None:
            return cached
        raw = self.store.kv_get(KEYS_NS, digest)
        if raw is None:
            return None
        user = User(**json.loads(raw))
        with self._lock:
            self._cache[digest] = user
        return user
