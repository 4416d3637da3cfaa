"""Typed settings: defaults < PAICLI_HOME/config.toml < environment < command-line flags.

One object, built once by the entry point and passed down; nothing reads the environment or
the config file behind its back. Secrets are wrapped in :class:`Secret` so that a repr, a log
line or an error message never shows them.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .core.plural import noun_for
from .file_locks import locked
from .paths import HomePaths
from .private_files import replace_private


class Secret:
    """A string that never prints itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('****')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


MIN_WINDOW = 2_048
"""Smallest context window accepted: the system prompt and the tool definitions alone need
about 2,000 tokens. Smaller windows are refused, never silently raised."""


MAX_WINDOW = 100_000_000
"""Largest context window accepted: ten times the largest any model has (about 10M). Above
it a window is a typing slip (``--window 99999999999999999999``), never a model's."""


def window_problem(window: int) -> str | None:
    """Why ``window`` tokens cannot work (None: it can)."""
    if window > MAX_WINDOW:
        return (f"a context window of {window:,} tokens is more than any model has (the "
                "largest are about 10,000,000): pass the model's real size with --window.")
    if window >= MIN_WINDOW:
        return None
    return (f"a context window of {window:,} tokens is too small: paicli-tui needs at least "
            f"{MIN_WINDOW:,} (the system prompt and tool definitions alone take about "
            f"2,000). Use a model with a larger window, or pass its real size with --window.")


class ConfigError(ValueError):
    """The config file or an environment variable holds a value we cannot use."""


# Provider key variables read from the environment (DESIGN.md "Public contracts").
PROVIDER_KEY_VARIABLES = (
    "DEEPSEEK_API_KEY",
    "ZHIPUAI_API_KEY",
    "MOONSHOT_API_KEY",
    "STEPFUN_API_KEY",
    "HUNYUAN_API_KEY",
    "DASHSCOPE_API_KEY",
    "OPENAI_API_KEY",
)

SECRET_ENV_VARIABLES = ("PAICLI_API_KEY", "PAICLI_EMBEDDING_API_KEY", *PROVIDER_KEY_VARIABLES)
"""Variables that hold a provider or embeddings key: never passed on to a command the agent
runs."""

INDEX_STORE_KEY_VARIABLES = (
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",  # fetches the container's keys
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_SAS_TOKEN",
    "AZURE_STORAGE_CONNECTION_STRING",
)
"""Object-store credentials the code index reads when ``index_uri`` is remote (``s3://``,
``az://``). Only then are they ours to guard: with a local index they are the person's own
environment for their own work, and a command such as ``aws s3 ls`` keeps them."""


