"""errors.py -- what gradeq raises and warns, for local runs and the queue."""


class SandboxError(RuntimeError):
    """The sandbox could not be started or failed (never the program's fault)."""


class IsolationError(SandboxError):
    """require_isolation=True and some protection does not hold here."""


class IsolationWarning(UserWarning):
    """The run was degraded: some protections did not hold."""
