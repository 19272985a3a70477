#!/usr/bin/env python3
"""bench/render/weasy.py: WeasyPrint's side of bench/render.

    weasy.py [--cv FILE] [--theme FILE] [--warmup N] [--renders N] [--out PDF]
             [--html-out FILE] [--blocks]

    --cv FILE        the CV (default bench/render/cv.json)
    --theme FILE     peto's theme whose numbers the CSS copies (default themes/classic.json)
    --warmup N       renders before timing, not timed (default 3)
    --renders N      timed renders (default 20)
    --sample-every K VmRSS sampled after the warm-up and every K-th timed render (default 10)
    --out PDF        the last render's PDF is written here
    --html-out FILE  write the HTML document (its CSS inline) and stop: the input
                     of the whole-command measurement (`python3 -m weasyprint`)
    --blocks         print the blocks as JSON and stop (bench/render/run checks
                     they are render_driver's)

Run with Debian's /usr/bin/python3 and PYTHONPATH at the dist-packages that
bench/render/setup unpacked (bench/render/run does both).

The CV becomes the same blocks as render_driver.cpp builds (title, subtitle,
heading, entry with its dates aside, bullet, paragraph, small), each a <div>,
and the theme's numbers become CSS: @page A4 with the theme's margin, each
block kind's family, size, weight, style, capitals, colour, the space above
(margin-top, dropped at the top of a page as peto drops it) and below
(padding-bottom, so that it adds to the next block's space above as in peto
rather than collapsing into it), line height = line_spacing x the font's own
line height (read from the font file fontconfig picks, with fontTools), the
entry's aside floated to the far edge 12 pt clear of the text, bullets
indented by bullet_indent_pt with the theme's mark, a 0.6 pt rule 2 pt under
each heading, and a page break never right after a title, heading or entry
(peto breaks anywhere between lines: orphans and widows 1).

Timing is WeasyPrint's documented fast path for many documents: the
stylesheet parsed once (CSS(string=...)) and one FontConfiguration shared by
every render; each timed render is HTML(string=body).write_pdf(stylesheets=...,
font_config=...) with the default font subsetting, as peto's Cairo subsets.

Prints one JSON object: every render's time in ms, the median, the pages (of
the first warm-up render), the PDF's size, VmRSS samples and the process's
peak resident set (KiB: the larger of getrusage's ru_maxrss and
/proc/self/status VmHWM).
"""
import argparse
import html
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.realpath(os.path.join(HERE, "..", ".."))
ASIDE_GAP_PT = 12  # src/typeset/render.cpp kAsideGapPt
RULE_GAP_PT = 2  # src/typeset/render.cpp kRuleGapPt
RULE_WIDTH_PT = 0.6
BULLET_MARK_GAP_PT = 4  # the marker's width + this, if wider than the indent


def esc(text):
    return html.escape(text, quote=True)


def cv_blocks(cv):
    """(kind, markup, aside) in render_driver.cpp's order; markup is HTML here,
    the same tags (<b>) as peto's Pango markup."""
    blocks = []

    def add(kind, markup, aside=""):
        blocks.append((kind, markup, aside))

    add("title", esc(cv["name"]))
    add("subtitle", esc(cv["headline"]))
    add("subtitle", " · ".join(esc(c) for c in cv["contact"]))
    add("heading", "Profile")
    add("paragraph", esc(cv["profile"]))
    add("heading", "Experience")
    for e in cv["experience"]:
        add("entry", f"<b>{esc(e['role'])}</b>, {esc(e['company'])}, {esc(e['place'])}", esc(e["dates"]))
        for h in e["highlights"]:
            add("bullet", esc(h))
    add("heading", "Education")
    for e in cv["education"]:
        add("entry", f"<b>{esc(e['degree'])}</b>, {esc(e['school'])}", esc(e["dates"]))
        add("paragraph", esc(e["note"]))
    add("heading", "Skills")
    for s in cv["skills"]:
        add("paragraph", f"<b>{esc(s['group'])}:</b> {esc(s['items'])}")
    add("heading", "Projects")
    for p in cv["projects"]:
        add("entry", f"<b>{esc(p['name'])}</b>", esc(p["dates"]))
        add("paragraph", esc(p["description"]))
    add("heading", "Languages")
    add("paragraph", " · ".join(f"{esc(l['language'])} ({esc(l['level'])})" for l in cv["languages"]))
    add("small", esc(cv["footer"]))
    return blocks


def normal_line_height(family, bold=False, italic=False):
    """The font's own line height over its size, as Pango reads it (hhea, or
    OS/2 typo metrics when the font asks for them), of the file fontconfig
    picks for `family`."""
    from fontTools.ttLib import TTFont

    pattern = f"{family}:weight={'bold' if bold else 'regular'}:slant={'italic' if italic else 'roman'}"
    path = subprocess.run(["fc-match", "-f", "%{file}", pattern], check=True,
                          capture_output=True, text=True).stdout
    font = TTFont(path, lazy=True)
    upm = font["head"].unitsPerEm
    os2 = font["OS/2"] if "OS/2" in font else None
    if os2 is not None and os2.fsSelection & (1 << 7):
        height = os2.sTypoAscender - os2.sTypoDescender + os2.sTypoLineGap
    else:
        hhea = font["hhea"]
        height = hhea.ascent - hhea.descent + hhea.lineGap
    return height / upm


