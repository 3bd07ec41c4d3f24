"""DOM measurements of what a room sees: overflow, overlap and text sizes on one page.

``PROBE_JS`` runs in the page and returns plain data; :func:`problems` turns it into
one readable line per fault. Used by ``test_lecture_browser.py`` and by hand
(``python tests/browser/lecture_probe.py URL``) to compare before and after a change.
"""

from __future__ import annotations

import sys

from waits import wait_steady

TOLERANCE_PX = 1.0  # sub-pixel rounding
FONT_TOLERANCE_PX = 0.25

# Every measurement is in CSS pixels of the viewport (getBoundingClientRect, computed styles).
PROBE_JS = r"""() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const size = el => parseFloat(getComputedStyle(el).fontSize);
  const box = el => { const r = el.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const text = el => (el.textContent || '').trim().slice(0, 60);
  const all = (root, sel) => [...root.querySelectorAll(sel)].filter(shown);
  const zoomOf = el => {
    let z = 1;
    for (let e = el; e; e = e.parentElement) z *= parseFloat(getComputedStyle(e).zoom || '1') || 1;
    return z;
  };
  const leaf = el => [...el.querySelectorAll('*')].filter(e => e.children.length === 0 && text(e)).pop() || el;

  // Body text: the most common size of the prose paragraphs in the main area.
  const counts = {};
  const notBody = '[data-testid="stCaptionContainer"], [data-testid="stAlert"], [data-testid="stWidgetLabel"],'
    + ' [data-testid="stExpander"] summary, [data-testid="stMetric"], [data-testid="stTooltipContent"]';
  for (const p of main.querySelectorAll('[data-testid="stMarkdownContainer"] :is(p, li)')) {
    if (p.closest(notBody)) continue;
    const s = size(p); counts[s] = (counts[s] || 0) + 1;
  }
  const body = Number(Object.entries(counts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? size(main));

  // Formulas: a display formula must fit its box (no scroll, nothing cut).
  const formulas = [...main.querySelectorAll('.katex-display')].map(el => {
    const k = el.querySelector('.katex') || el;
    return {text: text(el), scrollWidth: el.scrollWidth, clientWidth: el.clientWidth,
            right: k.getBoundingClientRect().right, boxRight: el.getBoundingClientRect().right, size: size(k)};
  });

  const metrics = [...main.querySelectorAll('[data-testid="stMetric"]')].map(m => {
    const v = m.querySelector('[data-testid="stMetricValue"]');
    const l = m.querySelector('[data-testid="stMetricLabel"]');
    // Streamlit clips on the markdown container around the text (ellipsis), not on the leaf.
    const clipped = [...m.querySelectorAll('*')].some(e => e.clientWidth > 0
      && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible');
    return {label: l ? text(l) : '', value: v ? size(leaf(v)) : 0, labelSize: l ? size(leaf(l)) : 0, clipped};
  });

  // st.dataframe draws on a canvas: its font is the grid theme's size times any CSS zoom.
  const tables = all(main, '[data-testid="stDataFrame"]').map(t => {
    const g = t.querySelector('[style*="--gdg-base-font-style"]');
    const font = g ? /([\d.]+)px/.exec(g.style.getPropertyValue('--gdg-base-font-style')) : null;
    return {size: (font ? parseFloat(font[1]) : NaN) * zoomOf(g || t), right: t.getBoundingClientRect().right};
  });

  // Plotly: title and subtitle inside the chart, clear of annotations (subplot titles),
  // legends, colour bars and plot areas; legends clear of plots and axis titles; every text at body size.
  const figureText = '.xtick text, .ytick text, [class^="g-x"] text, [class^="g-y"] text, .gtitle,'
    + ' .gtitle-subtitle, .annotation-text, .legendtext, .cbaxis text, .cbtitle text';
  const charts = all(main, '.js-plotly-plot').map(e => {
    const named = (sel, name) => all(e, sel).map(x => ({text: name || text(x), ...box(x)}));
    const legends = all(e, '.legend').map(l => ({text: 'legend', ...box(l.querySelector('.bg') || l)}));
    const small = [];
    for (const t of all(e, figureText)) {
      const s = parseFloat(t.style.fontSize || getComputedStyle(t).fontSize);
      if (s + 0.25 < body) small.push(`${text(t)} (${s}px)`);
    }
    const title = (e.layout && e.layout.title && (e.layout.title.text || e.layout.title)) || '';
    return {
      title: String(title).slice(0, 60), chart: box(e.querySelector('.main-svg') || e),
      titles: named('.gtitle, .gtitle-subtitle'), annotations: named('.annotation'), legends,
      plots: named('.nsewdrag', 'plot area'), colorbars: named('.colorbar', 'colour bar'),
      axisTitles: named('[class^="g-x"][class$="title"], [class^="g-y"][class$="title"]', 'axis title'), small,
    };
  });

  const nav = all(document, '[data-testid="stSidebarNavLink"] span').filter(s => s.scrollWidth > s.clientWidth + 1)
    .map(text);
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const sidebarWidth = sidebar ? sidebar.getBoundingClientRect().width : 0;
  const sidebarOpen = sidebar ? sidebar.getAttribute('aria-expanded') !== 'false' && sidebarWidth > 50 : false;

  const sliders = all(document, '[data-testid="stSliderThumbValue"]').map(v => ({
    value: text(v), ...box(v), thumb: box(v.parentElement),
  }));

  // The page title at the top of the page (scrolled to the top) must not sit under the fixed app header.
  const header = document.querySelector('[data-testid="stHeader"]');
  const h1 = main.querySelector('h1');
  const heading = header && h1 && main.scrollTop === 0 ? {text: text(h1), header: box(header), ...box(h1)} : null;

  const doc = document.documentElement;
  const name = el => `${el.tagName}.${String(el.className.baseVal ?? el.className).slice(0, 40)}`;
  const wide = all(main, '*').filter(el => el.getBoundingClientRect().right > doc.clientWidth + 1)
    .slice(0, 5).map(name);
  return {
    viewport: {width: window.innerWidth, height: window.innerHeight}, body, formulas, metrics, tables, charts, nav,
    sidebarOpen, sidebarWidth, sliders, heading,
    pageOverflow: Math.max(doc.scrollWidth - doc.clientWidth, main.scrollWidth - main.clientWidth), wide,
    title: document.title,
  };
}"""


