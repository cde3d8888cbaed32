"""wheel_backend.py -- a PEP 517 backend that builds gradeq's wheel (pure
Python: the package directory as it is, and the metadata of pyproject.toml)
with the standard library alone, so that installing needs no network."""
import base64
import hashlib
import os
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _metadata(p):
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p['description']}", f"Requires-Python: {p['requires-python']}",
             f"License: {p['license']['text']}"]
    for extra, reqs in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    with open(os.path.join(ROOT, p["readme"]), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines + ["Description-Content-Type: text/markdown", "", readme])


def _dist_info(p):
    return f"{p['name']}-{p['version']}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    p = _project()
    d = os.path.join(metadata_directory, _dist_info(p))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(p))
    return _dist_info(p)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    name = f"{p['name']}-{p['version']}-py3-none-any.whl"
    info = _dist_info(p)
    entries = []
    pkg = os.path.join(ROOT, p["name"])
    for f in sorted(os.listdir(pkg)):
        if f.endswith(".py"):
            with open(os.path.join(pkg, f), "rb") as fh:
                entries.append((f"{p['name']}/{f}", fh.read()))
    wheel = "Wheel-Version: 1.0\nGenerator: gradeq wheel_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries += [(f"{info}/METADATA", _metadata(p).encode()), (f"{info}/WHEEL", wheel.encode())]
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in entries:
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return name
