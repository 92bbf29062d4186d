/**
 * Charts drawn on the server as SVG: no client library, nothing to run under the
 * Content-Security-Policy, readable without script. Each chart is an image with a text
 * alternative (role="img" + <title>), and its figures are also shown in a table next to it,
 * so nothing is told by the picture alone (WCAG 1.1.1).
 */
import { html } from 'ghtml';

export interface Bar {
  label: string;
  value: number;
}

/**
 * No viewBox: the drawing is laid out in CSS pixels and percentages of the page's width, so a
 * chart takes the whole width it is given and its labels keep the page's text size (a scaled
 * viewBox shrank them on narrow screens, and capped the chart to a fixed share of wide ones).
 */
const COLUMN_AREA = 180;
const pct = (n: number): string => `${Math.round(n * 100) / 100}%`;

/** Vertical bars with the labels under them (a time series such as credits per day). */
export function columnChart(title: string, bars: readonly Bar[], options: { labelEvery?: number } = {}): string {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = 100 / Math.max(1, bars.length);
  const every = options.labelEvery ?? 1;
  const total = bars.reduce((s, b) => s + b.value, 0);
  return html`<svg width="100%" height="${COLUMN_AREA + 30}" role="img" aria-labelledby="chart-${slug(title)}" focusable="false">
    <title id="chart-${slug(title)}">${title}: ${total} in all, at most ${max} in one</title>
    <line class="chart-axis" x1="0" y1="${COLUMN_AREA}" x2="100%" y2="${COLUMN_AREA}"></line>
    !${bars.map((b, i) => {
      const h = Math.round((b.value / max) * (COLUMN_AREA - 10));
      const x = pct(i * step + step * 0.15);
      return html`<rect class="chart-bar" x="${x}" y="${COLUMN_AREA - h}" width="${pct(step * 0.7)}" height="${h}"><title>${b.label}: ${b.value}</title></rect>!${
        i % every === 0 ? html`<text class="chart-label" x="${x}" y="${COLUMN_AREA + 18}">${b.label}</text>` : ''
      }`;
    })}
  </svg>`;
}

/**
 * Horizontal bars, each under its label with its value after it (a breakdown such as verdicts):
 * a label above its bar never collides with the bar, however narrow the screen.
 */
export function barChart(title: string, bars: readonly Bar[]): string {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rowHeight = 44;
  const height = Math.max(1, bars.length) * rowHeight + 4;
  return html`<svg width="100%" height="${height}" role="img" aria-labelledby="chart-${slug(title)}" focusable="false">
    <title id="chart-${slug(title)}">${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(', ')}</title>
    !${bars.map((b, i) => {
      // The longest bar takes 88 % of the width, leaving room for its value.
      const w = (b.value / max) * 88;
      const y = i * rowHeight;
      return html`<text class="chart-label" x="0" y="${y + 15}">${b.label}</text>
        <rect class="chart-bar" x="0" y="${y + 21}" width="${pct(Math.max(0.2, w))}" height="16"></rect>
        <text class="chart-label" x="${pct(w + 1)}" y="${y + 34}">${b.value}</text>`;
    })}
  </svg>`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
