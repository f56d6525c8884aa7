"""Judge cost: token prices per model, a rough token count for servers that report none, and
the tokens and dollars one judgment's calls add up to."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

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


@dataclass
class CallTally:
    """The tokens and dollars of one judgment's calls (a first ask and its parse retries).

    >>> tally = CallTally()
    >>> tally.add(1000, 200, reported=True, model="m", price=Price(input=2.5, output=10.0))
    0.0045
    >>> tally.add(10, 10, reported=False, model="m", price=None), tally.billed()
    (None, (None, 'estimated'))
    >>> CallTally(attempts=1).billed()  # nothing came back: nothing known to be billed
    (None, None)
    """

    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False
    """Whether any call's tokens were estimated (the server reported no usage)."""
    usd: float | None = 0.0
    """None once any call's model has no price."""
    attempts: int = 0
    received: int = 0
    """Calls that came back with a completion."""
    model: str | None = None
    """The model the last completion says answered."""

    def add(self, tokens_in: int, tokens_out: int, *, reported: bool, model: str,
            price: Price | None, factor: float = 1.0) -> float | None:
        """Count one completion; return its USD (``factor`` times the listed price), or None
        when its model has no price."""
        self.received += 1
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.estimated = self.estimated or not reported
        self.model = model
        if price is None:
            self.usd = None
            return None
        usd = price.cost(tokens_in, tokens_out) * factor
        if self.usd is not None:
            self.usd += usd
        return usd

    def billed(self) -> tuple[float | None, Literal["reported", "estimated"] | None]:
        """(USD, its provenance) of the judgment; (None, None) when no call came back."""
        if not self.received:
            return None, None
        return self.usd, ("estimated" if self.estimated else "reported")
