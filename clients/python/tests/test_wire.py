"""The queue's msgpack shapes, without Redis: what submit sends, how a
result reads."""
import msgpack
import pytest

import gradeq
from gradeq import _wire


def test_job_without_none_and_with_an_id():
    job_id, data = _wire.encode_job({"argv": ["x"], "stdin": None, "limits": {"cpu_ms": None, "memory_bytes": "1M"},
                                     "interactor": {"argv": ["j"], "limits": {"stdout_bytes": "1K", "wall_ms": None}}})
    m = msgpack.unpackb(data)
    assert m == {"argv": ["x"], "limits": {"memory_bytes": 1 << 20}, "id": job_id,
                 "interactor": {"argv": ["j"], "limits": {"stdout_bytes": 1024}}}
    assert _wire.encode_job({"id": "mine", "argv": ["x"]})[0] == "mine"
    with pytest.raises(TypeError):
        _wire.encode_job(["x"])


def test_bytes_go_as_bin_and_text_as_str():
    _, data = _wire.encode_job({"argv": ["x"], "stdin": b"\xff", "files": {"a": "text"}})
    raw = msgpack.unpackb(data, raw=True)
    assert raw[b"stdin"] == b"\xff" and raw[b"files"][b"a"] == b"text"


def test_urls_take_the_workers_user_parameter():
    assert _wire.redis_url("unix:///r.sock?user=u&password=p%40") == "unix:///r.sock?username=u&password=p%40"
    assert _wire.redis_url("redis://:pw@h:1/0") == "redis://:pw@h:1/0"


def test_unknown_result_fields_read_as_attributes():
    data = msgpack.packb({"id": "x", "status": "OK", "worker": "w", "tests": [{"verdict": "OK"}]})
    r = gradeq._wire.decode_result(data)
    assert r.ok and r.tests == [{"verdict": "OK"}]
    with pytest.raises(AttributeError):
        r.no_such_field
    assert not gradeq._wire.decode_result(msgpack.packb({"status": "RUNTIME_ERROR", "ok": True})).ok