@dataclass(frozen=True)
class Settings:
    """Everything a user can configure. Every field documents its default and meaning."""

    # --- model ---------------------------------------------------------------------------
    provider: str | None = None
    """Provider name from the registry (deepseek, glm, kimi, qwen, openai, ollama, custom...)."""
    model: str | None = None
    """Model name; None means the provider's default."""
    base_url: str | None = None
    """Override the provider's base URL (required for ``custom``)."""
    api_key: Secret | None = None
    """PAICLI_API_KEY or ``api_key`` in config.toml; else the provider's own key variable."""
    window: int | None = None
    """Context window in tokens; None means the provider/model's known window (128k if unknown)."""
    light_model: str | None = None
    """Model used for fact extraction and query rewriting; None means the main model. Only
    when set does it also choose each turn's memories (``memory_selection``)."""
    ollama_host: str | None = None
    """OLLAMA_HOST, for the Ollama chat client and the Ollama embedder."""
    request_timeout_s: float = 120.0
    """Seconds to wait for a provider between two data events of a stream (keep-alive
    comments do not count)."""
    max_retries: int = 3
    stream_total_timeout_s: float = 1_800.0
    """Seconds one streamed reply may take in all (keep-alives and a slow trickle included)."""
    reply_max_chars: int = 1_000_000
    """A reply longer than this is cut there, with a note saying so (what arrived is kept)."""
    """Retries before the first streamed byte (connection errors, timeouts, 429, 5xx)."""

    # --- agent ---------------------------------------------------------------------------
    max_iterations: int = 40
    """Model requests allowed in one user turn; at the cap one last request without tools
    asks for a best-effort answer. 0 = no cap (the runaway guard still stops loops)."""
    command_timeout_s: float = 120.0
    """Seconds an ``execute_command`` may run."""
    auto_approve: bool = False
    """Approve writes and commands without asking (``--yes``)."""
    accept_edits: bool = False
    """Start in the accept-edits mode (``--accept-edits``): file writes go ahead unasked,
    commands still ask; Shift+Tab switches it in the TUI."""
    read_only_commands: tuple[str, ...] = (
        "ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep", "egrep", "fgrep", "rg", "find",
        "stat", "file", "du", "which", "basename", "dirname", "realpath", "sort", "uniq", "cut",
        "tr", "nl", "git status", "git diff", "git log", "git show", "git blame", "git ls-files")
    """Commands that run without asking when every part of the command line is one of them
    (``ls -la | head``); an entry of two words is a program and its sub-command. Options that
    run or write are refused whatever the list says (``find -exec``, ``rg --pre``, ``sort -o``),
    as are substitutions, variables and redirections to files (behaviour §16). ``[]`` asks for
    every command."""

    # --- context engine (behaviour §3–5) ----------------------------------------------------
    offload_threshold_chars: int = 32_000
    """Tool results longer than this are written to a file (minimum 2,000)."""
    command_output_cap_chars: int = 2_000_000
    """At most this much command output is captured."""
    command_offload_chars: int = 8_000
    """Command output longer than this is offloaded."""
    clearing_enabled: bool = True
    """Clear old tool results from the clearing trigger (tier 2); off: only summaries."""
    clearing_trigger_tokens: int = 0
    """Clear from this many tokens instead of the window's clearing trigger (0 = derived)."""
    clearing_keep_recent: int = 3
    """Newest tool results that clearing never touches."""
    clearing_min_chars: int = 400
    """Tool results shorter than this are never cleared."""
    clearing_exclude_tools: tuple[str, ...] = ("load_skill",)
    """Tools whose results are never cleared (a skill's instructions must stay)."""
    keep_user_turns: int = 3
    """User turns kept verbatim by an automatic summary (manual /compact keeps 1)."""
    summary_chunk_chars: int = 60_000
    """Largest piece of rendered history sent in one summary call."""
    summary_partial_chars: int = 8_000
    """Longest partial summary per chunk before the merge call."""
    summary_fast_path: bool = False
    """Prepare the summary in the background from 60% of the trigger (behaviour §5)."""
    summary_timeout_s: float = 600.0
    """Seconds one summary (all its model calls) may take before the digest is used."""
    ask_before_summary: bool = False
    """Ask before an automatic summary (TUI: a dialog, "not yet" holds up to a hard limit,
    then it is made without asking); headless runs never wait and say they did not ask
    (``PAICLI_ASK_BEFORE_SUMMARY``)."""

    tool_protocol: str = "auto"
    """How tools reach the model: ``native`` (the API's tools field), ``prompt`` (described
    in the system prompt, calls written in <tool_call> tags, for a server that will not take
    tools), ``auto`` (native, and the prompt form once the server refuses tools)."""

    # --- memory (behaviour §11–16) ------------------------------------------------------------
    memory_dice_threshold: float = 0.8
    """Character-bigram Dice coefficient at which two memories conflict (0.99 disables)."""
    memory_stale_days: int = 30
    """Days after last verification when a memory is marked possibly stale."""
    auto_extract: bool = True
    """Extract durable facts from the person's messages after each finished turn."""
    review_auto_memories: bool = False
    """Use an automatically saved memory only once the person accepted it (memory inbox)."""
    memory_selection: str = "model"
    """``model``: when ``light_model`` is set, it chooses each turn's memories among the
    offline ranking's candidates (one bounded request; the offline choice on any trouble).
    ``offline``: the offline ranking alone. Without ``light_model`` always offline."""

    # --- code retrieval (behaviour §17) -------------------------------------------------------
    embedder: str = "use"
    """``use`` (offline default), ``use-m3`` (USE alone, also for code), ``minilm``,
    ``use+minilm``, ``ollama:<model>`` (e.g. ``ollama:nomic-embed-text``) or ``openai:<model>``
    (any OpenAI-compatible ``/v1/embeddings`` host: embedding_base_url). With ``use`` memory
    embeds with USE and the code index with ``use+minilm`` (two offline rankers)."""
    embedding_base_url: str | None = None
    """Base URL of the OpenAI-compatible embeddings host for ``openai:<model>`` (TEI, vLLM,
    OpenAI, DashScope...), e.g. ``http://gpu-box:8080/v1``."""
    embedding_api_key: Secret | None = None
    """PAICLI_EMBEDDING_API_KEY or ``embedding_api_key`` in config.toml (a secret: never
    printed, logged or passed to commands)."""
    index_uri: str | None = None
    """LanceDB URI for the code index; None means ``<project>/.paicli/index``."""
    search_top_k: int = 5
    """Default number of search results (maximum 30)."""
    search_rerank: str = "model"
    """``model``: with a ``light_model`` set, it reorders a hybrid search's fused top 30
    (core.code.rerank); ``off``: never."""

    # --- outside content: web, MCP (behaviour §16 guards all of it) ------------------------
    web_fetch_timeout_s: float = 30.0
    """Seconds a web_fetch (or web_search) may take in all."""
    web_fetch_max_bytes: int = 5_000_000
    """At most this much of a page is downloaded."""
    web_search_url: str | None = None
    """A SearXNG instance for web_search (e.g. ``http://searx.local:8080``); None: no search."""
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)
    """``[mcp_servers.<name>]`` tables: command, args, env, cwd, enabled, startup_timeout_s,
    tool_timeout_s, allowed_tools (see docs/extensions.md)."""

    # --- interface ------------------------------------------------------------------------
    theme: str = "dark"
    """``dark`` or ``light``."""
    log_level: str = "warning"
    """What reaches PAICLI_HOME/logs/paicli-tui.log: ``debug``, ``info``, ``warning`` or
    ``error`` (``--log-level``, ``PAICLI_LOG_LEVEL``)."""

    # --- not user settings: where we are and what the environment offered -------------------
    home: HomePaths = field(default_factory=lambda: HomePaths(Path("~/.paicli").expanduser()))
    provider_keys: Mapping[str, Secret] = field(default_factory=dict, repr=False)
    """Provider key variables found in the environment, by variable name."""
    overridden_secrets: tuple[Secret, ...] = field(default=(), repr=False)
    """Keys given in a lower layer and overridden (config.toml's api_key under
    PAICLI_API_KEY): not used, but still secrets to keep out of commands and text."""
    index_store_keys: Mapping[str, Secret] = field(default_factory=dict, repr=False)
    """The remote index's object-store credentials found in the environment, by variable
    name (empty for a local index): kept out of commands and text like provider keys."""
    started_provider: str | None = None
    """Set by ``/model`` when it moves a session to another provider: the one it started
    with, which keeps the explicit key (PAICLI_API_KEY, ``api_key``). None otherwise."""

    def key_for(self, key_variable: str | None) -> Secret | None:
        """The key to use: an explicit api_key wins over the provider's own variable."""
        if self.api_key:
            return self.api_key
        if key_variable:
            return self.provider_keys.get(key_variable)
        return None

    def secrets(self) -> tuple[Secret, ...]:
        """Every configured secret (the explicit key and each provider key found), so that
        redaction and the command environment cover all of them, not only the active one."""
        found = [self.api_key, self.embedding_api_key, *self.provider_keys.values(),
                 *self.overridden_secrets, *self.index_store_keys.values(),
                 *mcp_env_secrets(self.mcp_servers)]
        for url in (self.base_url, self.embedding_base_url, self.ollama_host,
                    self.web_search_url, self.index_uri):
            found.extend(url_secrets(url))
        return tuple(dict.fromkeys(s for s in found if s))

    def with_overrides(self, **changes: Any) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


