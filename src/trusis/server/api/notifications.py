"""The notification routes (issue 37): a player's settings, e-mail address and browser
subscriptions under /api/me, and the signed links of the mails, which work without
signing in (notifications/links.py)."""

from __future__ import annotations

import html
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from trusis.server.api import deps, replies
from trusis.server.errors import LobbyError
from trusis.server.notifications.prefs import PrefsError, parse
from trusis.server.notifications.push import public_key
from trusis.server.notifications.service import Notifications
from trusis.server.notifications.texts import say

router = APIRouter(prefix="/api")


def service(request: Request) -> Notifications:
    found: Notifications | None = getattr(request.app.state, "notifications", None)
    if found is None:
        raise LobbyError(503, "no_notifications", "this server sends no notifications")
    return found


class AddressIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    address: Annotated[str, Field(max_length=254)]


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")
    p256dh: Annotated[str, Field(min_length=80, max_length=200)]
    auth: Annotated[str, Field(min_length=16, max_length=100)]


class PushIn(BaseModel):
    model_config = ConfigDict(extra="ignore")  # a browser's subscription has expirationTime
    endpoint: Annotated[str, Field(min_length=10, max_length=1000)]
    keys: PushKeys


class PushOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    endpoint: Annotated[str, Field(max_length=1000)]


async def _settings(request: Request, player_id: str, kind: str) -> replies.NotificationSettings:
    notes = service(request)
    prefs = await notes.prefs(player_id)
    address = await notes.rows.address_of(player_id)
    pushes = await notes.rows.pushes_of(player_id)
    return {
        "prefs": prefs.to_dict(),
        "email": None if address is None else {
            "address": address.address, "confirmed": address.confirmed_at is not None,
            "wanted": address.wanted},
        "email_available": notes.mail_available and kind == "account",
        "account": kind == "account",
        "push_subscriptions": len(pushes),
    }


@router.get("/me/notifications")
async def get_settings(request: Request) -> replies.NotificationSettings:
    """What the signed-in player gets, and where: their preferences, address (an account's
    only) and how many browsers of theirs may be sent notifications."""
    player = await deps.identity(request).player(request)
    return await _settings(request, player.id, player.kind)


@router.put("/me/notifications")
async def put_settings(request: Request) -> replies.NotificationSettings:
    """New preferences, whole (prefs.py): a field that does not fit is refused by name and
    nothing changes."""
    player = await deps.identity(request).player(request)
    try:
        body = await request.json()
        prefs = parse(body.get("prefs") if isinstance(body, dict) else None)
    except PrefsError as err:
        raise LobbyError(422, "bad_prefs", str(err), field=err.field) from None
    except ValueError:
        raise LobbyError(422, "bad_request", "body: JSON with prefs", field="body") from None
    notes = service(request)
    await notes.rows.set_prefs(player.id, prefs.to_json())
    return await _settings(request, player.id, player.kind)


@router.post("/me/email", status_code=202)
async def add_email(body: AddressIn, request: Request) -> replies.NotificationSettings:
    """An account's address: a confirmation link is mailed to it, and nothing else is until
    it is opened (a guest has no address: a guest may lose its browser, and the address
    would be nobody's)."""
    player = await deps.identity(request).player(request)
    if player.kind != "account":
        raise LobbyError(403, "account_needed", "only an account may add an e-mail address: "
                         "register first (a guest may allow the browser's notifications)")
    await service(request).add_address(player.id, player.name, body.address.strip())
    return await _settings(request, player.id, player.kind)


@router.delete("/me/email")
async def remove_email(request: Request) -> replies.NotificationSettings:
    player = await deps.identity(request).player(request)
    await service(request).rows.remove_address(player.id)
    await service(request).reach_changed()
    return await _settings(request, player.id, player.kind)


@router.put("/me/email/wanted")
async def email_wanted(request: Request, on: bool = Query(...)) -> replies.NotificationSettings:
    """Turn the mails to a confirmed address on again (after an unsubscribe) or off."""
    player = await deps.identity(request).player(request)
    await service(request).rows.set_wanted(player.id, on)
    await service(request).reach_changed()
    return await _settings(request, player.id, player.kind)


