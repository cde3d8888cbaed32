"""errors.py -- what gradeq raises and warns, for local runs and the queue."""


class SandboxError(RuntimeError):
    """The sandbox could not be started or failed (never the program's fault)."""


class IsolationError(SandboxError):
    """require_isolation=True and some protection does not hold here."""


class IsolationWarning(UserWarning):
    """The run was degraded: some protections did not hold."""


class ResultError(ValueError):
    """A result read from the queue that cannot be decoded. job_id names its
    job; stream_id its entry of the results stream (None when it was read
    from the job's result list)."""

    def __init__(self, message, job_id=None, stream_id=None):
        super().__init__(message)
        self.job_id = job_id
        self.stream_id = stream_id


class ResultWarning(UserWarning):
    """A result left out (results) or skipped (follow) because it cannot be
    decoded; the message names its job and stream entry."""
