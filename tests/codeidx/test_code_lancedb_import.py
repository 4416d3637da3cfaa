"""Cold start: lancedb is imported with its import-time checks off (issue 16) and its REST
namespace client's package lazily, and everything is as before afterwards: the two
decorators are the real ones again, lancedb works, a class that should be rejected by
``EnforceOverrides`` still is, and the lazy package resolves every name it re-exports (a
package whose ``__init__`` does anything else is imported normally)."""

from __future__ import annotations

import subprocess
import sys

CHECK = r"""
import sys, tempfile
import pydantic, overrides
real_validate, real_override = pydantic.validate_call, overrides.override
real_config = pydantic.ConfigDict
from paicli_tui.core.code.lance_store import import_lancedb
lancedb = import_lancedb()
assert "lancedb" in sys.modules and import_lancedb() is lancedb
assert pydantic.validate_call is real_validate and overrides.override is real_override
assert pydantic.ConfigDict is real_config
# a model defined during the import builds its validator on first use, and validates
from lance_namespace_urllib3_client.models.identity import Identity
assert Identity.model_config.get("defer_build") is True
assert Identity(api_key="k").api_key == "k"
try:
    Identity(api_key=5)
except pydantic.ValidationError:
    pass
else:
    raise SystemExit("a deferred model no longer validates")

class Later(pydantic.BaseModel):  # after the import: as always
    model_config = pydantic.ConfigDict(frozen=True)
    n: int
assert "defer_build" not in Later.model_config and Later(n=1).n == 1
# the REST namespace client's API modules are not imported, yet every name still resolves
assert not [m for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api.")]
import lance_namespace_urllib3_client as client
from lance_namespace_urllib3_client.api.table_api import TableApi
assert client.TableApi is TableApi and client.__version__
try:
    client.NoSuchName
except AttributeError:
    pass
else:
    raise SystemExit("a missing name resolved")

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


LAZY = r"""
import sys
sys.path.insert(0, sys.argv[1])
from paicli_tui.core.code.lance_store import _lazy_package
_lazy_package("reexports")
_lazy_package("busy")
import reexports, busy
assert "reexports.heavy" not in sys.modules and reexports.__version__ == "1.2"
assert reexports.Thing.__name__ == "Thing" and reexports.Other is reexports.Thing
assert "reexports.heavy" in sys.modules
assert busy.started is True  # its own code ran: imported the normal way
print("ok")
"""


def test_only_pure_reexport_packages_are_made_lazy(tmp_path) -> None:
    lazy = tmp_path / "reexports"
    lazy.mkdir()
    (lazy / "__init__.py").write_text('"""Names."""\n__version__ = "1.2"\n'
                                      "from reexports.heavy import Thing\n"
                                      "from reexports.heavy import Thing as Other\n")
    (lazy / "heavy.py").write_text("class Thing:\n    pass\n")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "__init__.py").write_text("from busy.parts import x\nstarted = True\n")
    (busy / "parts.py").write_text("x = 1\n")
    done = subprocess.run([sys.executable, "-c", LAZY, str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
