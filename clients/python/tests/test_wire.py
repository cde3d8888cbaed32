"""The queue's msgpack shapes, without Redis: what submit sends, how a
result reads."""
from decimal import Decimal

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
    data = msgpack.packb({"id": "x", "status": "OK", "worker": "w", "later": [1]})
    r = gradeq._wire.decode_result(data)
    assert r.ok and r.later == [1]
    with pytest.raises(AttributeError):
        r.no_such_field
    assert not gradeq._wire.decode_result(msgpack.packb({"status": "RUNTIME_ERROR", "ok": True})).ok


def test_grading_fields_read_as_attributes():
    data = msgpack.packb({"status": "WRONG_ANSWER", "passed": 0, "total": 1,
                          "compile": {"status": "OK", "stderr": b"\xfe", "exit_code": 0, "signal": None},
                          "tests": [{"name": "1", "status": "WRONG_ANSWER", "stdout": b"\xff", "exit_code": None,
                                     "checker_message": None, "later": 2}]}, use_bin_type=True)
    r = gradeq._wire.decode_result(data)
    assert r.compile.ok and r.compile.stderr == b"\xfe" and r.compile.signal is None
    t = r.tests[0]
    assert isinstance(t, gradeq.TestResult) and not t.ok and t.stdout == b"\xff" and t.stderr == b""
    assert t.exit_code is None and t.checker_message is None and t.later == 2 and t.cpu_us == 0
    plain = gradeq._wire.decode_result(msgpack.packb({"status": "OK"}))
    assert plain.compile is None and plain.tests == [] and (plain.passed, plain.total) == (0, 0)


def test_scores_are_exact_decimals():
    data = msgpack.packb({"status": "PARTIAL", "score": "12.6", "max_score": "100",
                          "groups": [{"name": "A", "status": "OK", "score": "12.5", "max_score": "12.5",
                                      "message": None}],
                          "tests": [{"name": "1", "status": "PARTIAL", "score": "0.1", "max_score": "1",
                                     "group": None},
                                    {"name": "2", "status": "OK", "score": "12.5", "max_score": "12.5",
                                     "group": "A"}]})
    r = gradeq._wire.decode_result(data)
    assert r.score == Decimal("12.6") and isinstance(r.score, Decimal) and r.max_score == 100
    assert sum(t.score for t in r.tests) == r.score  # 12.5 + 0.1, exactly
    g = r.groups[0]
    assert isinstance(g, gradeq.GroupResult) and g.ok and g.name == "A" and g.message is None
    assert r.tests[1].group == "A" and r.tests[0].group is None
    old = gradeq._wire.decode_result(msgpack.packb({"status": "OK", "tests": [{"name": "1", "status": "OK"}]}))
    assert old.score == 0 and old.groups == [] and old.tests[0].max_score == 0