def css_for(theme):
    styles = theme["styles"]
    spacing = theme.get("line_spacing", 1.0)
    indent = theme.get("bullet_indent_pt", 12)
    rule = theme.get("rule_colour", "")
    out = [
        f"@page {{ size: A4; margin: {theme.get('margin_mm', 18)}mm; }}",
        "html, body { margin: 0; padding: 0; }",
        "div { orphans: 1; widows: 1; overflow-wrap: break-word; }",
        ".title, .heading, .entry { break-after: avoid; }",
    ]

    def font(s):
        natural = normal_line_height(s["family"], s.get("bold", False), s.get("italic", False))
        return (f"font-family: '{s['family']}'; font-size: {s.get('size_pt', 10)}pt; "
                f"font-weight: {'bold' if s.get('bold') else 'normal'}; "
                f"font-style: {'italic' if s.get('italic') else 'normal'}; "
                f"color: {s.get('colour', '#000000')}; line-height: {spacing * natural:.4f}; "
                f"text-transform: {'uppercase' if s.get('upper') else 'none'};")

    def half_leading_pt(s):
        natural = normal_line_height(s["family"], s.get("bold", False), s.get("italic", False))
        return (spacing - 1) * natural * s.get("size_pt", 10) / 2

    for kind in ("title", "subtitle", "heading", "entry", "paragraph", "bullet", "small"):
        s = styles[kind]
        out.append(f".{kind} {{ {font(s)} margin: {s.get('space_before_pt', 0)}pt 0 0 0; "
                   f"padding: 0 0 {s.get('space_after_pt', 0)}pt 0; }}")
        # Pango spaces lines apart without leading above the first or below
        # the last; CSS puts half the leading above and below every line.
        out.append(f".{kind} > div {{ margin: {-half_leading_pt(s):.3f}pt 0; }}")
    out.append(f".aside {{ {font(styles['aside'])} float: right; margin-left: {ASIDE_GAP_PT}pt; }}")
    out.append(f".bullet > div {{ position: relative; padding-left: {indent}pt; }}")
    out.append(f".bullet > div::before {{ content: {json.dumps(theme.get('bullet_mark', '•'), ensure_ascii=False)}; "
               "position: absolute; left: 0; top: 0; }")
    if rule:
        # peto draws the rule RULE_GAP_PT under the heading's last line, then
        # adds the heading's space below; the rule's own width is split between
        # the two so that the heading takes the same height as in peto.
        h = styles["heading"]
        half = RULE_WIDTH_PT / 2
        out.append(f".heading {{ padding-bottom: {max(0, h.get('space_after_pt', 0) - half)}pt; }}")
        out.append(f".heading::after {{ content: ''; display: block; height: 0; "
                   f"margin-top: {RULE_GAP_PT - half}pt; border-bottom: {RULE_WIDTH_PT}pt solid {rule}; }}")
    return "\n".join(out)


def body_for(cv, blocks):
    lang = esc(cv.get("language", "en"))
    parts = [f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
             f"<title>{esc(cv['name'])} — CV</title><meta name=author content=\"{esc(cv['name'])}\">"
             "</head><body>"]
    for kind, markup, aside in blocks:
        side = f'<span class="aside">{aside}</span>' if kind == "entry" and aside else ""
        parts.append(f'<div class="{kind}"><div>{side}{markup}</div></div>')
    parts.append("</body></html>")
    return "".join(parts)


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def peak_rss_kib():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cv", default=os.path.join(HERE, "cv.json"))
    ap.add_argument("--theme", default=os.path.join(ROOT, "themes", "classic.json"))
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--renders", type=int, default=20)
    ap.add_argument("--sample-every", type=int, default=10)
    ap.add_argument("--out")
    ap.add_argument("--html-out")
    ap.add_argument("--blocks", action="store_true")
    a = ap.parse_args()
    with open(a.cv, encoding="utf-8") as f:
        cv = json.load(f)
    blocks = cv_blocks(cv)
    if a.blocks:
        print(json.dumps([{"kind": k, "markup": m, "aside": s} for k, m, s in blocks],
                         ensure_ascii=False, indent=1))
        return
    with open(a.theme, encoding="utf-8") as f:
        theme = json.load(f)
    css_text = css_for(theme)
    body = body_for(cv, blocks)
    if a.html_out:
        with open(a.html_out, "w", encoding="utf-8") as f:
            f.write(body.replace("</head>", f"<style>\n{css_text}\n</style></head>", 1))
        return

    from weasyprint import CSS, HTML, __version__
    from weasyprint.text.fonts import FontConfiguration

    font_config = FontConfiguration()
    css = CSS(string=css_text, font_config=font_config)
    pages = 0
    pdf = b""
    for i in range(a.warmup):
        document = HTML(string=body).render(stylesheets=[css], font_config=font_config)
        pages = len(document.pages)
        pdf = document.write_pdf()
    times = []
    samples = [{"after": 0, "rss_kib": rss_kib()}]
    for i in range(1, a.renders + 1):
        start = time.perf_counter()
        pdf = HTML(string=body).write_pdf(stylesheets=[css], font_config=font_config)
        times.append((time.perf_counter() - start) * 1000)
        if i % a.sample_every == 0 or i == a.renders:
            samples.append({"after": i, "rss_kib": rss_kib()})
    if a.out:
        with open(a.out, "wb") as f:
            f.write(pdf)
    print(json.dumps({
        "weasyprint": __version__, "python": sys.version.split()[0], "blocks": len(blocks),
        "warmup": a.warmup, "renders_ms": [round(t, 3) for t in times],
        "median_ms": statistics.median(times) if times else None,
        "pages": pages, "pdf_bytes": len(pdf), "peak_rss_kib": peak_rss_kib(), "rss_samples": samples,
    }))


if __name__ == "__main__":
    main()