_URL_SECRET_NAMES = re.compile(r"(key|token|secret|password|passwd|pwd|auth|sig|signature|"
                               r"credential)", re.IGNORECASE)
MIN_URL_SECRET = 6
"""Shorter values are not masked: redacting a two-letter password would mangle every text."""


def url_secrets(url: str | None) -> list[Secret]:
    """The secrets a configured URL carries: the password of ``user:password@host`` and the
    values of query parameters named like one (``?api_key=…``, ``&sig=…``, Azure's
    ``api-key``). A proxy or gateway URL with its credentials in it is common, and its
    errors (``cannot reach http://u:…@host``) quoted it whole."""
    if not url or ("@" not in url and "=" not in url):
        return []
    from urllib.parse import unquote, unquote_plus, urlsplit

    try:
        parts = urlsplit(url if "//" in url else f"//{url}")
        password = parts.password
    except ValueError:
        return []
    found = [password, unquote(password)] if password else []
    # each value as the URL spells it (what an error quotes: a SAS ``sig=`` is base64 with
    # %2B / %2F / %3D in it) and as it reads decoded
    for name, _, value in (item.partition("=") for item in parts.query.split("&")):
        if value and _URL_SECRET_NAMES.search(unquote_plus(name)):
            found += [value, unquote_plus(value)]
    return [Secret(value) for value in dict.fromkeys(found) if len(value) >= MIN_URL_SECRET]


