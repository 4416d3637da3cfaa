"""Settings precedence (defaults < file < env < flags), validation and secret hiding."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from paicli_tui.config import ConfigError, Secret, load_settings


def _home(tmp_path: Path, toml: str | None = None) -> dict[str, str]:
    if toml is not None:
        (tmp_path / "config.toml").write_text(toml, encoding="utf-8")
    return {"PAICLI_HOME": str(tmp_path)}


def test_defaults(tmp_path: Path) -> None:
    s = load_settings({}, _home(tmp_path))
    assert s.provider is None and s.window is None
    assert s.offload_threshold_chars == 32_000
    assert s.home.home == tmp_path
    assert not (tmp_path / "config.toml").exists(), "loading settings must create nothing"


@pytest.mark.parametrize(
    ("toml", "env", "flags", "expected"),
    [
        (None, {}, {}, None),
        ('model = "from-file"', {}, {}, "from-file"),
        ('model = "from-file"', {"PAICLI_MODEL": "from-env"}, {}, "from-env"),
        ('model = "from-file"', {"PAICLI_MODEL": "from-env"}, {"model": "from-flag"}, "from-flag"),
        (None, {}, {"model": None}, None),
    ],
)
def test_precedence(tmp_path: Path, toml, env, flags, expected) -> None:
    s = load_settings(flags, {**_home(tmp_path, toml), **env})
    assert s.model == expected


def test_types_are_coerced(tmp_path: Path) -> None:
    s = load_settings({}, {**_home(tmp_path, "auto_extract = false\n"), "PAICLI_WINDOW": "16000"})
    assert s.window == 16_000 and s.auto_extract is False


@pytest.mark.parametrize(
    ("toml", "env", "message"),
    [
        ("model = ", {}, "not valid TOML"),
        ("colour = 1", {}, "unknown setting"),
        (None, {"PAICLI_WINDOW": "lots"}, "PAICLI_WINDOW"),
        ("offload_threshold_chars = 100", {}, "at least 2000"),
        ('theme = "pink"', {}, "theme"),
        ("memory_dice_threshold = 0", {}, "memory_dice_threshold"),
        ("memory_dice_threshold = 1.5", {}, "memory_dice_threshold"),
    ],
)
def test_bad_values_are_clear_errors(tmp_path: Path, toml, env, message) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings({}, {**_home(tmp_path, toml), **env})


def test_a_config_nested_too_deeply_is_a_clear_error(tmp_path: Path) -> None:
    """tomllib recurses into arrays: [[[[… was a traceback at start, not a ConfigError."""
    with pytest.raises(ConfigError, match=r"not valid TOML \(nested too deeply\)"):
        load_settings({}, _home(tmp_path, "x = " + "[" * 100_000))


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    """A file with several problems names all of them in one error (one per line), with the
    environment's and the ranges' problems after it: fixing one only to meet the next was a
    slow loop (an unknown name hid a bad window and a bad theme)."""
    toml = 'frobnicate = 1\nwindow = -3\ntheme = "pink"\nsearch_top_k = 99\n'
    with pytest.raises(ConfigError) as caught:
        load_settings({}, {**_home(tmp_path, toml), "PAICLI_WINDOW": "lots"})
    path = tmp_path / "config.toml"
    assert str(caught.value).splitlines() == [
        f"{path}: unknown setting: frobnicate",
        f"{path}: window must be above 0, got -3",
        "environment variable PAICLI_WINDOW: window must be a whole number, got 'lots'",
        "search_top_k must be between 1 and 30",
        "theme must be 'dark' or 'light'",
    ]


def test_secrets_never_print(tmp_path: Path) -> None:
    env = {**_home(tmp_path), "PAICLI_API_KEY": "sk-live-123", "DEEPSEEK_API_KEY": "sk-ds-456"}
    s = load_settings({}, env)
    text = repr(s) + str(s) + repr(s.provider_keys)
    assert "sk-live-123" not in text and "sk-ds-456" not in text
    assert s.key_for("DEEPSEEK_API_KEY") == Secret("sk-live-123"), "explicit key wins"
    s2 = load_settings({}, {**_home(tmp_path), "DEEPSEEK_API_KEY": "sk-ds-456"})
    assert s2.key_for("DEEPSEEK_API_KEY").reveal() == "sk-ds-456"
    assert s2.key_for("OPENAI_API_KEY") is None


@pytest.mark.parametrize(("before", "after"), [
    ("", 'theme = "light"\n'),
    ('provider = "glm"\n', 'provider = "glm"\ntheme = "light"\n'),
    ('theme = "dark"\nprovider = "glm"\n', 'theme = "light"\nprovider = "glm"\n'),
    ('# mine\n  theme="dark"  \nmodel = "x"\n', '# mine\ntheme = "light"\nmodel = "x"\n'),
])
def test_keep_setting_rewrites_one_line_and_keeps_the_rest(tmp_path, before, after) -> None:
    from paicli_tui.config import keep_setting

    path = tmp_path / "home" / "config.toml"
    if before:
        path.parent.mkdir()
        path.write_text(before, encoding="utf-8")
    keep_setting(path, "theme", "light")
    assert path.read_text(encoding="utf-8") == after
    assert load_settings({}, {"PAICLI_HOME": str(tmp_path / "home")}).theme == "light"


def test_keep_setting_leaves_a_config_nested_too_deeply_alone(tmp_path) -> None:
    """tomllib recurses into arrays: a config.toml holding [[[[… ended /theme in a traceback."""
    from paicli_tui.config import keep_setting

    path = tmp_path / "config.toml"
    text = "x = " + "[" * 100_000
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nested too deeply\); not changed"):
        keep_setting(path, "theme", "light")
    assert path.read_text(encoding="utf-8") == text


def test_keep_setting_keeps_a_config_holding_a_key_private(tmp_path) -> None:
    """config.toml may hold api_key; rewritten for /theme under the default umask it came
    back readable by every user of the machine (0644), even when the person had made it 0600."""
    import os
    import stat

    from paicli_tui.config import keep_setting

    path = tmp_path / "config.toml"
    path.write_text('api_key = "sk-live-4Tq8Wm2Zr6Yp9Kc3Vn7Xb5"\n', encoding="utf-8")
    os.chmod(path, 0o600)
    before = os.umask(0o022)
    try:
        keep_setting(path, "theme", "light")
    finally:
        os.umask(before)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text(encoding="utf-8") == ('api_key = "sk-live-4Tq8Wm2Zr6Yp9Kc3Vn7Xb5"\n'
                                                'theme = "light"\n')


def test_keep_setting_leaves_a_broken_file_alone(tmp_path) -> None:
    from paicli_tui.config import keep_setting

    path = tmp_path / "config.toml"
    path.write_text("theme = [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not changed"):
        keep_setting(path, "theme", "light")
    assert path.read_text(encoding="utf-8") == "theme = [unclosed\n"
    # no temporary file left; the write's lock file stays (see file_locks)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "config.toml.lock"]


@pytest.mark.parametrize(("name", "value", "masked"), [
    ("GITHUB_TOKEN", "ghp_0123456789abcdef", True),
    ("OPENAI_API_KEY", "sk-0123456789abcdef", True),
    ("DB_PASSWORD", "correct-horse-battery", True),
    ("GITLAB_PAT", "glpat-0123456789", True),
    ("x-auth-header", "Bearer abcdefgh12", True),
    ("AUTHOR", "Jane Developer", False),        # holds "auth", is no secret
    ("KEYBOARD_LAYOUT", "us-international", False),
    ("DESIGN_SYSTEM", "material-three", False),
    ("LOG_LEVEL", "verbose-debugging", False),
    ("API_KEY", "short", False),                # under 8 characters: not masked
])
def test_mcp_env_values_named_like_a_secret_are_secrets(tmp_path: Path, name: str, value: str,
                                                        masked: bool) -> None:
    s = load_settings({}, _home(tmp_path))
    s = dataclasses.replace(s, mcp_servers={"demo": {"command": "x", "env": {name: value}}})
    assert (value in [secret.reveal() for secret in s.secrets()]) is masked
