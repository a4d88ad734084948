import type { ConvergenceSeries } from "./eval-report.js";

/** Colour-blind-safe palette (Okabe-Ito); series past its end repeat it with dashes. */
const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];
const DASHES = ["", "6 4", "2 3", "8 3 2 3"];

const WIDTH = 760;
const HEIGHT = 440;
const MARGIN = { left: 72, right: 200, top: 48, bottom: 64 };

/** Text made safe for XML content and attribute values. */
function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
  );
}

const fmt = (n: number) => String(Math.round(n * 100) / 100);

/** The plot area: the budgets on the x axis, and where a budget and a rate land. */
interface Plot {
  budgets: number[];
  plotW: number;
  plotH: number;
  x: (budget: number) => number;
  y: (rate: number) => number;
}

function plotOf(series: readonly ConvergenceSeries[]): Plot {
  const budgets = [...new Set(series.flatMap((s) => s.points.map((p) => p.budget)))].sort((a, b) => a - b);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const minB = budgets[0] ?? 0;
  const maxB = budgets.at(-1) ?? 1;
  const x = (b: number) => MARGIN.left + (maxB === minB ? plotW / 2 : ((b - minB) / (maxB - minB)) * plotW);
  const y = (rate: number) => MARGIN.top + (1 - rate) * plotH;
  return { budgets, plotW, plotH, x, y };
}

/** Grid lines with their labels (every 20 %, every budget), the two axes and their titles. */
function axes({ budgets, plotW, plotH, x, y }: Plot): string[] {
  const out: string[] = [];
  for (let pct = 0; pct <= 100; pct += 20) {
    const gy = fmt(y(pct / 100));
    out.push(`<line x1="${MARGIN.left}" y1="${gy}" x2="${MARGIN.left + plotW}" y2="${gy}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${gy}" text-anchor="end" dominant-baseline="middle">${pct}%</text>`);
  }
  for (const b of budgets) {
    const gx = fmt(x(b));
    out.push(`<line x1="${gx}" y1="${MARGIN.top}" x2="${gx}" y2="${MARGIN.top + plotH}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${gx}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${b}</text>`);
  }
  out.push(
    `<line x1="${MARGIN.left}" y1="${MARGIN.top + plotH}" x2="${MARGIN.left + plotW}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 18}" text-anchor="middle" font-size="13">Iteration budget (model calls allowed per task)</text>`,
    `<text x="18" y="${MARGIN.top + plotH / 2}" text-anchor="middle" font-size="13" transform="rotate(-90 18 ${MARGIN.top + plotH / 2})">Success rate</text>`,
  );
  return out;
}

/** Series `i`: its line with a marker per budget, and its legend entry. */
function seriesLines(s: ConvergenceSeries, i: number, { plotW, x, y }: Plot): string[] {
  const color = COLORS[i % COLORS.length];
  const dash = DASHES[Math.floor(i / COLORS.length) % DASHES.length];
  const points = [...s.points].sort((a, b) => a.budget - b.budget);
  const dashAttr = dash ? ` stroke-dasharray="${dash}"` : "";
  const ly = MARGIN.top + 10 + i * 22;
  const lx = MARGIN.left + plotW + 20;
  return [
    `<g class="series" data-model="${escapeXml(s.model)}">`,
    `<polyline fill="none" stroke="${color}" stroke-width="2.5"${dashAttr} points="${points.map((p) => `${fmt(x(p.budget))},${fmt(y(p.successRate))}`).join(" ")}"/>`,
    ...points.map(
      (p) =>
        `<circle cx="${fmt(x(p.budget))}" cy="${fmt(y(p.successRate))}" r="3.5" fill="${color}"><title>${escapeXml(`${s.model}: budget ${p.budget}, ${fmt(p.successRate * 100)}%${p.medianSteps === undefined ? "" : `, median ${fmt(p.medianSteps)} steps a run`}`)}</title></circle>`,
    ),
    // the median steps a run took, beside its marker
    ...points
      .filter((p) => p.medianSteps !== undefined)
      .map(
        (p) =>
          `<text class="steps" x="${fmt(x(p.budget) + 6)}" y="${fmt(y(p.successRate) - 8 - i * 12)}" fill="${color}" font-size="10">${fmt(p.medianSteps!)}</text>`,
      ),
    `</g>`,
    `<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${color}" stroke-width="2.5"${dashAttr}/>`,
    `<text x="${lx + 30}" y="${ly}" dominant-baseline="middle">${escapeXml(s.model.length > 24 ? `${s.model.slice(0, 23)}…` : s.model)}</text>`,
  ];
}

/**
 * The convergence chart as a standalone SVG: success rate (0-100 %) against the iteration budget, one line with
 * markers per model or profile (each with the median steps its runs took, where the report counts them), labelled
 * axes, grid lines, and a legend. Hand-written markup, no dependencies.
 */
export function renderConvergenceSvg(series: readonly ConvergenceSeries[], options: { title?: string } = {}): string {
  const plot = plotOf(series);
  const title = escapeXml(options.title ?? "Convergence: success rate by iteration budget");
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${title}</title>`,
    `<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="28" font-size="15" font-weight="bold">${title}</text>`,
    ...(series.some((s) => s.points.some((p) => p.medianSteps !== undefined))
      ? [
          `<text x="${MARGIN.left}" y="${HEIGHT - 40}" font-size="10" fill="#555">Small numbers: median steps (model calls) a run took at that budget</text>`,
        ]
      : []),
    ...axes(plot),
    ...series.flatMap((s, i) => seriesLines(s, i, plot)),
    `</svg>`,
  ];
  return `${out.join("\n")}\n`;
}
