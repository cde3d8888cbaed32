"""result.py -- the result of a run, local or from the queue.

Known fields are attributes with the defaults of docs/protocol.md (a field
a result leaves out reads as zero, False, None or empty); fields this
version does not know (a grading result's verdicts, say) are kept in
`extra` and read as attributes too.
"""
from dataclasses import dataclass, field, fields


@dataclass
class Result:
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
    extra: dict = field(default_factory=dict)

    @property
    def ok(self):
        return self.status == "OK"

    def __getattr__(self, name):
        # Only reached for names that are not fields.
        extra = self.__dict__.get("extra", {})
        if name in extra:
            return extra[name]
        raise AttributeError(f"Result has no field {name!r}")

    @classmethod
    def from_map(cls, m):
        """A Result from a decoded result map (str keys)."""
        known = {f.name for f in fields(cls)} - {"extra"}
        kw = {k: v for k, v in m.items() if k in known and v is not None}
        r = cls(**kw)
        r.extra = {k: v for k, v in m.items() if k not in known}
        return r
