"""sizes.py -- byte sizes given as ints or as "64M"."""
import re

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_size(v, what="size"):
    """Bytes of an int or a string such as "256M" (binary units, K to T)."""
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"{what}: expected an int or a string like '64M', got {v!r}")
    if isinstance(v, int):
        if v < 0:
            raise ValueError(f"{what}: negative: {v}")
        return v
    m = _SIZE.fullmatch(v)
    if not m:
        raise ValueError(f"{what}: not a size: {v!r} (use e.g. 65536, '64K', '256M', '1G')")
    return int(m.group(1)) * _UNITS[m.group(2).upper()]
