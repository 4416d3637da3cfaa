"""Known model providers and how to build a client for the configured one.

Every provider the program knows is one :class:`ProviderSpec`: where it lives, which model it
uses by default, how large its context window is, how it caches prompt prefixes and which
environment variable holds its key. ``build_client`` turns :class:`Settings` into a
:class:`ChatClient` (or ``None`` when no model is configured, which is a normal state: the TUI
opens and says how to connect one).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ...config import Secret, Settings
from ..contracts.llm import ChatClient, LLMError, TextCompleter

CacheMode = Literal["automatic", "none"]
DEFAULT_WINDOW = 128_000


@dataclass(frozen=True)
class ProviderSpec:
    """One provider: where it is, its default model and window, its key variable."""

    name: str
    label: str
    base_url: str
    default_model: str
    window: int
    cache_mode: CacheMode = "automatic"
    """``automatic``: the provider caches a shared request prefix by itself (so a stable
    prefix saves money and latency); ``none``: no prefix caching."""
    key_variable: str | None = None
    """Environment variable holding the key (None: no key needed or PAICLI_API_KEY only)."""
    key_required: bool = True
    send_reasoning: bool = False
    """Reasoning text must be sent back with earlier assistant messages (the thinking modes
    of DeepSeek, GLM and Kimi reject a tool-calling history without it)."""
    stream_usage: bool = True
    """Ask for usage in the stream (``stream_options.include_usage``)."""
    kind: Literal["openai", "ollama"] = "openai"
    model_windows: dict[str, int] = field(default_factory=dict)
    """Windows of other models of this provider that differ from ``window``."""


PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "deepseek-v4-flash",
                     1_000_000, key_variable="DEEPSEEK_API_KEY", send_reasoning=True),
        ProviderSpec("glm", "Zhipu GLM", "https://open.bigmodel.cn/api/paas/v4", "glm-5.1",
                     200_000, key_variable="ZHIPUAI_API_KEY", send_reasoning=True,
                     model_windows={"glm-4.5": 128_000, "glm-4.5-air": 128_000}),
        ProviderSpec("kimi", "Moonshot Kimi", "https://api.moonshot.cn/v1", "kimi-k2.6",
                     256_000, key_variable="MOONSHOT_API_KEY", send_reasoning=True),
        ProviderSpec("stepfun", "StepFun", "https://api.stepfun.com/v1", "step-3", 256_000,
                     key_variable="STEPFUN_API_KEY"),
        ProviderSpec("hunyuan", "Tencent Hunyuan", "https://api.hunyuan.cloud.tencent.com/v1",
                     "hunyuan-turbos-latest", 1_000_000, key_variable="HUNYUAN_API_KEY"),
        ProviderSpec("qwen", "Qwen (DashScope)",
                     "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus",
                     1_000_000, key_variable="DASHSCOPE_API_KEY",
                     model_windows={"qwen-max": 32_768, "qwen3-coder-plus": 1_000_000}),
        ProviderSpec("openai", "OpenAI", "https://api.openai.com/v1", "gpt-4.1", 1_047_576,
                     key_variable="OPENAI_API_KEY", model_windows={"gpt-4o": 128_000,
                                                                   "gpt-4o-mini": 128_000}),
        ProviderSpec("ollama", "Ollama (local)", "http://127.0.0.1:11434", "qwen2.5-coder:7b",
                     32_768, cache_mode="none", key_required=False, kind="ollama"),
        ProviderSpec("custom", "OpenAI-compatible server", "", "", DEFAULT_WINDOW,
                     cache_mode="none", key_required=False),
    )
}

# Accepted spellings, so `--provider zhipu` or `--provider moonshot` just work.
ALIASES = {"zhipu": "glm", "zhipuai": "glm", "moonshot": "kimi", "dashscope": "qwen",
           "tencent": "hunyuan", "step": "stepfun", "openai-compatible": "custom"}


class ProviderConfigError(LLMError):
    """The settings name a provider that cannot be used as configured (message is safe)."""


def provider_spec(name: str) -> ProviderSpec:
    """The spec for a provider name or alias; a clear error listing the known names."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    try:
        return PROVIDERS[key]
    except KeyError:
        raise ProviderConfigError(
            f"unknown provider {name!r}; known: {', '.join(PROVIDERS)}") from None