def _intersects(a: dict, b: dict) -> bool:
    return min(a["r"], b["r"]) - max(a["l"], b["l"]) > TOLERANCE_PX and min(a["b"], b["b"]) - max(a["t"], b["t"]) > (
        TOLERANCE_PX
    )


def _inside(a: dict, outer: dict) -> bool:
    return (
        a["l"] >= outer["l"] - TOLERANCE_PX
        and a["r"] <= outer["r"] + TOLERANCE_PX
        and a["t"] >= outer["t"] - TOLERANCE_PX
        and a["b"] <= outer["b"] + TOLERANCE_PX
    )


def problems(m: dict) -> dict[str, list[str]]:
    """Faults by kind (``overflow``, ``overlap``, ``small``), one line each."""
    body = m["body"]
    out: dict[str, list[str]] = {"overflow": [], "overlap": [], "small": []}
    for f in m["formulas"]:
        if f["scrollWidth"] > f["clientWidth"] + TOLERANCE_PX or f["right"] > f["boxRight"] + TOLERANCE_PX:
            out["overflow"].append(f"formula {f['text']!r}: {f['scrollWidth']} px in a {f['clientWidth']} px box")
        if f["size"] + FONT_TOLERANCE_PX < body:
            out["small"].append(f"formula {f['text']!r}: {f['size']:.1f} px < body {body:.1f} px")
    for x in m["metrics"]:
        if x["clipped"]:
            out["overflow"].append(f"metric {x['label']!r}: text cut off")
        for what in ("value", "labelSize"):
            if x[what] + FONT_TOLERANCE_PX < body:
                out["small"].append(f"metric {x['label']!r} {what}: {x[what]:.1f} px < body {body:.1f} px")
    for t in m["tables"]:
        if not t["size"] + FONT_TOLERANCE_PX >= body:
            out["small"].append(f"table: {t['size']:.1f} px < body {body:.1f} px")
    for c in m["charts"]:
        name = c["title"]
        for t in c["titles"]:
            if not _inside(t, c["chart"]):
                out["overflow"].append(f"chart {name!r}: title line {t['text']!r} outside the chart")
            for other in c["annotations"] + c["legends"] + c["plots"] + c["colorbars"]:
                if _intersects(t, other):
                    out["overlap"].append(f"chart {name!r}: title line {t['text']!r} over {other['text']!r}")
        for lg in c["legends"]:
            if not _inside(lg, c["chart"]):
                out["overflow"].append(f"chart {name!r}: legend outside the chart")
            for p in c["plots"] + c["axisTitles"] + c["colorbars"]:
                if _intersects(lg, p):
                    out["overlap"].append(f"chart {name!r}: legend over {p['text']!r}")
        for bar in c["colorbars"]:
            if not _inside(bar, c["chart"]):
                out["overflow"].append(f"chart {name!r}: colour bar (or its title) outside the chart")
        for a in c["annotations"]:
            if not _inside(a, c["chart"]):
                out["overflow"].append(f"chart {name!r}: annotation {a['text']!r} outside the chart")
        if c["small"]:
            out["small"].append(f"chart {name!r}: {len(c['small'])} texts < body {body:.1f} px, e.g. {c['small'][:3]}")
    for s in m["sliders"]:
        if _intersects(s, s["thumb"]) and s["b"] > s["thumb"]["t"] + 2:
            out["overlap"].append(f"slider value {s['value']!r} over its thumb")
    h = m.get("heading")
    if h and h["t"] < h["header"]["b"] - TOLERANCE_PX:
        out["overlap"].append(
            f"page title {h['text']!r} under the app header ({h['t']:.0f} < {h['header']['b']:.0f} px)"
        )
    for label in m["nav"]:
        out["overflow"].append(f"sidebar page name {label!r} truncated")
    if m["pageOverflow"] > TOLERANCE_PX:
        out["overflow"].append(f"page scrolls sideways by {m['pageOverflow']} px: {m['wide']}")
    return out


