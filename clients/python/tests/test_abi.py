"""The ctypes structures of gradeq._lib match sandbox/sandbox.h: a C program
built from the header prints every size and offset, compared here."""
import ctypes
import os
import shutil
import subprocess

import pytest

from gradeq import _lib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STRUCTS = {"sbx_limits": _lib.Limits, "sbx_file": _lib.File, "sbx_spec": _lib.Spec,
           "sbx_result": _lib.RawResult, "sbx_host_options": _lib.HostOptions}


def test_layouts_match_the_header(tmp_path):
    if not shutil.which("cc") or not os.path.exists(os.path.join(TOP, "sandbox", "sandbox.h")):
        pytest.skip("needs cc and the checkout's sandbox/sandbox.h")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "sandbox/sandbox.h"', "int main(void) {"]
    for c, py in STRUCTS.items():
        lines.append(f'printf("{c} size %zu\\n", sizeof({c}));')
        for name, *_ in py._fields_:
            lines.append(f'printf("{c} {name} %zu\\n", offsetof({c}, {name}));')
    lines += ['printf("SBX_ERR_LEN %d\\n", SBX_ERR_LEN);', 'printf("SBX_ISO_ALL %u\\n", SBX_ISO_ALL);',
              'return 0; }']
    src, exe = tmp_path / "abi.c", tmp_path / "abi"
    src.write_text("\n".join(lines))
    subprocess.run(["cc", "-std=c11", "-I", TOP, str(src), "-o", str(exe)], check=True, timeout=60)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=10).stdout.splitlines()
    want = []
    for c, py in STRUCTS.items():
        want.append(f"{c} size {ctypes.sizeof(py)}")
        want += [f"{c} {name} {getattr(py, name).offset}" for name, *_ in py._fields_]
    want += [f"SBX_ERR_LEN {_lib.ERR_LEN}", f"SBX_ISO_ALL {_lib.ISO_ALL}"]
    assert got == want


def test_status_names_match_the_library():
    lib = _lib.lib()
    assert [lib.sbx_status_name(i).decode() for i in range(len(_lib.STATUS_NAMES))] == list(_lib.STATUS_NAMES)
    assert lib.sbx_status_name(len(_lib.STATUS_NAMES)) is None
