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

const WIDTH = 640;
const BAR_AREA = 180;

/** Vertical bars with the labels under them (a time series such as credits per day). */
export function columnChart(title: string, bars: readonly Bar[], options: { labelEvery?: number } = {}): string {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = bars.length > 0 ? WIDTH / bars.length : WIDTH;
  const every = options.labelEvery ?? 1;
  const total = bars.reduce((s, b) => s + b.value, 0);
  return html`<svg viewBox="0 0 ${WIDTH} ${BAR_AREA + 40}" role="img" aria-labelledby="chart-${slug(title)}" focusable="false">
    <title id="chart-${slug(title)}">${title}: ${total} in all, at most ${max} in one</title>
    <line class="chart-axis" x1="0" y1="${BAR_AREA}" x2="${WIDTH}" y2="${BAR_AREA}"></line>
    !${bars.map((b, i) => {
      const h = Math.round((b.value / max) * (BAR_AREA - 10));
      const x = Math.round(i * step + step * 0.15);
      const w = Math.max(1, Math.round(step * 0.7));
      return html`<rect class="chart-bar" x="${x}" y="${BAR_AREA - h}" width="${w}" height="${h}"><title>${b.label}: ${b.value}</title></rect>!${
        i % every === 0 ? html`<text class="chart-label" x="${x}" y="${BAR_AREA + 16}">${b.label}</text>` : ''
      }`;
    })}
  </svg>`;
}

/** Horizontal bars with their labels and values (a breakdown such as verdicts). */
export function barChart(title: string, bars: readonly Bar[]): string {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rowHeight = 26;
  const labelWidth = 260;
  const height = Math.max(1, bars.length) * rowHeight + 10;
  return html`<svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="chart-${slug(title)}" focusable="false">
    <title id="chart-${slug(title)}">${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(', ')}</title>
    !${bars.map((b, i) => {
      const w = Math.round((b.value / max) * (WIDTH - labelWidth - 60));
      const y = i * rowHeight + 5;
      return html`<text class="chart-label" x="0" y="${y + 16}">${b.label}</text>
        <rect class="chart-bar" x="${labelWidth}" y="${y + 3}" width="${Math.max(1, w)}" height="${rowHeight - 8}"></rect>
        <text class="chart-label" x="${labelWidth + w + 6}" y="${y + 16}">${b.value}</text>`;
    })}
  </svg>`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
