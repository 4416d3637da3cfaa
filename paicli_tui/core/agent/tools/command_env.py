"""The environment a command the agent runs gets: this process's, minus every secret.

A command the model asks for can print its environment (``env``, ``printenv | base64``,
``env > .env.dump`` read back later), so no provider key may be in it: the provider key
variables (``PAICLI_API_KEY``, ``DEEPSEEK_API_KEY``, …) are removed, and so is any other
variable whose value holds a configured secret (a key copied into ``MY_TOKEN`` or embedded in
a URL). Output redaction is only the second line of defence.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....borrowed_env import person_environment
from ....config import SECRET_ENV_VARIABLES, Settings


def command_environment(settings: Settings, base: Mapping[str, str] | None = None
                        ) -> dict[str, str]:
    """``base`` (default: the person's environment, without what this process borrows for a
    moment, see ``borrowed_env``) without provider key variables or any variable whose value
    contains one of the settings' secrets."""
    env = person_environment() if base is None else dict(base)
    secrets = [s.reveal() for s in settings.secrets()]
    for name in list(env):
        value = env[name]
        if name in SECRET_ENV_VARIABLES or any(secret in value for secret in secrets):
            del env[name]
    return env
