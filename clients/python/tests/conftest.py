"""Tests run against the package of this checkout and its build/libgradeq.so
(or GRADEQ_LIB). Queue tests need GRADEQ_TEST_REDIS, the URL of a Redis
served by a running gradeq-worker (tests/integration/clients.sh sets it)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
