"""The accuracy chart of the HTML report: inline SVG, no script, no external reference.

One horizontal bar per run and category, with the 95 % Wilson interval as a whisker, so a
reader sees at once whether two bars' intervals overlap. Every text is escaped.
"""

from __future__ import annotations

from tfce_eval.report.document import html_text
from tfce_eval.report.layout import ci, pct
from tfce_eval.report.model import Rate, Report

PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#9d755d", "#bab0ac")

_WIDTH = 960
_LABEL_W = 220  # category names
_VALUE_W = 160  # "82.3% [78.1, 86.0]" after the bar
_PLOT_W = _WIDTH - _LABEL_W - _VALUE_W
_BAR_H = 16
_BAR_GAP = 4
_GROUP_GAP = 16


def _x(fraction: float) -> float:
    return _LABEL_W + max(0.0, min(1.0, fraction)) * _PLOT_W


def _text(x: float, y: float, text: str, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html_text(v)}"' for k, v in attrs.items())
    return f'<text x="{x:.1f}" y="{y:.1f}"{extra}>{html_text(text)}</text>'


def _bar(rate: Rate | None, y: float, color: str, run: str, label: str) -> list[str]:
    mid = y + _BAR_H / 2
    if rate is None or rate.accuracy is None:
        return [_text(_LABEL_W + 4, mid + 4, "N/A (not run)", fill="#777", font_style="italic")]
    end = _x(rate.accuracy)
    tip = f"{run} · {label}: {pct(rate.accuracy)} {ci(rate)}, {rate.correct}/{rate.total}"
    out = [
        f'<rect x="{_LABEL_W}" y="{y:.1f}" width="{end - _LABEL_W:.1f}" height="{_BAR_H}" '
        f'fill="{color}"><title>{html_text(tip)}</title></rect>'
    ]
    right = end
    if rate.ci95 is not None:
        lo, hi = _x(rate.ci95[0]), _x(rate.ci95[1])
        right = max(end, hi)
        out.append(
            f'<path d="M{lo:.1f} {mid:.1f}H{hi:.1f}M{lo:.1f} {y + 3:.1f}V{y + _BAR_H - 3:.1f}'
            f'M{hi:.1f} {y + 3:.1f}V{y + _BAR_H - 3:.1f}" stroke="#222" stroke-width="1.5" '
            'fill="none"/>'
        )
    out.append(_text(right + 6, mid + 4, f"{pct(rate.accuracy)} {ci(rate)}", fill="#222"))
    return out


def _legend(names: list[str]) -> tuple[list[str], float]:
    """One swatch per run, wrapped onto more lines when the names do not fit; and its height."""
    parts: list[str] = []
    x, y = float(_LABEL_W), 8.0
    for i, name in enumerate(names):
        shown = name if len(name) <= 60 else name[:59] + "…"
        width = 30 + 7.5 * len(shown)  # a generous estimate: the font is not measured here
        if x > _LABEL_W and x + width > _WIDTH:
            x, y = float(_LABEL_W), y + 20
        color = PALETTE[i % len(PALETTE)]
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="12" height="12" fill="{color}"/>')
        parts.append(_text(x + 18, y + 11, shown, fill="#222"))
        x += width
    return parts, y + 12


def accuracy_chart(report: Report) -> str:
    """The per-category accuracy chart (plus overall micro) with Wilson whiskers, as `<svg>`."""
    runs = report.runs
    groups: list[tuple[str, list[Rate | None]]] = []
    for cat in report.categories:
        figures = [r.category(cat) for r in runs]
        groups.append((cat, [None if f is None else f.rate for f in figures]))
    groups.append(("overall (micro)", [r.micro if r.micro.total else None for r in runs]))
    legend, legend_bottom = _legend([r.name for r in runs])
    top = legend_bottom + 44  # room for the axis labels
    group_h = len(runs) * (_BAR_H + _BAR_GAP) - _BAR_GAP
    height = round(top + len(groups) * (group_h + _GROUP_GAP) + 24)
    parts = [
        f'<svg class="chart" viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}" '
        'role="img" aria-label="Accuracy by category with 95% Wilson intervals">',
        *legend,
    ]
    # Axis: grid lines every 20 %.
    plot_bottom = height - 24
    for tick in range(0, 101, 20):
        tx = _x(tick / 100)
        parts.append(
            f'<line x1="{tx:.1f}" y1="{top - 12:.1f}" x2="{tx:.1f}" y2="{plot_bottom}" '
            'stroke="#ddd" stroke-width="1"/>'
        )
        parts.append(_text(tx, top - 18, f"{tick}%", fill="#555", text_anchor="middle"))
    y = top
    for label, rates in groups:
        parts.append(
            _text(
                _LABEL_W - 10,
                y + group_h / 2 + 5,
                label,
                fill="#222",
                text_anchor="end",
                font_weight="600",
            )
        )
        for i, rate in enumerate(rates):
            color = PALETTE[i % len(PALETTE)]
            parts.extend(_bar(rate, y + i * (_BAR_H + _BAR_GAP), color, runs[i].name, label))
        y += group_h + _GROUP_GAP
    parts.append(
        _text(
            _LABEL_W,
            height - 6,
            "bars: accuracy; whiskers: 95% Wilson interval",
            fill="#555",
            font_size="12",
        )
    )
    parts.append("</svg>")
    return "\n".join(parts)
