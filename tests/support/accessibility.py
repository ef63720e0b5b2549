"""An accessibility pass of a page in the browser tests (issue 30): Deque's axe-core, fetched from npm by
``make axe`` (``scripts/install_axe.sh``, pinned by sha256), injected into the page and run on it or a part of it.

``serious_violations`` returns what axe rates ``serious`` or ``critical`` (WCAG 2.1 A/AA rules and axe's best
practices), each as ``"<rule>: <help> — <selector>"``, so a failing test says what to fix.
"""

from pathlib import Path

from tests.support.processes import ROOT

AXE = ROOT / "var" / "axe" / "axe.min.js"
SERIOUS = ("serious", "critical")
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def serious_violations(page, include: str | None = None) -> list[str]:
    """Run axe-core on ``page`` (or on the elements matching the CSS selector ``include``) and return its serious
    and critical violations.

    Raises:
        FileNotFoundError: axe-core is not installed (``make axe``): the pass cannot be skipped silently.
    """
    if not Path(AXE).is_file():
        raise FileNotFoundError(f"{AXE} is missing: run `make axe` (scripts/install_axe.sh)")
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(AXE))
    results = page.evaluate(
        """async ([include, tags]) => {
            const context = include ? { include: [[include]] } : document;
            return (await window.axe.run(context, { runOnly: { type: "tag", values: tags } })).violations;
        }""",
        [include, RULE_TAGS],
    )
    return [
        f"{v['id']}: {v['help']} — {', '.join(' '.join(n['target']) for n in v['nodes'][:3])}"
        for v in results
        if v.get("impact") in SERIOUS
    ]
