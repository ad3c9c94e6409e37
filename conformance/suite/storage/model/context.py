"""What a run of the model needs: the target's client, names, the model's data and counters."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.clients.s3 import S3Client
from conformance.plugin.naming import Names

DATA = Path(__file__).with_name("model.yaml")


def load_data() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(DATA.read_text("utf-8"))
    return data


def rule_ids() -> list[str]:
    """Every catalog rule a divergence of the model can fail, in first-use order."""
    return list(dict.fromkeys(load_data()["checks"].values()))


def model_keys(data: dict[str, Any]) -> list[str]:
    keys = [str(k) for k in data["keys"]]
    size = int(data["long_key_bytes"])
    return [*keys, "long/" + "x" * (size - len("long/"))]


@dataclass
class ModelContext:
    s3: S3Client
    names: Names
    min_part_bytes: int
    concurrent: bool = False  # steps that race a DeleteBucket against streaming PUTs
    data: dict[str, Any] = field(default_factory=load_data)
    steps: int = 0  # steps run, every example included
    examples: int = 0
    last: Any = None  # the machine of the latest example (the shrunk one after a failure)
    diverged: list[str] = field(default_factory=list)  # rule ids, in the order they diverged
    held: Counter[str] = field(default_factory=Counter)  # check -> times it held, all examples

    @property
    def checks(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.data["checks"].items()}
