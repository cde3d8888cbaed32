"""pool.py -- the boxes of this process for gradeq.run: bounded, shrinking,
and safe across fork().

A box (a machine-wide slot, with its zygote) costs a zygote start to open,
so runs reuse idle ones: a run takes the idle box given back last, or opens
one, and gives it back. At most max_boxes are open at once (a run beyond
waits for one to be given back), at most max_idle are kept idle, and a box
idle for idle_seconds is closed by a reaper thread that lives only while
some box is idle: a burst of runs does not hold the machine's slots, which
every gradeq process and worker on it shares, for the life of the process.

A box belongs to the process that opened it: its slot lock and its zygote
(which ends when the socket to it reaches end-of-file). After fork() the
child forgets every box it inherited (sbx_box_forget closes the child's
copies of their descriptors and touches nothing else; closing them as boxes
would kill the parent's zygotes, keeping them would keep the parent's slots
locked and its zygotes alive after the parent died) and opens its own. So
that the child finds every box whole, opening and closing hold `life`,
which the fork handler takes too.

Locks: `life` before `lock`, never the other way; `lock` (with its two
conditions) guards every field below and is never held across a call into
the library, `life` only across opening and closing boxes and the host.
"""
import ctypes
import math
import os
import threading
import time

from . import _lib
from .errors import SandboxError