def _chosen_provider(settings: Settings) -> ProviderSpec | None:
    """The explicit provider, else the first provider whose key is in the environment."""
    if settings.provider:
        return provider_spec(settings.provider)
    if settings.base_url:
        return PROVIDERS["custom"]
    for spec in PROVIDERS.values():
        if spec.key_variable and settings.provider_keys.get(spec.key_variable):
            return spec
    return None


def known_window(spec: ProviderSpec, model: str) -> int | None:
    """The window the registry knows for ``model`` of ``spec`` (its own, or the provider's for
    its default model); None for a model it does not know (a custom server's, a new one)."""
    if model in spec.model_windows:
        return spec.model_windows[model]
    return spec.window if model and model == spec.default_model else None


def window_for(spec: ProviderSpec, model: str, settings: Settings) -> int:
    """The context window: --window wins, then the model's known window, then the provider's."""
    if settings.window:
        return settings.window
    return spec.model_windows.get(model, spec.window or DEFAULT_WINDOW)


def chosen_model(settings: Settings) -> tuple[ProviderSpec | None, str | None, int, str]:
    """(provider, model, window, where the window came from) as ``build_client`` would pick
    them, so reports such as ``paicli-tui context`` match the session's thresholds.

    Raises ProviderConfigError for an unknown provider name.
    """
    spec = _chosen_provider(settings)
    if spec is None:
        source = "--window" if settings.window else "the default for an unknown model"
        return None, settings.model, settings.window or DEFAULT_WINDOW, source
    model = settings.model or spec.default_model or None
    if settings.window:
        source = "--window"
    elif model and model in spec.model_windows:
        source = "the model"
    else:
        source = "the provider"
    return spec, model, window_for(spec, model or "", settings), source


def configuration_problem(settings: Settings) -> str | None:
    """Why ``build_client`` returns None for these settings ('no provider' included)."""
    try:
        spec = _chosen_provider(settings)
    except ProviderConfigError as exc:
        return str(exc)
    if spec is None:
        return "no model is configured"
    if spec.name == "custom":
        if not settings.base_url:
            return "provider 'custom' needs --base-url (or PAICLI_BASE_URL)"
        if not settings.model:
            return "provider 'custom' needs --model (or PAICLI_MODEL)"
    if spec.key_required and not settings.key_for(spec.key_variable):
        if settings.started_provider not in (None, spec.name):
            # Mid-session the explicit key stays with the first provider, and keys are
            # read from the environment once, at start.
            return (f"provider {spec.name!r} needs an API key: {spec.key_variable} was not "
                    "set when paicli-tui started (PAICLI_API_KEY is for "
                    f"{settings.started_provider!r}, the provider this session started with)")
        return (f"provider {spec.name!r} needs an API key: set {spec.key_variable} "
                "(or PAICLI_API_KEY)")
    return None


def switched_settings(settings: Settings, provider: str, model: str | None) -> Settings:
    """The settings for a model chosen mid-session (``/model provider[:model]``).

    The provider the session started with keeps everything given for it (base URL, explicit
    key); ``model`` replaces its model. --window was given for the model the session started
    with: another model whose window the registry knows gets that window (glm-5.1 started
    with --window 64000, then glm-4.5: 128,000, and back to glm-5.1: 64,000 again); a model
    it does not know keeps --window, the best word there is on that server. Another provider starts from its own
    defaults: the first one's base URL, explicit key (PAICLI_API_KEY), model and window are
    not carried over, or DeepSeek's key went to a custom server's URL, asking it for the
    custom model in the custom window. Raises ProviderConfigError for an unknown name.
    """
    spec = provider_spec(provider)
    try:
        first = _chosen_provider(settings)
    except ProviderConfigError:  # started on an unknown name: nothing of it to keep
        first = None
    if first is not None and first.name == spec.name:
        switched = settings.with_overrides(provider=spec.name, model=model or None)
        given_for = settings.model or spec.default_model
        if settings.window and (model or given_for) != given_for \
                and known_window(spec, model or "") is not None:
            switched = replace(switched, window=None)
        return switched
    started = settings.started_provider or (first.name if first is not None else None)
    return replace(settings, provider=spec.name, model=model or None, base_url=None,
                   api_key=None, window=None, started_provider=started)


