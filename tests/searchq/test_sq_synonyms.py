"""English programming thesaurus: the packaged table's shape and the expansions it gives."""

from __future__ import annotations

import re
from collections import Counter
from importlib.resources import files

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.code.query import synonyms as syn
from paicli_tui.core.code.query.terms import stem

GROUPS = syn.groups()
ALL_WORDS = sorted({w for g in GROUPS for w in g})


# --- the table ------------------------------------------------------------------------


def test_table_ships_in_the_package_and_parses() -> None:
    text = (files("paicli_tui.core.code.query") / "synonyms.tsv").read_text(encoding="utf-8")
    assert syn.parse_groups(text) == GROUPS
    assert 150 <= len(GROUPS) <= 300


def test_every_word_is_a_lower_case_ascii_single_word() -> None:
    for group in GROUPS:
        assert len(group) >= 2, group
        for word in group:
            assert re.fullmatch(r"[a-z]+", word), (word, group)


def test_no_word_in_more_than_three_groups() -> None:
    uses = Counter(w for g in GROUPS for w in g)
    assert max(uses.values()) <= syn.MAX_GROUPS_PER_WORD == 3


def test_no_duplicate_group_and_no_repeated_word_or_stem_in_a_group() -> None:
    assert len({frozenset(g) for g in GROUPS}) == len(GROUPS)
    for group in GROUPS:
        assert len(set(group)) == len(group), group
        # same-stem members are useless: full-text matching already folds them together
        assert len({stem(w) for w in group}) == len(group), group


@pytest.mark.parametrize(
    "generic",
    ["get", "set", "self", "value", "data", "type", "name", "new", "object", "return", "the"],
)
def test_very_generic_words_are_left_out(generic: str) -> None:
    assert generic not in ALL_WORDS


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("last Final", "not a lower-case ASCII word"),
        ("last fin-al", "not a lower-case ASCII word"),
        ("last\n", "at least two words"),
        ("last final last", "repeated"),
        ("last final\nfinal last", "same group as line 1"),
        ("a b\na c\na d\na e", "more than 3 groups"),
    ],
)
def test_bad_table_is_rejected_with_the_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        syn.parse_groups(text)


def test_comments_blank_lines_and_tabs_are_accepted() -> None:
    text = "# heading\n\nlast\tfinal  tail  # trailing comment\n   \nfirst head\n"
    assert syn.parse_groups(text) == (("last", "final", "tail"), ("first", "head"))


# --- expansions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("final", "last"),
        ("spacing", "padding"),
        ("delete", "remove"),
        ("remove", "delete"),
        ("begin", "start"),
        ("closest", "nearest"),
        ("show", "render"),
        ("show", "display"),
        ("size", "length"),
        ("size", "len"),
        ("outline", "tree"),
        ("shorthand", "abbreviation"),
        ("colour", "color"),
        ("exception", "error"),
        ("throw", "raise"),
        ("folder", "directory"),
        ("largest", "max"),
        ("elapsed", "duration"),
        ("mutex", "lock"),
        ("checksum", "hash"),
        ("abort", "cancel"),
        ("configuration", "config"),
    ],
)
def test_expansion_reaches_the_code_word(word: str, expected: str) -> None:
    assert expected in syn.expand([word])[word]


@pytest.mark.parametrize(
    ("word", "first"),
    [
        ("final", "last"),
        ("spacing", "padding"),
        ("delete", "remove"),
        ("begin", "start"),
        ("closest", "nearest"),
        ("colour", "color"),
    ],
)
def test_most_common_spelling_comes_first(word: str, first: str) -> None:
    assert syn.synonyms(word)[0] == first


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("colours", "color"),  # plural of a member
        ("finals", "last"),
        ("entries", "item"),
        ("deleted", "remove"),  # -ed form
        ("stopping", "halt"),  # -ing with a doubled consonant
        ("terminated", "stop"),  # its own group, not the stem-sharing "terminal"
        ("sorting", "order"),
        ("validation", "check"),  # stem only
    ],
)
def test_inflected_words_find_their_group(word: str, expected: str) -> None:
    assert expected in syn.synonyms(word)


def test_inflected_form_prefers_its_own_group() -> None:
    assert "console" not in syn.synonyms("terminated")
    assert "stop" not in syn.synonyms("terminals")


@pytest.mark.parametrize("word", ["xyzzy", "", "frobnicate", "the"])
def test_unknown_word_gives_nothing(word: str) -> None:
    assert syn.expand([word]) == {word: ()}


def test_expand_keeps_every_given_word_as_a_key() -> None:
    assert syn.expand(["final", "xyzzy"]) == {"final": syn.synonyms("final"), "xyzzy": ()}
    assert syn.expand([]) == {}


def test_word_in_several_groups_gets_all_of_them_without_repeats() -> None:
    got = syn.synonyms("outline")
    assert {"border", "frame", "tree", "hierarchy"} <= set(got)
    assert len(got) == len(set(got))


@given(st.sampled_from(ALL_WORDS) | st.text(alphabet="abcdefghijklmnopqrstuvwxyz", max_size=12))
def test_the_word_and_its_stem_twins_are_never_returned(word: str) -> None:
    got = syn.synonyms(word)
    assert word not in got
    assert all(stem(s) != stem(word) for s in got)
    assert len(got) == len(set(got))
    assert syn.expand([word]) == {word: got}


@pytest.mark.parametrize("word", ALL_WORDS[::7])
def test_every_member_expands_to_its_group(word: str) -> None:
    got = set(syn.synonyms(word))
    for group in GROUPS:
        if word in group:
            assert {w for w in group if stem(w) != stem(word)} <= got
