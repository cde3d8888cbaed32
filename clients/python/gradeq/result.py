"""result.py -- the result of a run, local or from the queue.

Known fields are attributes with the defaults of docs/protocol.md (a field
a result leaves out reads as zero, False, None or empty); fields this
version does not know are kept in `extra` and read as attributes too. A
grading result's `compile` is a Result of its own and each of its `tests`
a TestResult, so their fields are attributes as well (bytes for the
outputs, as at the top level).
"""
from dataclasses import dataclass, field, fields


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
        r = cls(**{k: v for k, v in m.items() if k in known and v is not None})
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
    passed: int = 0
    total: int = 0
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_map(cls, m):
        r = super().from_map(m)
        if isinstance(r.compile, dict):
            r.compile = Result.from_map(r.compile)
        if isinstance(r.tests, list):
            r.tests = [TestResult.from_map(t) if isinstance(t, dict) else t for t in r.tests]
        return r