@router.get("/notifications/push-key")
async def push_key(request: Request) -> replies.PushKey:
    """The server's VAPID public key: a browser's `applicationServerKey`."""
    return {"key": public_key(service(request).vapid())}


@router.post("/me/push", status_code=201)
async def add_push(body: PushIn, request: Request) -> replies.NotificationSettings:
    """A browser's push subscription (any player, a guest too)."""
    player = await deps.identity(request).player(request)
    await service(request).add_push(player.id, body.endpoint, body.keys.p256dh,
                                    body.keys.auth)
    return await _settings(request, player.id, player.kind)


@router.post("/me/push/remove")
async def remove_push(body: PushOut, request: Request) -> replies.NotificationSettings:
    player = await deps.identity(request).player(request)
    await service(request).rows.remove_push(player.id, body.endpoint)
    await service(request).reach_changed()
    return await _settings(request, player.id, player.kind)


# -- the links of the mails: no sign-in --------------------------------------------------

def _page(lang: str, title: str, text: str, form: str = "") -> HTMLResponse:
    """A small page of its own (no script: the page's CSP holds), in the mail's language."""
    body = (f'<!doctype html><html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(title)}</title>'
            '<link rel="stylesheet" href="/static/style.css"></head>'
            f'<body><main class="link-page"><h1>{html.escape(title)}</h1>'
            f'<p>{html.escape(text)}</p>{form}</main></body></html>')
    return HTMLResponse(body)


def _form(token: str, action: str, button: str) -> str:
    return (f'<form method="post" action="/api/notifications/{action}?token='
            f'{html.escape(token, quote=True)}"><button type="submit">'
            f'{html.escape(button)}</button></form>')


@router.get("/notifications/unsubscribe", response_class=HTMLResponse)
async def unsubscribe_page(request: Request, token: str = Query("", max_length=500)
                           ) -> HTMLResponse:
    """The link of a mail's footer: a page that asks, since a link opened by a mail
    scanner must not unsubscribe anyone (RFC 8058: GET changes nothing)."""
    found = service(request).links.read_unsubscribe(token)
    if found is None:
        return _page("en", say("en", "unsub.title"), say("en", "unsub.bad"))
    _player, address, lang = found
    return _page(lang, say(lang, "unsub.title"), say(lang, "unsub.ask", address=address),
                 _form(token, "unsubscribe", say(lang, "unsub.button")))


@router.post("/notifications/unsubscribe", response_class=HTMLResponse)
async def unsubscribe(request: Request, token: str = Query("", max_length=500)
                      ) -> HTMLResponse:
    """One click (RFC 8058: a mail program posts `List-Unsubscribe=One-Click` here; the page
    above posts its button): no more notification mails to that address."""
    notes = service(request)
    found = notes.links.read_unsubscribe(token)
    if found is None:
        return _page("en", say("en", "unsub.title"), say("en", "unsub.bad"))
    player_id, address, lang = found
    await notes.rows.unsubscribe(player_id, address)
    await notes.reach_changed()
    return _page(lang, say(lang, "unsub.title"), say(lang, "unsub.done", address=address))


@router.get("/notifications/confirm", response_class=HTMLResponse)
async def confirm_page(request: Request, token: str = Query("", max_length=500)
                       ) -> HTMLResponse:
    notes = service(request)
    found = notes.links.read_confirm(token)
    if found is None:
        return _page("en", say("en", "page.settings"), say("en", "confirm.bad"))
    player_id, address = found
    lang = (await notes.prefs(player_id)).lang
    return _page(lang, say(lang, "page.settings"), address,
                 _form(token, "confirm", say(lang, "subject.confirm")))


@router.post("/notifications/confirm", response_class=HTMLResponse)
async def confirm(request: Request, token: str = Query("", max_length=500)) -> HTMLResponse:
    """The confirmation link's button: the address is the player's, and notifications may
    go there (a GET only asks: a scanner that opens links confirms nothing)."""
    notes = service(request)
    found = notes.links.read_confirm(token)
    if found is None or not await notes.rows.confirm(*found):
        return _page("en", say("en", "page.settings"), say("en", "confirm.bad"))
    player_id, address = found
    lang = (await notes.prefs(player_id)).lang
    await notes.reach_changed()
    return _page(lang, say(lang, "page.settings"), say(lang, "confirm.done", address=address))