def build_client(settings: Settings, **client_options: Any) -> ChatClient | None:
    """A client for the configured provider, or None when no usable model is configured.

    ``client_options`` go to the client constructor (tests pass ``transport=``).
    """
    if configuration_problem(settings) is not None:
        return None
    spec = _chosen_provider(settings)
    assert spec is not None
    model = settings.model or spec.default_model
    window = window_for(spec, model, settings)
    if spec.kind == "ollama":
        from .ollama_client import OllamaClient

        return OllamaClient(host=settings.base_url or settings.ollama_host or spec.base_url,
                            model=model, window=window, timeout=settings.request_timeout_s,
                            total_timeout=settings.stream_total_timeout_s,
                            max_reply_chars=settings.reply_max_chars,
                            tool_protocol=settings.tool_protocol, **client_options)
    from .openai_client import OpenAICompatibleClient

    key: Secret | None = settings.key_for(spec.key_variable)
    return OpenAICompatibleClient(
        provider=spec.name, base_url=settings.base_url or spec.base_url, model=model,
        window=window, api_key=key, send_reasoning=spec.send_reasoning,
        stream_usage=spec.stream_usage, timeout=settings.request_timeout_s,
        max_retries=settings.max_retries, redact_also=settings.secrets(),
        total_timeout=settings.stream_total_timeout_s, max_reply_chars=settings.reply_max_chars,
        tool_protocol=settings.tool_protocol, **client_options)


def how_to_configure(settings: Settings | None = None) -> str:
    """Text shown when no model is configured: exactly how to connect one.

    With ``settings`` the first line names what is wrong with them. Complete in itself: a
    pip install carries no docs folder to point at.
    """
    lines = []
    problem = configuration_problem(settings) if settings is not None else None
    if problem:
        lines.append(f"No model connected: {problem}.")
    else:
        lines.append("No model connected.")
    # rows of at most 72 characters: shown verbatim in an 80-column chat, none wraps
    lines += [
        "Connect one with a provider key in the environment, for example:",
        "  export DEEPSEEK_API_KEY=sk-...   # then start paicli-tui again",
        "Providers, their key variables and default models:",
    ]
    for spec in PROVIDERS.values():
        if spec.name in ("ollama", "custom"):
            continue
        lines.append(f"  --provider {spec.name:<9} {spec.key_variable:<18} {spec.default_model}")
    lines += [
        "  --provider ollama    no key; OLLAMA_HOST, else http://127.0.0.1:11434",
        "  --provider custom --base-url URL --model NAME [--window N]",
        "                       any OpenAI-compatible server (a key, if it needs",
        "                       one, in PAICLI_API_KEY)",
        "The same settings work as PAICLI_PROVIDER / PAICLI_MODEL /",
        "PAICLI_BASE_URL, or kept in PAICLI_HOME/config.toml (PAICLI_HOME is",
        "~/.paicli unless set):",
        '  provider = "deepseek"',
        '  model = "deepseek-v4-flash"   # optional: else the provider\'s default',
        "paicli-tui --help lists every flag.",
    ]
    return "\n".join(lines)


def light_completer(settings: Settings, client: ChatClient | None) -> TextCompleter | None:
    """A text completer for background jobs (summaries, fact extraction, query rewriting).

    Uses ``settings.light_model`` on the same provider when set, else the main model; None
    when there is no client.
    """
    if client is None:
        return None
    from .complete import completer_for

    return completer_for(client, settings.secrets(), model=settings.light_model)
