"""Report HTML: blocks of text, tables and PNG figures -> one self-contained page.

Figures are embedded as base64 ``data:image/png`` URIs and the style sheet is inline, so
``index.html`` opens offline, needs no JavaScript and references no external URL.
"""

from __future__ import annotations

import base64
import html
import math
import re
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd

__all__ = ["Block", "Figure", "Section", "render", "result_block", "table_html"]


@dataclass
class Figure:
    """A PNG figure with its caption (the ``name`` becomes the file name in ``figures/``)."""

    name: str
    png: bytes
    caption: str


@dataclass
class Block:
    """A titled group inside a section: a reading, tables and figures."""

    title: str
    reading: str = ""
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)


@dataclass
class Section:
    """One numbered section of the report."""

    id: str
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


def result_block(draw, x, tables=(), figures=(), notes=(), title: str | None = None) -> Block:
    """The block of a section result ``x``: its reading, ``tables``, ``figures`` and ``notes``.

    ``figures`` are ``(name, plot, caption)``, drawn as ``draw(plot, x)`` (the builder's, which
    records a broken figure); the title is the study's label unless given. A result that
    ``skipped`` its study shows its reading (the reason) only.
    """
    label = x.study.label if title is None else title
    if getattr(x, "skipped", None):
        return Block(label, x.reading)
    drawn = [Figure(name, draw(plot, x), caption) for name, plot, caption in figures]
    return Block(label, x.reading, list(tables), drawn, list(notes))


_CSS = """
:root { --ink: #1d2330; --muted: #5b6475; --rule: #d9dde5; --band: #f4f6f9; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.55 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 64px; }
header { border-bottom: 3px solid var(--accent); margin-bottom: 18px; padding-bottom: 10px; }
h1 { font-size: 28px; margin: 8px 0 4px; }
h2 { font-size: 22px; margin: 38px 0 8px; padding-top: 8px; border-top: 1px solid var(--rule); }
h3 { font-size: 17px; margin: 24px 0 6px; color: var(--accent); }
p { margin: 6px 0 10px; }
.meta { color: var(--muted); font-size: 13px; }
.intro { color: var(--muted); }
.reading { background: var(--band); border-left: 4px solid var(--accent); padding: 4px 14px;
  border-radius: 0 6px 6px 0; margin: 8px 0 12px; }
.reading ul { margin: 4px 0 8px; padding-left: 20px; }
nav ol { columns: 2; margin: 6px 0 0; padding-left: 22px; }
nav a, a { color: var(--accent); text-decoration: none; }
.table-wrap { display: inline-block; vertical-align: top; max-width: 100%; overflow-x: auto;
  margin: 8px 18px 14px 0; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: var(--muted); font-size: 13px; padding: 2px 0 6px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--rule); text-align: right;
  white-space: nowrap; }
th { background: var(--band); font-weight: 600; }
td.text { text-align: left; white-space: normal; }
th.text { text-align: left; }
tbody tr:hover { background: #fafbfd; }
figure { display: inline-block; vertical-align: top; max-width: 100%; margin: 12px 18px 20px 0; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--rule); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
.note { color: #8a5a00; font-size: 13px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--rule);
  padding-top: 8px; }
"""


def _cell(value) -> tuple[str, bool]:
    """(text, is_number) of one table cell."""
    if isinstance(value, bool | np.bool_):
        return ("yes" if value else "no"), False
    if isinstance(value, Real) and not isinstance(value, bool):
        v = float(value)
        if math.isnan(v):
            return "—", True
        if math.isinf(v):
            return ("−∞" if v < 0 else "∞"), True
        if float(v).is_integer() and abs(v) < 1e12:
            return f"{int(v):,}".replace(",", " ").replace("-", "−"), True
        a = abs(v)
        if 1e3 <= a < 1e12:
            text = f"{v:,.0f}".replace(",", " ")
        elif a < 1e-3 or a >= 1e12:
            text = f"{v:.3g}"
        else:
            text = f"{v:.4g}"
        return text.replace("-", "−"), True
    return str(value), False


def table_html(df: pd.DataFrame, caption: str = "") -> str:
    """A DataFrame as an HTML table with readable numbers (−∞, —, 3–4 significant digits)."""
    out = ['<div class="table-wrap"><table>']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    index_name = df.index.name or ""
    out.append("<thead><tr>")
    out.append(f'<th class="text">{html.escape(str(index_name))}</th>')
    for col in df.columns:
        out.append(f"<th>{html.escape(str(col))}</th>")
    out.append("</tr></thead><tbody>")
    for idx, row in df.iterrows():
        out.append(f'<tr><th class="text">{html.escape(str(idx))}</th>')
        for value in row:
            text, number = _cell(value)
            cls = "" if number else ' class="text"'
            out.append(f"<td{cls}>{html.escape(text)}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _img(fig: Figure) -> str:
    if not fig.png:
        caption = html.escape(fig.caption)
        return f'<p class="note">Figure unavailable (see the failures section): {caption}</p>'
    data = base64.b64encode(fig.png).decode("ascii")
    alt = html.escape(fig.caption)
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{alt}">'
        f"<figcaption>{html.escape(fig.caption)}</figcaption></figure>"
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def render(title: str, subtitle: str, sections: list[Section], footer: str = "") -> str:
    """The whole page: header, table of contents, sections, footer."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<header><h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(subtitle)}</p></header>',
        "<nav><strong>Contents</strong><ol>",
    ]
    for sec in sections:
        parts.append(f'<li><a href="#{sec.id}">{html.escape(sec.title)}</a></li>')
    parts.append("</ol></nav>")
    for i, sec in enumerate(sections, start=1):
        parts.append(f'<section id="{sec.id}"><h2>{i}. {html.escape(sec.title)}</h2>')
        if sec.intro:
            parts.append(f'<p class="intro">{html.escape(sec.intro)}</p>')
        for block in sec.blocks:
            if block.title:
                parts.append(
                    f'<h3 id="{sec.id}-{_slug(block.title)}">{html.escape(block.title)}</h3>'
                )
            if block.reading or block.items:
                parts.append('<div class="reading">')
                if block.reading:
                    parts.append(f"<p>{html.escape(block.reading)}</p>")
                if block.items:
                    items = "".join(f"<li>{html.escape(i)}</li>" for i in block.items)
                    parts.append(f"<ul>{items}</ul>")
                parts.append("</div>")
            for caption, df in block.tables:
                parts.append(table_html(df, caption))
            for fig in block.figures:
                parts.append(_img(fig))
            for note in block.notes:
                parts.append(f'<p class="note">{html.escape(note)}</p>')
        parts.append("</section>")
    if footer:
        parts.append(f"<footer>{html.escape(footer)}</footer>")
    parts.append("</main></body></html>")
    return "\n".join(parts)
