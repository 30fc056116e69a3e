"""The lobby's request bodies (pydantic): what the OpenAPI schema documents."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trusis.bots.registry import DEFAULT_BOT
from trusis.server.options import DAY_SECONDS, GRACE_SECONDS, NIGHT_SECONDS, TableOptions


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuestIn(_Body):
    name: Annotated[str, Field(max_length=200, description="1 to 32 characters once cleaned")]


class SetIn(_Body):
    """`{"standard": true}` or `{"custom": {"PRIEST": 1, "TRUSIS": 2}}` (R2, R3)."""

    standard: bool | None = None
    custom: dict[str, Annotated[int, Field(ge=0, le=30)]] | None = None

    def counts(self) -> dict[str, int] | None:
        return None if self.custom is None else dict(self.custom)


class TableIn(_Body):
    name: Annotated[str, Field(min_length=1, max_length=200)] = "Trusis"
    seats: Annotated[int, Field(ge=1, le=100)] = 8
    set: SetIn = Field(default_factory=lambda: SetIn(standard=True))
    day_seconds: Annotated[int, Field(ge=DAY_SECONDS[0], le=DAY_SECONDS[1])] = 180
    night_seconds: Annotated[int, Field(ge=NIGHT_SECONDS[0], le=NIGHT_SECONDS[1])] = 90
    private: bool = False
    bots_take_over: bool = True
    grace_seconds: Annotated[int, Field(ge=GRACE_SECONDS[0], le=GRACE_SECONDS[1])] = 60
    lang: Literal["en", "fr", "it"] = Field(
        "en", description="the table's language (its host's page's): its bots speak it")

    def options(self) -> TableOptions:
        return TableOptions(self.seats, self.set.counts(), self.day_seconds, self.night_seconds,
                            self.private, self.bots_take_over, self.grace_seconds, self.lang)


class SetCheckIn(_Body):
    seats: Annotated[int, Field(ge=1, le=100)]
    set: SetIn


class SeatIn(_Body):
    seat: Annotated[int, Field(ge=1, le=100)] | None = None


class BotIn(_Body):
    kind: Annotated[str, Field(max_length=40)] = DEFAULT_BOT
    seat: Annotated[int, Field(ge=1, le=100)] | None = None


class ProgramIn(_Body):
    name: Annotated[str, Field(min_length=1, max_length=200)] = "Program"


class ReplaceIn(_Body):
    by: Literal["bot", "person"] = "bot"
    kind: Annotated[str, Field(max_length=40)] = DEFAULT_BOT


class ClaimIn(_Body):
    code: Annotated[str, Field(min_length=1, max_length=64)]


Json = dict[str, Any]