_ENV_SECRET_WORDS = frozenset({"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PWD",
                               "PASS", "AUTH", "CREDENTIAL", "CREDENTIALS", "PAT"})
"""Words of an environment variable's name (split at ``_`` and ``-``) that make its value a
secret: ``GITHUB_PERSONAL_ACCESS_TOKEN``, ``OPENAI_API_KEY``, ``DB_PASSWORD``; a word only
containing one (``AUTHOR``, ``KEYBOARD_LAYOUT``) does not, or its value would be masked in
every tool result."""
MIN_ENV_SECRET = 8
"""Shorter values are not masked (``PAT=yes`` would mangle every text)."""


def mcp_env_secrets(servers: Mapping[str, Any]) -> list[Secret]:
    """The values config.toml gives MCP servers in ``env`` under a name like a secret's
    (``GITHUB_TOKEN``, ``API_KEY``, ``DB_PASSWORD``): a server quoting its token in an
    answer or an error sent it to the provider and the ledger, where every other key the
    person configured is masked. Other values (``LOG_LEVEL``) are not secrets."""
    found: list[str] = []
    for table in servers.values():
        env = table.get("env") if isinstance(table, Mapping) else None
        if isinstance(env, Mapping):
            found += [value for name, value in env.items() if isinstance(value, str)
                      and isinstance(name, str)
                      and _ENV_SECRET_WORDS & set(re.split(r"[_\-]", name.upper()))]
    return [Secret(value) for value in dict.fromkeys(found) if len(value) >= MIN_ENV_SECRET]


_ENV_FIELDS = {
    "PAICLI_PROVIDER": "provider",
    "PAICLI_MODEL": "model",
    "PAICLI_BASE_URL": "base_url",
    "PAICLI_API_KEY": "api_key",
    "PAICLI_WINDOW": "window",
    "PAICLI_LIGHT_MODEL": "light_model",
    "PAICLI_SEARCH_RERANK": "search_rerank",
    "PAICLI_EMBEDDER": "embedder",
    "PAICLI_EMBEDDING_BASE_URL": "embedding_base_url",
    "PAICLI_EMBEDDING_API_KEY": "embedding_api_key",
    "PAICLI_THEME": "theme",
    "PAICLI_LOG_LEVEL": "log_level",
    "PAICLI_ASK_BEFORE_SUMMARY": "ask_before_summary",
    "PAICLI_MEMORY_SELECTION": "memory_selection",
    "PAICLI_TOOL_PROTOCOL": "tool_protocol",
    "OLLAMA_HOST": "ollama_host",
}

LOG_LEVELS = ("debug", "info", "warning", "error")
MEMORY_SELECTIONS = ("model", "offline")
TOOL_PROTOCOLS = ("auto", "native", "prompt")
"""``auto``: native tools, and the prompt form once the server refuses them; ``native``:
never the prompt form (the refusal ends the turn); ``prompt``: always the prompt form."""

_NOT_USER_FIELDS = ("home", "provider_keys", "overridden_secrets", "index_store_keys",
                    "started_provider")
_USER_FIELDS = {f.name: f for f in fields(Settings) if f.name not in _NOT_USER_FIELDS}


