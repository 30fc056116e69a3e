"""The lobby's request bodies (pydantic): what the OpenAPI schema documents."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from trusis.bots.registry import DEFAULT_BOT
from trusis.server.tables.options import (
    DAY_SECONDS,
    GRACE_SECONDS,
    NIGHT_SECONDS,
    SLOW_DAY_SECONDS,
    SLOW_NIGHT_SECONDS,
    TableOptions,
)


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
    slow: bool = Field(False, description="a slow game (D62): a day of 1 h to 2 days "
                       "(3600-172800 s), a night of 1 h to a day (3600-86400 s)")
    day_seconds: Annotated[int, Field(
        ge=DAY_SECONDS[0], le=SLOW_DAY_SECONDS[1],
        description="30-3600 s, or 3600-172800 s at a slow table")] = 180
    night_seconds: Annotated[int, Field(
        ge=NIGHT_SECONDS[0], le=SLOW_NIGHT_SECONDS[1],
        description="15-1800 s, or 3600-86400 s at a slow table")] = 90
    private: bool = False
    bots_take_over: bool = True
    grace_seconds: Annotated[int, Field(ge=GRACE_SECONDS[0], le=GRACE_SECONDS[1])] = 60
    lang: Literal["en", "fr", "it"] = Field(
        "en", description="the table's language (its host's page's): its bots speak it")

    @field_validator("day_seconds", "night_seconds")
    @classmethod
    def _paced(cls, value: int, info: ValidationInfo) -> int:
        """A real-time table's phases and a slow one's (D62) have bounds of their own: the
        refusal names the field and its bound for the table's pace."""
        slow = bool(info.data.get("slow"))
        live, paced = ((DAY_SECONDS, SLOW_DAY_SECONDS) if info.field_name == "day_seconds"
                       else (NIGHT_SECONDS, SLOW_NIGHT_SECONDS))
        low, high = paced if slow else live
        pace = "a slow table" if slow else "a real-time table"
        if value < low:
            raise PydanticCustomError("greater_than_equal", "Input should be greater than or "
                                      "equal to {ge} at " + pace, {"ge": low})
        if value > high:
            raise PydanticCustomError("less_than_equal", "Input should be less than or "
                                      "equal to {le} at " + pace, {"le": high})
        return value

    def options(self) -> TableOptions:
        return TableOptions(self.seats, self.set.counts(), self.day_seconds, self.night_seconds,
                            self.private, self.bots_take_over, self.grace_seconds, self.lang,
                            self.slow)


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
