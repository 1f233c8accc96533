"""What the numcodecs and zarr codecs share: their settings written into a configuration."""

from __future__ import annotations


class Configured:
    """A codec whose configuration holds its ``_config_keys`` settings, in that order: each
    left out when ``None`` or an empty sequence (a sequence is written as a list), ``device``
    also when ``"auto"``."""

    _config_keys: tuple[str, ...] = ()

    def _configuration(self) -> dict:
        config: dict = {}
        for key in self._config_keys:
            value = getattr(self, key)
            if isinstance(value, (list, tuple)):
                value = list(value) if value else None
            if value is None or (key == "device" and value == "auto"):
                continue
            config[key] = value
        return config