def _coerce(name: str, raw: Any, source: str) -> Any:
    """Turn a file or environment value into the field's type, or say clearly what is wrong."""
    if name in ("api_key", "embedding_api_key"):
        return Secret(str(raw)) if raw else None
    default = getattr(Settings, name, None)
    kind = type(default) if default is not None else None
    if name == "window":
        kind = int
    if name == "mcp_servers":
        if not isinstance(raw, Mapping) or not all(isinstance(v, Mapping) for v in raw.values()):
            raise ConfigError(f"{source}: mcp_servers must be tables: [mcp_servers.NAME]")
        return dict(raw)
    from_text = isinstance(raw, str) and not source.endswith(".toml")
    try:
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            if not from_text:  # config.toml: true / false, not 1 or "yes"
                raise ValueError(raw)
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind in (int, float):
            return _number(name, raw, kind, source)
        if kind is tuple:
            items = raw if isinstance(raw, list | tuple) else str(raw).split(",")
            return tuple(str(item).strip() for item in items if str(item).strip())
    except ConfigError:
        raise
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{source}: {name} must be a {_kind_name(kind)}, got {raw!r}") from None
    if not isinstance(raw, str) and source.endswith(".toml") and kind in (str, None):
        raise ConfigError(f"{source}: {name} must be a string, got {raw!r}")
    return str(raw)


# Numbers that must be above zero; every other number must be zero or more.
_POSITIVE = ("window", "search_top_k", "keep_user_turns", "memory_stale_days",
             "stream_total_timeout_s", "reply_max_chars")
_POSITIVE_SUFFIXES = ("_timeout_s", "_chars", "_bytes")
_ZERO_ALLOWED = ("clearing_min_chars",)


def _kind_name(kind: type | None) -> str:
    return {int: "whole number", float: "number", bool: "boolean (true or false)"}.get(
        kind, getattr(kind, "__name__", "value"))


def _number(name: str, raw: Any, kind: type, source: str) -> int | float:
    """A finite number of the field's kind within its range, or ConfigError naming the key
    and where it came from (``window = inf`` or ``window = true`` never get through)."""
    if isinstance(raw, bool):
        raise ValueError(raw)
    value = float(raw) if kind is float else (int(raw) if not isinstance(raw, float)
                                              else raw)
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{source}: {name} must be a finite number, got {raw!r}")
    if kind is int:
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(raw)
            value = int(value)
    positive = name in _POSITIVE or (name.endswith(_POSITIVE_SUFFIXES)
                                     and name not in _ZERO_ALLOWED)
    if positive and value <= 0:
        raise ConfigError(f"{source}: {name} must be above 0, got {raw!r}")
    if value < 0:
        raise ConfigError(f"{source}: {name} must be 0 or more, got {raw!r}")
    return value


def _validate(settings: Settings) -> Settings:
    """``settings``, or one error naming every value that is out of range."""
    problems: list[str] = []
    if settings.offload_threshold_chars < 2_000:
        problems.append("offload_threshold_chars must be at least 2000")
    if settings.window is not None and settings.window <= 0:
        problems.append("window must be a positive number of tokens")
    elif settings.window is not None and window_problem(settings.window):
        problems.append(str(window_problem(settings.window)))
    if settings.max_iterations < 0:
        problems.append("max_iterations must be 0 (no cap) or more")
    if settings.clearing_trigger_tokens < 0 or settings.clearing_keep_recent < 0:
        problems.append("clearing_trigger_tokens and clearing_keep_recent must be 0 or more")
    if settings.summary_timeout_s <= 0:
        problems.append("summary_timeout_s must be above 0")
    if not 0 < settings.memory_dice_threshold <= 1:
        problems.append("memory_dice_threshold must be above 0 and at most 1 (0.99 disables "
                        "similarity conflicts)")
    if not 1 <= settings.search_top_k <= 30:
        problems.append("search_top_k must be between 1 and 30")
    if settings.search_rerank not in ("model", "off"):
        problems.append("search_rerank must be 'model' or 'off'")
    if settings.web_fetch_timeout_s <= 0 or settings.web_fetch_max_bytes <= 0:
        problems.append("web_fetch_timeout_s and web_fetch_max_bytes must be positive")
    if settings.theme not in ("dark", "light"):
        problems.append("theme must be 'dark' or 'light'")
    if settings.memory_selection not in MEMORY_SELECTIONS:
        problems.append(f"memory_selection must be one of {', '.join(MEMORY_SELECTIONS)}")
    if settings.tool_protocol not in TOOL_PROTOCOLS:
        problems.append(f"tool_protocol must be one of {', '.join(TOOL_PROTOCOLS)}")
    if settings.log_level not in LOG_LEVELS:
        problems.append(f"log_level must be one of {', '.join(LOG_LEVELS)}")
    if problems:
        raise ConfigError("\n".join(problems))
    return settings


