import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { minuteOf } from './format.js';
import { scrollingTable } from './frame.js';

/**
 * A chart of the last hour as inline SVG: a stacked bar per minute, one colour per series
 * (classes of the stylesheet, so the CSP needs nothing more), no script. For assistive
 * technology it is an image with a title and a description (each series and its total), and
 * the same numbers follow as a data table (the minutes that counted anything).
 */

export interface ChartSeries {
  readonly label: string;
  /** One count per minute, oldest first. */
  readonly counts: readonly number[];
  readonly total: number;
}

export interface ChartContent {
  /** Unique on the page: the ids of the title and description derive from it. */
  readonly id: string;
  readonly title: string;
  /** Shown instead of the chart when nothing was counted. */
  readonly empty: string;
  /** The first minute's start, in seconds since the epoch. */
  readonly start: number;
  readonly series: readonly ChartSeries[];
}

/** Colours of the stylesheet (.s0 to .s6); more series than that share the last, as "other". */
const COLOURS = 7;
const WIDTH = 640;
const HEIGHT = 200;
const LEFT = 40;
const BOTTOM = 22;
const TOP = 8;

/** At most COLOURS series: the largest, and the rest summed as one. */
function shown(series: readonly ChartSeries[], other: string): ChartSeries[] {
  if (series.length <= COLOURS) return [...series];
  const rest = series.slice(COLOURS - 1);
  const counts = rest[0]?.counts.map((_, i) => rest.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0)) ?? [];
  return [...series.slice(0, COLOURS - 1), { label: other, counts, total: rest.reduce((sum, s) => sum + s.total, 0) }];
}

/** The top of the scale: 1, 2 or 5 times a power of ten, at least the highest minute. */
function scaleTop(highest: number): number {
  if (highest <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(highest));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= highest) as number;
}

function bars(series: readonly ChartSeries[], minutes: number, top: number): Html[] {
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / minutes;
  const out: Html[] = [];
  for (let minute = 0; minute < minutes; minute++) {
    let y = HEIGHT - BOTTOM;
    series.forEach((s, index) => {
      const count = s.counts[minute] ?? 0;
      if (count === 0) return;
      const height = (count / top) * plotHeight;
      y -= height;
      const x = LEFT + minute * slot + 1;
      out.push(
        html`<rect class="s${index}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot - 2).toFixed(1)}" height="${height.toFixed(1)}"/>`,
      );
    });
  }
  return out;
}

function axes(view: PageView, start: number, minutes: number, top: number): Html {
  const bottom = HEIGHT - BOTTOM;
  const slot = (WIDTH - LEFT) / minutes;
  // The first and last labels lean inwards, so neither is cut at the edge.
  const ticks = [0, 15, 30, 45, minutes - 1].map((minute, i, all) => {
    const anchor = i === 0 ? 'start' : i === all.length - 1 ? 'end' : 'middle';
    const x = anchor === 'start' ? LEFT + minute * slot : anchor === 'end' ? LEFT + (minute + 1) * slot : LEFT + minute * slot + slot / 2;
    return html`<text x="${x.toFixed(1)}" y="${HEIGHT - 6}" text-anchor="${anchor}">${minuteOf(start + minute * 60, view.t.lang)}</text>`;
  });
  const levels = (top % 2 === 0 ? [0, top / 2, top] : [0, top]).map(
    (level) =>
      html`<text x="${LEFT - 6}" y="${(bottom - (level / top) * (bottom - TOP) + 4).toFixed(1)}" text-anchor="end">${String(level)}</text>`,
  );
  return html`<g aria-hidden="true"><line class="axis" x1="${LEFT}" y1="${bottom}" x2="${WIDTH}" y2="${bottom}"/><line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${bottom}"/>${levels}${ticks}</g>`;
}

function dataTable(view: PageView, chart: ChartContent, series: readonly ChartSeries[]): Html {
  const { t } = view;
  const minutes = series[0]?.counts.length ?? 0;
  const rows: Html[] = [];
  for (let minute = 0; minute < minutes; minute++) {
    const counts = series.map((s) => s.counts[minute] ?? 0);
    const total = counts.reduce((a, b) => a + b, 0);
    if (total === 0) continue;
    rows.push(
      html`<tr><th scope="row">${minuteOf(chart.start + minute * 60, t.lang)}</th>${counts.map((count) => html`<td class="number">${String(count)}</td>`)}<td class="number">${String(total)}</td></tr>`,
    );
  }
  const head = html`<tr><th scope="col">${t.console.minute}</th>${series.map((s) => html`<th scope="col" class="number">${s.label}</th>`)}<th scope="col" class="number">${t.console.total}</th></tr>`;
  const table = scrollingTable({ id: `${chart.id}-caption`, text: html`${chart.title}` }, head, rows);
  return html`<details><summary>${t.console.dataTable}</summary>${table}</details>`;
}

export function activityChart(view: PageView, chart: ChartContent): Html {
  const { t } = view;
  const heading = html`<h3 id="${chart.id}-heading">${chart.title}</h3>`;
  if (chart.series.length === 0) return html`<figure class="chart">${heading}<p class="muted">${chart.empty}</p></figure>`;
  const series = shown(chart.series, t.console.otherSeries);
  const minutes = series[0]?.counts.length ?? 0;
  const highest = Math.max(...Array.from({ length: minutes }, (_, i) => series.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0)));
  const top = scaleTop(highest);
  const last = chart.start + (minutes - 1) * 60;
  const described = series.map((s) => `${s.label} ${s.total}`).join(', ');
  const description = t.console.chartDescription(minuteOf(chart.start, t.lang), minuteOf(last, t.lang), described);
  return html`<figure class="chart" aria-labelledby="${chart.id}-heading">${heading}
<svg role="img" aria-labelledby="${chart.id}-title ${chart.id}-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">
<title id="${chart.id}-title">${chart.title}</title>
<desc id="${chart.id}-desc">${description}</desc>
${axes(view, chart.start, minutes, top)}${bars(series, minutes, top)}
</svg>
<ul class="legend">${series.map((s, i) => html`<li><span class="swatch s${i}"></span>${s.label} (${String(s.total)})</li>`)}</ul>
${dataTable(view, chart, series)}
</figure>`;
}
