"""Judge cost: token prices per model and a rough token count for servers that report none."""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

CHARS_PER_TOKEN = 4.0
"""The rule of thumb behind :func:`estimate_tokens` (English text, BPE tokenisers)."""


class Price(BaseModel):
    """USD per million tokens of one model, as a config's price table lists them."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    input: float = Field(ge=0)
    """USD per million prompt tokens."""
    output: float = Field(ge=0)
    """USD per million completion tokens."""

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """USD of a call: ``(tokens_in * input + tokens_out * output) / 1e6``.

        >>> Price(input=2.5, output=10.0).cost(1000, 200)
        0.0045
        """
        return (tokens_in * self.input + tokens_out * self.output) / 1e6


def find_price(prices: Mapping[str, Price], *models: str | None) -> Price | None:
    """The price of the first of ``models`` the table lists exactly, else its ``"*"`` entry.

    Names are matched exactly (no prefix matching: ``gpt-4o`` must not price
    ``gpt-4o-mini``); list dated snapshots under their own names, or add ``"*"``.

    >>> table = {"gpt-4o": Price(input=2.5, output=10), "*": Price(input=1, output=1)}
    >>> find_price(table, "gpt-4o-2024-08-06", "gpt-4o").input, find_price(table, "other").input
    (2.5, 1.0)
    >>> find_price({}, "gpt-4o") is None
    True
    """
    for name in models:
        if name is not None and name in prices:
            return prices[name]
    return prices.get("*")


def estimate_tokens(text: str) -> int:
    """Approximate token count: ``ceil(len(text) / 4)``, at least 1 for non-empty text.

    Used when a server returns no ``usage``; cost from it has provenance ``estimated``.

    >>> estimate_tokens("The answer is 42."), estimate_tokens("")
    (5, 0)
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0
