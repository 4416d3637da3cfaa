"""Cold start: lancedb is imported with its import-time checks off (issue 16), and
everything is as before afterwards: the two decorators are the real ones again, lancedb
works, and a class that should be rejected by ``EnforceOverrides`` still is."""

from __future__ import annotations

import subprocess
import sys

CHECK = r"""
import sys, tempfile
import pydantic, overrides
real_validate, real_override = pydantic.validate_call, overrides.override
from paicli_tui.core.code.lance_store import import_lancedb
lancedb = import_lancedb()
assert "lancedb" in sys.modules and import_lancedb() is lancedb
assert pydantic.validate_call is real_validate and overrides.override is real_override

@pydantic.validate_call
def double(x: int) -> int:
    return 2 * x
try:
    double("not a number")
except pydantic.ValidationError:
    pass
else:
    raise SystemExit("validate_call no longer validates")

class Base(overrides.EnforceOverrides):
    def run(self): ...
try:
    class Child(Base):
        def run(self): ...
except TypeError:
    pass
else:
    raise SystemExit("EnforceOverrides no longer enforces")

db = lancedb.connect(tempfile.mkdtemp())
table = db.create_table("t", data=[{"id": "a", "text": "alpha beta"},
                                   {"id": "b", "text": "gamma"}])
table.create_fts_index("text")
hits = table.search("alpha", query_type="fts").limit(5).to_list()
assert [h["id"] for h in hits] == ["a"], hits
print("ok")
"""


def test_lancedb_imports_without_its_checks_and_works() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