class Pool:
    def __init__(self):
        self.max_boxes = 64
        self.max_idle = os.cpu_count() or 1
        self.idle_seconds = 30.0
        self._fresh()
        os.register_at_fork(before=self._before_fork, after_in_parent=self._after_fork_in_parent,
                            after_in_child=self._after_fork_in_child)

    def _fresh(self):
        self.life = threading.Lock()
        self.lock = threading.Lock()
        self.freed = threading.Condition(self.lock)  # a box was given back or closed
        self.tick = threading.Condition(self.lock)   # the reaper: idle boxes or settings changed
        self.pid = os.getpid()
        self.host = None
        self.boxes = {}      # pointer value -> c_void_p: every box of this process, open or in use
        self.opening = 0     # boxes being opened, counted against max_boxes
        self.closing = 0     # boxes out of `idle`, being closed (still in `boxes`)
        self.idle = []       # (monotonic time given back, box), oldest first
        self.reaper = None
        self.closed = False

    # ---- settings ---------------------------------------------------------

    def configure(self, max_boxes=None, max_idle=None, idle_seconds=None):
        def count(v, what, low):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"{what}: expected an int >= {low}, got {v!r}")
            return v
        if max_boxes is not None:
            count(max_boxes, "max_boxes", 1)
        if max_idle is not None:
            count(max_idle, "max_idle", 0)
        if idle_seconds is not None and (isinstance(idle_seconds, bool) or not isinstance(idle_seconds, (int, float))
                                         or math.isnan(idle_seconds) or idle_seconds < 0):
            raise ValueError(f"idle_seconds: expected a number >= 0, got {idle_seconds!r}")
        with self.lock:
            if max_boxes is not None:
                self.max_boxes = max_boxes
            if max_idle is not None:
                self.max_idle = max_idle
            if idle_seconds is not None:
                self.idle_seconds = float(idle_seconds)
            extra = self._trim()
            self.freed.notify_all()
            self.tick.notify_all()
            settings = {"max_boxes": self.max_boxes, "max_idle": self.max_idle, "idle_seconds": self.idle_seconds}
        self._close(extra)
        return settings

    # ---- taking and giving boxes -------------------------------------------

    def take(self):
        """A box for one run: an idle one, a new one, or the next one given
        back when max_boxes are open."""
        if os.getpid() != self.pid:  # forked without Python's fork handlers (a C extension's fork)
            self._after_fork_in_child()
        with self.lock:
            while True:
                if self.closed:
                    raise SandboxError("gradeq: the sandbox is shut down (the interpreter is exiting)")
                if self.idle:
                    return self.idle.pop()[1]
                if len(self.boxes) + self.opening < self.max_boxes:
                    self.opening += 1
                    break
                self.freed.wait()
        try:
            return self._open()
        finally:
            with self.lock:
                self.opening -= 1
                self.freed.notify()

    def give(self, box):
        with self.lock:
            if box.value not in self.boxes:  # a parent's box, forgotten by a child forked during its run
                return
            if self.closed:
                self.closing += 1
                extra = [box]
            else:
                self.idle.append((time.monotonic(), box))
                extra = self._trim()
                if self.idle and self.reaper is None:
                    self.reaper = threading.Thread(target=self._reap, name="gradeq-box-reaper", daemon=True)
                    self.reaper.start()
            self.freed.notify()
        self._close(extra)

    def _trim(self):
        # Under self.lock: the idle boxes beyond max_idle, or beyond max_boxes open.
        return self._detach(max(len(self.idle) - self.max_idle, len(self.boxes) - self.closing - self.max_boxes))

    def _detach(self, n):
        # Under self.lock: the n oldest idle boxes, out of the list, to be closed.
        n = min(len(self.idle), max(0, n))
        out = [b for _, b in self.idle[:n]]
        del self.idle[:n]
        self.closing += n
        return out

    def _reap(self):
        """Closes each box idle for idle_seconds; ends when none is idle."""
        while True:
            with self.lock:
                while True:
                    if self.closed or not self.idle:
                        self.reaper = None
                        return
                    left = self.idle[0][0] + self.idle_seconds - time.monotonic()
                    if left <= 0:
                        break
                    self.tick.wait(min(left, threading.TIMEOUT_MAX))  # idle_seconds may be math.inf
            with self.life:
                with self.lock:
                    now = time.monotonic()
                    expired = self._detach(sum(1 for since, _ in self.idle if since + self.idle_seconds <= now))
                self._close_holding_life(expired)

    # ---- opening and closing -----------------------------------------------

    def _host(self):
        # Under self.life.
        if self.host is None:
            lib, h, err = _lib.lib(), ctypes.c_void_p(), ctypes.create_string_buffer(_lib.ERR_LEN)
            if lib.sbx_host_open(ctypes.byref(h), None, err, _lib.ERR_LEN) < 0:
                raise SandboxError("gradeq: cannot start the sandbox: " + err.value.decode(errors="replace"))
            self.host = h
        return self.host

    def host_isolation(self):
        # The first box's zygote finds whether namespaces hold: open one
        # (the run takes it next) before the host can say.
        self.give(self.take())
        with self.life:
            h = self._host()
            lib = _lib.lib()
            return lib.sbx_host_isolation(h), lib.sbx_host_describe(h).decode(errors="replace")

    def _open(self):
        with self.life:
            h = self._host()
            b, err = ctypes.c_void_p(), ctypes.create_string_buffer(_lib.ERR_LEN)
            if _lib.lib().sbx_box_open(h, ctypes.byref(b), err, _lib.ERR_LEN) < 0:
                raise SandboxError("gradeq: cannot start a sandbox box: " + err.value.decode(errors="replace"))
            with self.lock:
                self.boxes[b.value] = b
            return b

    def _close(self, boxes):
        if boxes:
            with self.life:
                self._close_holding_life(boxes)

    def _close_holding_life(self, boxes):
        for b in boxes:
            _lib.lib().sbx_box_close(b)
        with self.lock:
            for b in boxes:
                del self.boxes[b.value]
            self.closing -= len(boxes)
            if boxes:
                self.freed.notify_all()

    def close(self):
        """At exit: closes the idle boxes, and the host once no run holds a box."""
        with self.life:
            with self.lock:
                if self.pid != os.getpid():
                    return
                self.closed = True
                idle = self._detach(len(self.idle))
                self.tick.notify_all()
                self.freed.notify_all()
            self._close_holding_life(idle)
            with self.lock:
                done = not self.boxes
            if done and self.host is not None:
                _lib.lib().sbx_host_close(self.host)
                self.host = None

    # ---- fork ------------------------------------------------------------------

    def _before_fork(self):
        self.life.acquire()
        self.lock.acquire()

    def _after_fork_in_parent(self):
        self.lock.release()
        self.life.release()

    def _after_fork_in_child(self):
        # The parent's other threads (runs, the reaper) do not exist here,
        # and the locks they may have held are replaced. The parent's host
        # is plain memory whose mutex one of them may have held: left
        # unused, never freed.
        inherited = list(self.boxes.values())
        self._fresh()
        lib = _lib.loaded()
        for b in inherited:
            lib.sbx_box_forget(b)
