"""What the accessibility tests share (issue 22): the keyboard (Tab until a control holds the
focus, where the focus is), the live regions (what the announcer has said), the chat commands,
contrast, and axe-core.

axe-core comes from npm into tests/a11y/node_modules (`npm ci` there; ./test runs it when Node
is present). Without it the axe checks are skipped with a warning, the other checks still run.
The page that runs axe is opened with Playwright's bypass_csp=True: production keeps its CSP.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).parent / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
_warned: list[bool] = []


def active(page: Page) -> dict[str, Any]:
    """The focused element: tag, classes, data-focus, id, text (and whether it is <body>)."""
    described: dict[str, Any] = page.evaluate("""() => {
      const el = document.activeElement;
      return { tag: el ? el.tagName.toLowerCase() : null, cls: el?.className || "",
               focus: el?.dataset?.focus || null, id: el?.id || "",
               text: (el?.innerText || el?.value || "").slice(0, 80),
               body: !el || el === document.body || el === document.documentElement,
               inActions: !!el?.closest?.(".actions") };
    }""")
    return described


def assert_focused(page: Page, where: str) -> dict[str, Any]:
    """Focus is on a control, never on <body> (WCAG 2.4.3)."""
    now = active(page)
    assert not now["body"], f"focus fell to <body> after {where}"
    return now


def tab_to(page: Page, selector: str, limit: int = 120) -> int:
    """Press Tab until the focused element matches `selector`; how many presses it took."""
    for presses in range(limit):
        if page.evaluate("s => !!document.activeElement?.matches?.(s)", selector):
            return presses
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never took the focus in {limit} Tabs")


def spoken(page: Page) -> list[str]:
    """Every line the announcer (the polite role=log live region) holds."""
    lines: list[str] = page.locator("#announcer p").all_text_contents()
    return lines


def record_speech(page: Page) -> None:
    """Keep every line the announcer ever says (it keeps only its last 40) in window.allSpoken;
    the page is one document from the lobby to the end screen, so this lasts the whole game."""
    page.evaluate("""() => { window.allSpoken = [];
      new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
        window.allSpoken.push(n.textContent); })
        .observe(document.querySelector('#announcer'), { childList: true }); }""")


def all_spoken(page: Page) -> list[str]:
    lines: list[str] = page.evaluate("() => window.allSpoken || []")
    return lines


def wait_spoken(page: Page, needle: str, timeout: float = 20.0, after: int = 0,
                also: str = "") -> str:
    """The first announcement (from line `after` on) that holds `needle` (and `also`)."""
    deadline = time.monotonic() + timeout
    while True:
        for line in spoken(page)[after:]:
            if needle in line and also in line:
                return line
        assert time.monotonic() < deadline, f"never said: {needle!r}; said: {spoken(page)[-12:]}"
        page.wait_for_timeout(150)


def command(page: Page, text: str, timeout: float = 15.0) -> str:
    """Type a chat command with the keyboard into the focused chat box; its spoken answer."""
    box = page.locator("#chat-input")
    if not page.evaluate("() => document.activeElement?.id === 'chat-input'"):
        tab_to(page, "#chat-input")
    box.wait_for()
    deadline = time.monotonic() + timeout
    while box.is_disabled():  # a moment with no chat (between phases)
        assert time.monotonic() < deadline, "the chat box stays disabled"
        page.wait_for_timeout(100)
    # Every text the answer line shows is kept: a phase that ends right after the answer
    # clears the line (a stale "Sent: you pass." does not stay into the next phase), and the
    # answer must still count as given when the announcer said it.
    page.evaluate("""() => { const a = document.querySelector('.chat-answer');
      a.textContent = ''; a.hidden = true; window.chatAnswers = [];
      window.chatAnswerWatch?.disconnect();
      window.chatAnswerWatch = new MutationObserver(() => {
        if (!a.hidden && a.textContent) window.chatAnswers.push(a.textContent); });
      window.chatAnswerWatch.observe(a, { childList: true, characterData: true,
                                          subtree: true, attributes: true }); }""")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    while True:
        # The answer shows under the chat box, and the announcer (the live region) says it.
        answers: list[str] = page.evaluate("() => window.chatAnswers")
        said = set(spoken(page)) | set(all_spoken(page))
        for answer in answers:
            if answer in said:
                return answer
        assert time.monotonic() < deadline, f"no answer to {text}"
        page.wait_for_timeout(100)


CONTRAST_JS = """() => {
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((c) => {
      c /= 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const parse = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const behind = (el) => {
    for (let e = el.parentElement; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  const fields = "input[type=text], input[type=number], input[type=password], select, textarea";
  for (const el of document.querySelectorAll(fields)) {
    if (!el.offsetParent) continue;
    const border = parse(getComputedStyle(el).borderTopColor).slice(0, 3);
    const [a, b] = [lum(border), lum(behind(el))].sort((x, y) => y - x);
    out.push({ id: el.id || el.className || el.tagName, ratio: (a + 0.05) / (b + 0.05) });
  }
  return out;
}"""


def field_borders(page: Page) -> list[dict[str, Any]]:
    """Each visible field's border contrast against what is behind it (WCAG 1.4.11)."""
    result: list[dict[str, Any]] = page.evaluate(CONTRAST_JS)
    return result


def axe_ready() -> bool:
    if AXE.exists():
        return True
    if not _warned:
        _warned.append(True)
        warnings.warn("axe-core is missing (npm ci in tests/a11y): the axe checks are skipped",
                      stacklevel=2)
    return False


def axe_problems(page: Page, name: str) -> list[str]:
    """Serious and critical WCAG 2.1 A/AA violations axe-core finds on the page as it is."""
    if not axe_ready():
        return []
    # A banner fading out is half transparent for 0.4 s: axe blends its colours and
    # finds a contrast that no reader meets (CI once measured 1.53 mid-fade).
    page.wait_for_function("() => !document.querySelector('.banner-out')", timeout=5000)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    violations: list[dict[str, Any]] = page.evaluate(
        """async (tags) => (await axe.run(document, { runOnly: { type: "tag", values: tags },
             resultTypes: ["violations"] })).violations.map((v) => ({ id: v.id, impact: v.impact,
             nodes: v.nodes.slice(0, 3).map((n) =>
               n.target.join(" ") + " " + (n.failureSummary || "").slice(0, 160)) }))""",
        AXE_TAGS)
    return [f"{name}: {v['id']} ({v['impact']}) {v['nodes']}" for v in violations
            if v["impact"] in ("serious", "critical")]


def heard(page: Page) -> list[str]:
    """The lines assistive technology can hear now: text in a live region that Chromium's
    accessibility tree does not ignore. A live region outside an open modal <dialog> is in
    the DOM but ignored (`activeModalDialog`): what it says is never spoken."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes: list[dict[str, Any]] = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}

    def live(node: dict[str, Any]) -> bool:
        return not node.get("ignored") and any(
            p["name"] == "live" and p["value"].get("value") in ("polite", "assertive")
            for p in node.get("properties", []))

    lines = []
    for node in nodes:
        if node.get("ignored") or node.get("role", {}).get("value") != "StaticText":
            continue
        up = by_id.get(node.get("parentId", ""))
        while up is not None and not live(up):
            up = by_id.get(up.get("parentId", ""))
        if up is not None:
            lines.append(str(node.get("name", {}).get("value", "")))
    return lines


def wait_heard(page: Page, needle: str, timeout: float = 20.0) -> str:
    """The first line holding `needle` that assistive technology can hear (see heard)."""
    deadline = time.monotonic() + timeout
    while True:
        for line in heard(page):
            if needle in line:
                return line
        assert time.monotonic() < deadline, (
            f"never heard: {needle!r}; the announcer holds {spoken(page)[-6:]}, "
            f"the accessibility tree reads {heard(page)[-6:]}")
        page.wait_for_timeout(200)
