"""What changed between two views, as splices (ledger schema 2).

A splice ``[start, end, entries]`` says "positions ``start:end`` of the previous view were
replaced by ``entries``". A rewrite of the view (compaction, clearing, /clear, a repair) is
recorded as the few splices that turn the old view into the new one, so its size follows what
changed, not the length of the session. Both functions are pure: the writer computes splices,
the reader applies them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_HasId)
Splice = tuple[int, int, list[T]]


def _kept_pairs(old: Sequence[T | None], new: Sequence[T],
                same: Callable[[T, T], bool]) -> list[tuple[int, int]]:
    """The longest run of (new index, old index) pairs, both increasing, whose messages are
    unchanged: what the new view keeps of the old one. O(n log n) (patience sorting)."""
    where: dict[str, int] = {}
    for index, message in enumerate(old):
        if message is not None:
            where.setdefault(message.id, index)
    pairs: list[tuple[int, int]] = []
    for j, message in enumerate(new):
        p = where.get(message.id)
        if p is not None and same(old[p], message):  # type: ignore[arg-type]
            pairs.append((j, p))
    tails: list[int] = []  # tails[k]: the smallest old index ending a run of length k+1
    tail_at: list[int] = []  # index into pairs of that tail
    back: list[int] = [-1] * len(pairs)
    for k, (_, p) in enumerate(pairs):
        slot = bisect_left(tails, p)
        if slot == len(tails):
            tails.append(p)
            tail_at.append(k)
        else:
            tails[slot] = p
            tail_at[slot] = k
        back[k] = tail_at[slot - 1] if slot else -1
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    run.reverse()
    return run


def view_splices(old: Sequence[T | None], new: Sequence[T],
                 same: Callable[[T, T], bool]) -> list[Splice[T]]:
    """The splices turning ``old`` into ``new`` (empty when nothing changed). ``None`` in
    ``old`` stands for a message the reader could not rebuild: it is always replaced."""
    if list(old) == list(new):  # C speed: identity first, then equality, per item
        return []
    splices: list[Splice[T]] = []
    old_at = new_at = 0
    for j, p in [*_kept_pairs(old, new, same), (len(new), len(old))]:
        if p > old_at or j > new_at:
            splices.append((old_at, p, list(new[new_at:j])))
        old_at, new_at = p + 1, j + 1
    return splices


def apply_splices(view: list[Any], splices: object,
                  resolve: Callable[[list[Any]], list[Any]]) -> list[Any] | None:
    """The view after ``splices`` (entries turned into records by ``resolve``), or None when
    they are not a list of ascending, in-range ``[start, end, [entries]]``: the caller keeps
    the view it had (an unknown or damaged change never empties a session)."""
    if not isinstance(splices, list):
        return None
    cursor = 0
    for splice in splices:  # check everything before resolving anything
        if not (isinstance(splice, list) and len(splice) == 3
                and type(splice[0]) is int and type(splice[1]) is int
                and isinstance(splice[2], list)
                and cursor <= splice[0] <= splice[1] <= len(view)):
            return None
        cursor = splice[1]
    out: list[Any] = []
    cursor = 0
    for start, end, entries in splices:
        out.extend(view[cursor:start])
        out.extend(resolve(entries))
        cursor = end
    out.extend(view[cursor:])
    return out
