"""Provider registry: windows, keys, the no-model state and the light completer."""

from __future__ import annotations

import httpx
import pytest
from doubles.llm_replay import text_reply

from paicli_tui.config import load_settings
from paicli_tui.core.llm.ollama_client import OllamaClient
from paicli_tui.core.llm.openai_client import OpenAICompatibleClient
from paicli_tui.core.llm.registry import (
    PROVIDERS,
    ProviderConfigError,
    build_client,
    configuration_problem,
    how_to_configure,
    light_completer,
    provider_spec,
    switched_settings,
)


def settings_with(flags=None, env=None, home=None):
    env = {"PAICLI_HOME": str(home or "/tmp/unused-home"), **(env or {})}
    return load_settings(flags or {}, env)


@pytest.mark.parametrize("name,window,key", [
    ("deepseek", 1_000_000, "DEEPSEEK_API_KEY"),
    ("glm", 200_000, "ZHIPUAI_API_KEY"),
    ("kimi", 256_000, "MOONSHOT_API_KEY"),
    ("stepfun", 256_000, "STEPFUN_API_KEY"),
    ("hunyuan", 1_000_000, "HUNYUAN_API_KEY"),
    ("qwen", 1_000_000, "DASHSCOPE_API_KEY"),
    ("openai", 1_047_576, "OPENAI_API_KEY"),
])
def test_known_providers(name, window, key) -> None:
    spec = PROVIDERS[name]
    assert spec.window == window and spec.key_variable == key
    assert spec.base_url.startswith("https://") and spec.default_model
    client = build_client(settings_with({"provider": name}, {key: "k-123456789"}))
    assert isinstance(client, OpenAICompatibleClient)
    assert client.window == window and client.model == spec.default_model


def test_nothing_configured_gives_none_and_instructions(paicli_home) -> None:
    settings = settings_with(home=paicli_home)
    assert build_client(settings) is None
    text = how_to_configure(settings)
    assert "DEEPSEEK_API_KEY" in text and "--provider custom --base-url" in text
    assert "no model is configured" in text
    # everything inline: a pip install has no docs/ folder to send people to
    assert "docs/" not in text and 'provider = "deepseek"' in text and "~/.paicli" in text


def test_key_in_environment_picks_its_provider(paicli_home) -> None:
    client = build_client(settings_with(env={"ZHIPUAI_API_KEY": "abcdefgh"}, home=paicli_home))
    assert client.provider == "glm" and client.window == 200_000


def test_missing_key_is_named(paicli_home) -> None:
    settings = settings_with({"provider": "kimi"}, home=paicli_home)
    assert build_client(settings) is None
    assert "MOONSHOT_API_KEY" in configuration_problem(settings)


def test_custom_needs_url_and_model_and_takes_window(paicli_home) -> None:
    assert "--base-url" in configuration_problem(settings_with({"provider": "custom"},
                                                               home=paicli_home))
    settings = settings_with({"provider": "custom", "base_url": "http://127.0.0.1:9/v1",
                              "model": "local", "window": 16_000}, home=paicli_home)
    client = build_client(settings)
    assert client.window == 16_000 and client.base_url == "http://127.0.0.1:9/v1"


def test_base_url_alone_means_custom(paicli_home) -> None:
    settings = settings_with({"base_url": "http://127.0.0.1:9/v1", "model": "m"},
                             home=paicli_home)
    assert build_client(settings).provider == "custom"
    assert build_client(settings).window == 128_000


def test_ollama_needs_no_key_and_honours_host(paicli_home) -> None:
    settings = settings_with({"provider": "ollama"}, {"OLLAMA_HOST": "http://127.0.0.1:1234"},
                             home=paicli_home)
    client = build_client(settings)
    assert isinstance(client, OllamaClient) and client.host == "http://127.0.0.1:1234"


def test_aliases_and_unknown_names() -> None:
    assert provider_spec("Moonshot").name == "kimi"
    with pytest.raises(ProviderConfigError, match="known"):
        provider_spec("nope")


def test_window_flag_overrides_and_model_windows(paicli_home) -> None:
    env = {"OPENAI_API_KEY": "abcdefgh"}
    assert build_client(settings_with({"provider": "openai", "model": "gpt-4o"}, env,
                                      paicli_home)).window == 128_000
    assert build_client(settings_with({"provider": "openai", "window": 50_000}, env,
                                      paicli_home)).window == 50_000


