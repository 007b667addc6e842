"""Fixtures shared by the whole suite.

Every test runs with its own config and data dirs and an in-memory keyring, so no test reads
or writes the user's real files or keys. Tests marked ``keyring`` ask for ``real_keyring``
instead: the real Secret Service, from the current D-Bus session when it already has an
unlocked one (CI: `.ci/run`), else from a private dbus-daemon + gnome-keyring-daemon started
for this session. Without those binaries they skip, or fail when PAYSCOPE_REQUIRE_KEYRING=1.
"""

from __future__ import annotations

import contextlib
import gc
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import keyring
import keyring.core
import pytest
from hypothesis import HealthCheck, settings
from jaraco.classes import properties
from keyring.backend import KeyringBackend, get_all_keyring
from keyring.errors import PasswordDeleteError

from tests.waits import HANG

SECRET_SERVICE_BUS_NAME = "org.freedesktop.secrets"


def pytest_configure(config: pytest.Config) -> None:
    # Ctrl+C as a terminal gives it: a suite started in the background by a script (`make test
    # &`) inherits SIGINT ignored, and so would every payscope it starts, so a test of Ctrl+C
    # (`logs tail`, an interrupted export) would wait for an exit that never comes. The
    # children's SIGINT is the default again (a handler is reset to it at exec, ignoring is not).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # Every app the tests start keeps its input cursors still, as a user can ask
    # (`PAYSCOPE_CURSOR_BLINK=off`): a snapshot never catches a cursor half-way through a blink.
    os.environ["PAYSCOPE_CURSOR_BLINK"] = "off"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The tests marked `long` (a minute or more of one worker's time) are handed out first: one
    # started last would leave a single worker busy while the others have finished. Only the
    # order changes; every test runs.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


# Property tests check values, not speed: Hypothesis's timing checks (a draw or an example
# slower than a set time) failed on this 2-core machine running four workers, when one
# worker was off the CPU for a second (2026-11-26: "Input generation is slow" in
# test_db_json.py). The examples, their number and the shrinking are unchanged.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


class MemoryKeyring(KeyringBackend):
    """A keyring in a dict, for tests that are not about the keyring itself."""

    @properties.classproperty
    def priority(cls) -> float:
        # Not viable for keyring's own detection: tests install it explicitly, and the real
        # keyring tests must detect the Secret Service, not a chainer around this one.
        raise RuntimeError("MemoryKeyring is only installed explicitly by tests")

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.items[(service, username)]
        except KeyError:
            raise PasswordDeleteError("no such password") from None


@pytest.fixture(autouse=True)
def isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point PAYSCOPE_CONFIG_DIR / PAYSCOPE_DATA_DIR at fresh dirs; drop PAYSCOPE_API_KEY."""
    base = tmp_path_factory.mktemp("payscope-home")
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(base / "data"))
    monkeypatch.delenv("PAYSCOPE_API_KEY", raising=False)
    # A developer's own backend choice must not decide what the tests talk to.
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    return base


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """The keyring every test sees unless it asks for ``real_keyring``.

    Each test gets a fresh one, so none is put back afterwards: asking keyring for the one it
    had would run its backend detection (a second here) in every test process."""
    store = MemoryKeyring()
    keyring.set_keyring(store)
    yield store


@pytest.fixture(autouse=True)
def collector_resumed() -> Iterator[None]:
    """`payscope.cli.main` run in a test's process pauses the garbage collector first thing, as
    `payscope` does, and only the app or a server that serves resumes it: after a test that ended
    before (a refusal, an error), it is resumed, so the next test starts as a process does."""
    yield
    from payscope.core import gc_pause

    gc_pause.resume()
    # What an app froze once its runtime was up (as a user's app does) lived as long as that
    # app: the test, here. Let go, it is collected as the app's garbage; kept frozen, every
    # test's app would stay in memory to the end of the run.
    gc.unfreeze()


# Seeded ids -------------------------------------------------------------------------------------


class SeededSecrets:
    """What `payscope.sandbox.ids` draws from (`secrets`' functions), from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choice(self, seq):  # type: ignore[no-untyped-def]
        return self._rng.choice(seq)

    def token_bytes(self, n: int = 32) -> bytes:
        return self._rng.randbytes(n)

    def token_hex(self, n: int = 32) -> str:
        return self._rng.randbytes(n).hex()

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)


@contextlib.contextmanager
def ids_seeded_with(seed: int) -> Iterator[None]:
    """While it lasts, the ids the sandbox draws repeat from run to run: for what no test's
    fixture covers (a template built once per session, a docs picture)."""
    import payscope.sandbox.ids as ids

    saved = ids.secrets
    ids.secrets = SeededSecrets(seed)  # type: ignore[assignment]
    try:
        yield
    finally:
        ids.secrets = saved


@pytest.fixture
def seeded_ids() -> Iterator[Callable[[int], None]]:
    """The ids the sandbox draws for what a test makes (payments, events) repeat from run to run
    (a snapshot shows them): `payscope.sandbox.ids` draws from a generator seeded with 2025, or
    with the seed the test gives the function this returns (a generator afresh each call)."""
    with contextlib.ExitStack() as stack:

        def seed(value: int) -> None:
            stack.enter_context(ids_seeded_with(value))

        seed(2025)
        yield seed


# The real Secret Service ------------------------------------------------------------------------

_PROBE = """
import sys
import secretstorage
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import Proxy
from secretstorage.util import BUS_NAME

connection = secretstorage.dbus_init()
# NameHasOwner, not check_service_availability: D-Bus activation would start a locked daemon.
if Proxy(message_bus, connection).NameHasOwner(BUS_NAME)[0] != 1:
    sys.exit("no Secret Service is running on this D-Bus session")
try:
    collection = secretstorage.Collection(connection)
except secretstorage.exceptions.ItemNotFoundException:
    sys.exit("the Secret Service has no default collection")
if collection.is_locked():
    sys.exit("the Secret Service's default collection is locked")
"""


@dataclass
class SecretService:
    """How to reach the Secret Service the keyring tests use."""

    address: str
    private: bool


def _probe(env: dict[str, str]) -> str | None:
    """None when ``env``'s D-Bus session has an unlocked Secret Service, else why not."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=HANG
        )
    except subprocess.TimeoutExpired:
        return f"the Secret Service did not answer within {HANG:g} s"
    if done.returncode == 0:
        return None
    return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "probe failed"


def _stop(process: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _unavailable(reason: str) -> None:
    if os.environ.get("PAYSCOPE_REQUIRE_KEYRING") == "1":
        pytest.fail(f"PAYSCOPE_REQUIRE_KEYRING=1 but no real Secret Service: {reason}")
    pytest.skip(f"no real Secret Service: {reason}")


@pytest.fixture(scope="session")
def secret_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecretService]:
    """An unlocked Secret Service: the current session's, or a private one for this run."""
    current = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if current and _probe(dict(os.environ)) is None:
        yield SecretService(current, private=False)
        return

    missing = [b for b in ("dbus-daemon", "gnome-keyring-daemon") if shutil.which(b) is None]
    if missing:
        _unavailable(
            f"{' and '.join(missing)} not installed (apt-get install dbus gnome-keyring), "
            "and the current D-Bus session has no unlocked Secret Service"
        )

    home = tmp_path_factory.mktemp("secret-service")
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    # Its own data dir: the keyring it creates (and unlocks) is a throwaway one.
    env = dict(os.environ, XDG_DATA_HOME=str(home / "data"), XDG_RUNTIME_DIR=str(runtime))
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    log = (home / "daemons.log").open("w")
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=log,
        env=env,
        text=True,
    )
    processes: list[subprocess.Popen[bytes] | subprocess.Popen[str]] = [bus]
    try:
        assert bus.stdout is not None
        address = bus.stdout.readline().strip()
        if not address:
            pytest.fail(f"dbus-daemon did not start; see {home / 'daemons.log'}")
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=log,
            env=env,
        )
        processes.append(daemon)
        assert daemon.stdin is not None
        daemon.stdin.write(b"payscope-test-password")
        daemon.stdin.close()
        reason: str | None = "not started"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and daemon.poll() is None:
            reason = _probe(env)
            if reason is None:
                break
            time.sleep(0.1)
        if reason is not None:
            pytest.fail(f"gnome-keyring-daemon did not come up ({reason}); see {home}/daemons.log")
        yield SecretService(address, private=True)
    finally:
        for process in reversed(processes):
            _stop(process)
        log.close()


@pytest.fixture
def real_keyring(
    secret_service: SecretService,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    memory_keyring: MemoryKeyring,
) -> KeyringBackend:
    """The keyring library's own backend detection, pointed at the real Secret Service.

    The environment is set too, so `python -m payscope` subprocesses reach the same service.
    """
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", secret_service.address)
    # No user keyringrc.cfg may pick another backend.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    # Detection caches the viable backends of its first run, which may predate this D-Bus address.
    with contextlib.suppress(KeyError, AttributeError):
        get_all_keyring.reset()  # type: ignore[attr-defined]
    keyring.core.init_backend()
    found = keyring.get_keyring()
    from keyring.backends.SecretService import Keyring as SecretServiceKeyring

    assert isinstance(found, SecretServiceKeyring), f"detected {found!r}, not the Secret Service"
    return found


@pytest.fixture
def keyring_profile(real_keyring: KeyringBackend) -> Iterator[str]:
    """A unique profile name whose keys are removed from the real keyring afterwards."""
    name = f"pytest-{uuid.uuid4().hex[:12]}"
    yield name
    for kind in ("secret", "publishable", "webhook"):
        with contextlib.suppress(PasswordDeleteError):
            real_keyring.delete_password("payscope", f"{name}:{kind}")
