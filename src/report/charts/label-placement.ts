// Text labels beside the points of a scatter chart, placed without overlap: each label tries a few
// positions around its point, in order, and takes the first that stays inside the plot and clear of
// every label placed before it and of every point; a label with no free position is dropped (the
// chart's colour legend still names its point). Positions are computed from the chart's own linear
// scales, so the chart must give its axes the same explicit domains (`nice: false`).

/** One point to label, in data units. */
export interface LabelPoint {
  readonly x: number;
  readonly y: number;
  readonly text: string;
}

/** A placed label: its anchor in data units, and how the text hangs off it. */
export interface PlacedLabel {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly align: 'left' | 'right' | 'center';
}

interface Box { x0: number; y0: number; x1: number; y1: number }

/** The plot's size in pixels, its domains, and the labels' font size. */
export interface PlotFrame {
  readonly width: number;
  readonly height: number;
  readonly xDomain: readonly [number, number];
  readonly yDomain: readonly [number, number];
  readonly fontSize?: number;
}

/** Pixel offsets tried, in order: right, left, above, below, then the diagonals further out. */
const OFFSETS: readonly { dx: number; dy: number; align: PlacedLabel['align'] }[] = [
  { dx: 8, dy: 0, align: 'left' }, { dx: -8, dy: 0, align: 'right' }, { dx: 0, dy: -12, align: 'center' }, { dx: 0, dy: 13, align: 'center' },
  { dx: 8, dy: -12, align: 'left' }, { dx: 8, dy: 13, align: 'left' }, { dx: -8, dy: -12, align: 'right' }, { dx: -8, dy: 13, align: 'right' },
];

const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** Place as many labels as fit; the rest are left out (in the input's order of priority). */
export function placeLabels(points: readonly LabelPoint[], f: PlotFrame): PlacedLabel[] {
  const size = f.fontSize ?? 10;
  const sx = (v: number) => ((v - f.xDomain[0]) / (f.xDomain[1] - f.xDomain[0] || 1)) * f.width;
  const sy = (v: number) => f.height - ((v - f.yDomain[0]) / (f.yDomain[1] - f.yDomain[0] || 1)) * f.height;
  const ix = (px: number) => f.xDomain[0] + (px / f.width) * (f.xDomain[1] - f.xDomain[0]);
  const iy = (py: number) => f.yDomain[0] + ((f.height - py) / f.height) * (f.yDomain[1] - f.yDomain[0]);
  // Every point keeps a small disc clear of text.
  const taken: Box[] = points.map((p) => ({ x0: sx(p.x) - 6, y0: sy(p.y) - 6, x1: sx(p.x) + 6, y1: sy(p.y) + 6 }));
  const out: PlacedLabel[] = [];
  for (const p of points) {
    // A generous width per character (DejaVu Sans at 10 px averages about 6 px).
    const w = p.text.length * size * 0.62 + 2;
    const h = size + 2;
    for (const o of OFFSETS) {
      const ax = sx(p.x) + o.dx;
      const ay = sy(p.y) + o.dy;
      const x0 = o.align === 'left' ? ax : o.align === 'right' ? ax - w : ax - w / 2;
      const box = { x0, y0: ay - h / 2, x1: x0 + w, y1: ay + h / 2 };
      if (box.x0 < 0 || box.x1 > f.width || box.y0 < 0 || box.y1 > f.height || taken.some((t) => overlaps(t, box))) continue;
      taken.push(box);
      out.push({ text: p.text, x: ix(ax), y: iy(ay), align: o.align });
      break;
    }
  }
  return out;
}

/** A linear domain around values, padded by `pad` of its span on each side (a point span gets ±1 % or ±1). */
export function paddedDomain(values: readonly number[], pad = 0.08): [number, number] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || Math.abs(hi) * 0.02 || 1;
  return [lo - span * pad, hi + span * pad];
}
