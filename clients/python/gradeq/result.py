"""result.py -- the result of a run, local or from the queue.

Known fields are attributes with the defaults of docs/protocol.md (a field
a result leaves out reads as zero, False, None or empty); fields this
version does not know are kept in `extra` and read as attributes too. A
grading result's `compile` is a Result of its own, each of its `tests` a
TestResult and each of its `groups` a GroupResult, so their fields are
attributes as well (bytes for the outputs, as at the top level). Scores
are decimal strings on the wire and decimal.Decimal here: exact, as the
worker computed them (12.5 + 0.1 is 12.6, never 12.599999999999998).
"""
from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation

_SCORES = ("score", "max_score")


def _decimal(v):
    """A score of the wire (a decimal string) as a Decimal; anything else
    is kept as it came, for the caller to see."""
    if isinstance(v, (str, int)) and not isinstance(v, bool):
        try:
            return Decimal(v)
        except InvalidOperation:
            pass
    return v


class _Fields:
    """from_map, `.ok` and the unknown fields as attributes."""

    @property
    def ok(self):
        return self.status == "OK"

    def __getattr__(self, name):
        # Only reached for names that are not fields.
        extra = self.__dict__.get("extra", {})
        if name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    @classmethod
    def from_map(cls, m):
        """One from a decoded result map (str keys); nil reads as absent."""
        known = {f.name for f in fields(cls)} - {"extra"}
        r = cls(**{k: _decimal(v) if k in _SCORES else v for k, v in m.items() if k in known and v is not None})
        r.extra = {k: v for k, v in m.items() if k not in known}
        return r


@dataclass
class TestResult(_Fields):
    """One test of a grading result."""
    __test__ = False  # not a pytest test class, whatever its name
    name: str = ""
    status: str = ""
    exit_code: "int | None" = None
    signal: "int | None" = None
    cpu_us: int = 0
    wall_us: int = 0
    memory_bytes: int = 0
    checker_message: "str | None" = None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    score: Decimal = Decimal(0)
    max_score: Decimal = Decimal(0)
    group: "str | None" = None
    extra: dict = field(default_factory=dict)


@dataclass
class GroupResult(_Fields):
    """One group (subtask) of a grading result: OK when every test of it
    is, SKIPPED when it was not run (message says why), else the status of
    its first failed test."""
    name: str = ""
    status: str = ""
    score: Decimal = Decimal(0)
    max_score: Decimal = Decimal(0)
    message: "str | None" = None
    extra: dict = field(default_factory=dict)


@dataclass
class Result(_Fields):
    status: str = ""
    exit_code: "int | None" = None
    signal: "int | None" = None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    cpu_us: int = 0
    wall_us: int = 0
    memory_bytes: int = 0
    isolation: list = field(default_factory=list)
    error: "str | None" = None
    id: "str | None" = None
    worker: "str | None" = None
    attempt: int = 0
    interactor: "dict | None" = None
    transcript: "bytes | None" = None
    waiting_for_input: bool = False
    ended_by_callback: bool = False
    compile: "Result | None" = None
    tests: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    passed: int = 0
    total: int = 0
    score: Decimal = Decimal(0)
    max_score: Decimal = Decimal(0)
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_map(cls, m):
        r = super().from_map(m)
        if isinstance(r.compile, dict):
            r.compile = Result.from_map(r.compile)
        if isinstance(r.tests, list):
            r.tests = [TestResult.from_map(t) if isinstance(t, dict) else t for t in r.tests]
        if isinstance(r.groups, list):
            r.groups = [GroupResult.from_map(g) if isinstance(g, dict) else g for g in r.groups]
        return r