def scroll_through(page) -> None:
    """Scroll the main area to the bottom a screen at a time (charts below the fold draw lazily), then back."""
    for _ in range(60):
        at_end = page.evaluate(
            "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
            " const end = m.scrollTop + m.clientHeight >= m.scrollHeight - 2;"
            " m.scrollTop += m.clientHeight; return end; }"
        )
        wait_steady(page)  # what this screen showed has drawn
        if at_end:
            break
    page.evaluate("() => { document.querySelector('[data-testid=\"stMain\"]').scrollTop = 0; }")
    wait_steady(page)


def main(argv: list[str]) -> None:  # pragma: no cover - a tool for people
    """``python tests/browser/lecture_probe.py BASE_URL [WIDTHxHEIGHT ...]``: print the faults per page."""
    from playwright.sync_api import sync_playwright

    from posviz.schemes import COMPARE, HOME, SCHEMES

    base = argv[0]
    sizes = [tuple(int(v) for v in s.split("x")) for s in (argv[1:] or ["1280x720", "1024x768"])]
    paths = [HOME.key, *(s.key for s in SCHEMES if s.page), COMPARE.key]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for width, height in sizes:
            for path in paths:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{base}/{path}?lecture=1", timeout=120_000)
                page.wait_for_function(
                    "() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')"
                    " === 'notRunning' && !document.querySelector('[data-testid=stStatusWidget]')",
                    timeout=120_000,
                )
                scroll_through(page)
                m = page.evaluate(PROBE_JS)
                found = problems(m)
                counts = {k: len(v) for k, v in found.items()}
                print(f"{width}x{height} /{path}: {counts} sidebar open={m['sidebarOpen']} title={m['title']!r}")
                for kind, lines in found.items():
                    for line in lines:
                        print(f"    {kind}: {line}")
                page.close()
        browser.close()


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