@pytest.mark.parametrize(("started", "switch_to", "window"), [
    # --window was given for the model started with: it stays with that model
    ({"provider": "glm", "window": 64_000}, "glm-5.1", 64_000),          # the default model
    ({"provider": "glm", "model": "glm-4.5", "window": 64_000}, None, 64_000),
    # another model the registry knows: its own window
    ({"provider": "glm", "window": 64_000}, "glm-4.5", 128_000),
    ({"provider": "glm", "model": "glm-4.5", "window": 64_000}, "glm-5.1", 200_000),
    ({"provider": "openai", "model": "gpt-4o", "window": 50_000}, "gpt-4.1", 1_047_576),
    ({"provider": "qwen", "window": 500_000}, "qwen-max", 32_768),
    # a model it does not know: --window is the best word there is on that server
    ({"provider": "glm", "window": 64_000}, "glm-9-preview", 64_000),
    ({"provider": "custom", "base_url": "http://127.0.0.1:9/v1", "model": "x",
      "window": 32_000}, "y", 32_000),
    # without --window: each model's own
    ({"provider": "glm"}, "glm-4.5", 128_000),
    ({"provider": "glm", "model": "glm-4.5"}, "glm-5.1", 200_000),
])
def test_a_switch_within_the_provider_follows_the_new_models_window(
        paicli_home, started, switch_to, window) -> None:
    env = {"ZHIPUAI_API_KEY": "abcdefgh", "OPENAI_API_KEY": "abcdefgh",
           "DASHSCOPE_API_KEY": "abcdefgh"}
    settings = settings_with(started, env, paicli_home)
    switched = switched_settings(settings, started["provider"], switch_to)
    client = build_client(switched)
    assert client.window == window
    assert client.model == (switch_to or settings.model
                            or PROVIDERS[started["provider"]].default_model)
    assert switched.base_url == settings.base_url  # the rest of what was given stays


async def test_light_completer_uses_light_model(paicli_home) -> None:
    bodies = []

    def handler(request):
        import json

        bodies.append(json.loads(request.content))
        return httpx.Response(200, content=text_reply(" summary "))

    settings = settings_with({"provider": "deepseek", "light_model": "tiny"},
                             {"DEEPSEEK_API_KEY": "abcdefgh"}, paicli_home)
    client = build_client(settings, transport=httpx.MockTransport(handler))
    complete = light_completer(settings, client)
    assert await complete("sys", "text") == "summary"
    assert bodies[0]["model"] == "tiny" and "tools" not in bodies[0]
    assert bodies[0]["messages"][0] == {"role": "system", "content": "sys"}
    assert light_completer(settings, None) is None


@pytest.mark.parametrize(("started", "env", "switch_to", "problem"), [
    # at start, either variable would do
    (None, {}, "deepseek",
     "provider 'deepseek' needs an API key: set DEEPSEEK_API_KEY (or PAICLI_API_KEY)"),
    # mid-session PAICLI_API_KEY stays with the provider started with: naming it misleads
    ({"provider": "custom", "base_url": "http://127.0.0.1:9/v1", "model": "x"},
     {"PAICLI_API_KEY": "abcdefgh"}, "deepseek",
     "provider 'deepseek' needs an API key: DEEPSEEK_API_KEY was not set when paicli-tui "
     "started (PAICLI_API_KEY is for 'custom', the provider this session started with)"),
    ({"provider": "glm"}, {"ZHIPUAI_API_KEY": "abcdefgh"}, "kimi",
     "provider 'kimi' needs an API key: MOONSHOT_API_KEY was not set when paicli-tui "
     "started (PAICLI_API_KEY is for 'glm', the provider this session started with)"),
    # the provider's own variable found at start: no problem after the switch
    ({"provider": "glm"}, {"ZHIPUAI_API_KEY": "abcdefgh", "DEEPSEEK_API_KEY": "abcdefgh"},
     "deepseek", None),
])
def test_a_missing_key_names_the_variable_that_would_apply(
        paicli_home, started, env, switch_to, problem) -> None:
    if started is None:
        settings = settings_with({"provider": switch_to}, env, paicli_home)
    else:
        settings = switched_settings(settings_with(started, env, paicli_home), switch_to, None)
    assert configuration_problem(settings) == problem