def read_config_file(path: Path, problems: list[str] | None = None) -> dict[str, Any]:
    """Values from config.toml (missing file: none). A bad file is an error, never ignored:
    with ``problems`` given, unknown names and bad values are added to it (and left out of
    the values) for the caller to report with its own; a file that cannot be read or parsed
    is raised at once."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
                          ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses into arrays: [[[[… was a traceback at start
        raise ConfigError(f"{path}: not valid TOML (nested too deeply)") from None
    # every problem at once: fixing one only to meet the next is a slow loop
    own = problems is None
    problems = [] if problems is None else problems
    unknown = sorted(set(data) - set(_USER_FIELDS))
    if unknown:
        problems.append(f"{path}: unknown {noun_for(len(unknown), 'setting')}: "
                        f"{', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name, raw in data.items():
        if name in _USER_FIELDS:
            try:
                values[name] = _coerce(name, raw, str(path))
            except ConfigError as exc:
                problems.append(str(exc))
    if problems and own:
        raise ConfigError("\n".join(problems))
    return values


def load_settings(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Build the settings from defaults, the config file, the environment and flags, in order."""
    env = dict(os.environ if env is None else env)
    home = HomePaths.from_env(env)
    values: dict[str, Any] = {}
    keys_seen: list[Secret] = []

    def put(name: str, value: Any) -> None:
        if name == "api_key" and value:
            keys_seen.append(value)
        values[name] = value

    problems: list[str] = []  # every one is reported together, after all sources are read

    def coerced(name: str, raw: Any, source: str) -> None:
        try:
            put(name, _coerce(name, raw, source))
        except ConfigError as exc:
            problems.append(str(exc))

    for name, value in read_config_file(home.config_file, problems).items():
        put(name, value)
    for variable, name in _ENV_FIELDS.items():
        if env.get(variable):
            coerced(name, env[variable], f"environment variable {variable}")
    for name, value in (flags or {}).items():
        if value is None:
            continue
        if name not in _USER_FIELDS:
            raise ConfigError(f"unknown flag setting {name!r}")
        coerced(name, value, f"--{name.replace('_', '-')}")
    keys = {v: Secret(env[v]) for v in PROVIDER_KEY_VARIABLES if env.get(v)}
    overridden = tuple(k for k in keys_seen if k != values.get("api_key"))
    store_keys = ({v: Secret(env[v]) for v in INDEX_STORE_KEY_VARIABLES if env.get(v)}
                  if is_remote_index(values.get("index_uri")) else {})
    settings = Settings(home=home, provider_keys=keys, overridden_secrets=overridden,
                        index_store_keys=store_keys, **values)
    try:
        _validate(settings)
    except ConfigError as exc:
        problems.append(str(exc))
    if problems:
        raise ConfigError("\n".join(problems))
    return settings


def is_remote_index(uri: str | None) -> bool:
    """An index in an object store (``s3://bucket/x``), not a folder on this machine."""
    if not uri or "://" not in uri:
        return False
    return not uri.lower().startswith("file://")


def keep_setting(path: Path, name: str, value: str) -> None:
    """Write ``name = "value"`` into config.toml, keeping every other line as it was.

    Used for choices the person makes while running (the theme). The file is replaced
    atomically; a file that is not valid TOML is left alone (ConfigError), never rewritten.
    """
    if name not in _USER_FIELDS:
        raise ConfigError(f"unknown setting {name!r}")
    # under the file's lock: two apps changing settings at once each wrote back the file as
    # they had read it, and the other's change was lost
    with locked(path):
        _keep_line(path, name, value)


def _keep_line(path: Path, name: str, value: str) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); not changed") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply); not changed") from None
    line = f"{name} = {json.dumps(value, ensure_ascii=False)}"
    lines = text.splitlines()
    pattern = re.compile(rf"^\s*{re.escape(name)}\s*=")
    for index, old in enumerate(lines):
        if pattern.match(old):
            lines[index] = line
            break
    else:
        lines.append(line)
    # the person's only: config.toml may hold api_key, and a file the person made 0600 came
    # back 0644 (the default umask) when /theme rewrote it
    replace_private(path, ("\n".join(lines) + "\n").encode("utf-8"))
