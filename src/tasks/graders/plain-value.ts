/**
 * Python values as tagged plain JSON, and Python's `==` over them, on the trusted side.
 * A candidate's return value crosses the sandbox boundary only in this form: decoded by exact
 * shape (anything else is "not plain data"), compared here, never by a method of a candidate object.
 */

/** `['none'] | ['bool', b] | ['int', digits] | ['float', repr] | ['str', s] | ['bytes', hex] |
 * ['complex', re, im] | ['list' | 'tuple' | 'set', items] | ['dict', [key, value][]]`. */
export type PlainValue =
  | readonly ['none']
  | readonly ['bool', boolean]
  | readonly ['int', bigint]
  | readonly ['float', number]
  | readonly ['str', string]
  | readonly ['bytes', string]
  | readonly ['complex', number, number]
  | readonly ['list' | 'tuple' | 'set', readonly PlainValue[]]
  | readonly ['dict', readonly (readonly [PlainValue, PlainValue])[]];

const MAX_DEPTH = 100;
const INT = /^-?\d{1,5000}$/;

function pyFloat(s: unknown): number | null {
  if (typeof s !== 'string') return null;
  if (s === 'nan') return NaN;
  if (s === 'inf') return Infinity;
  if (s === '-inf') return -Infinity;
  if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
  return Number(s);
}

/** Decode a tagged value by exact shape; null when it is not one (a forged or broken record). */
export function decodePlain(raw: unknown, depth = 0): PlainValue | null {
  if (!Array.isArray(raw) || depth > MAX_DEPTH || typeof raw[0] !== 'string') return null;
  const [tag, a, b] = raw as [string, unknown, unknown];
  const n = raw.length;
  switch (tag) {
    case 'none': return n === 1 ? ['none'] : null;
    case 'bool': return n === 2 && typeof a === 'boolean' ? ['bool', a] : null;
    case 'int': return n === 2 && typeof a === 'string' && INT.test(a) ? ['int', BigInt(a)] : null;
    case 'float': { const f = pyFloat(a); return n === 2 && f !== null ? ['float', f] : null; }
    case 'str': return n === 2 && typeof a === 'string' ? ['str', a] : null;
    case 'bytes': return n === 2 && typeof a === 'string' && /^([0-9a-f]{2})*$/.test(a) ? ['bytes', a] : null;
    case 'complex': {
      const re = pyFloat(a);
      const im = pyFloat(b);
      return n === 3 && re !== null && im !== null ? ['complex', re, im] : null;
    }
    case 'list': case 'tuple': case 'set': {
      if (n !== 2 || !Array.isArray(a)) return null;
      const items: PlainValue[] = [];
      for (const x of a) {
        const v = decodePlain(x, depth + 1);
        if (v === null) return null;
        items.push(v);
      }
      return [tag, items];
    }
    case 'dict': {
      if (n !== 2 || !Array.isArray(a)) return null;
      const pairs: [PlainValue, PlainValue][] = [];
      for (const p of a) {
        if (!Array.isArray(p) || p.length !== 2) return null;
        const k = decodePlain(p[0], depth + 1);
        const v = decodePlain(p[1], depth + 1);
        if (k === null || v === null) return null;
        pairs.push([k, v]);
      }
      return ['dict', pairs];
    }
    default: return null;
  }
}

/** Numeric view of bool/int/float for comparisons across kinds (Python: True == 1 == 1.0). */
function numeric(v: PlainValue): { int: bigint } | { float: number } | null {
  if (v[0] === 'bool') return { int: v[1] ? 1n : 0n };
  if (v[0] === 'int') return { int: v[1] };
  if (v[0] === 'float') return { float: v[1] };
  return null;
}

function numEq(a: { int: bigint } | { float: number }, b: { int: bigint } | { float: number }): boolean {
  if ('int' in a && 'int' in b) return a.int === b.int;
  if ('float' in a && 'float' in b) return a.float === b.float;
  const i = 'int' in a ? a.int : (b as { int: bigint }).int;
  const f = 'float' in a ? a.float : (b as { float: number }).float;
  return Number.isInteger(f) && BigInt(f) === i;
}

/** Python `a == b` for plain values. */
export function pyEqual(a: PlainValue, b: PlainValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na && nb) return numEq(na, nb);
  if (a[0] === 'complex' || b[0] === 'complex') {
    const c = (v: PlainValue): [number, number] | null => {
      if (v[0] === 'complex') return [v[1], v[2]];
      const n = numeric(v);
      return n ? ['int' in n ? Number(n.int) : n.float, 0] : null;
    };
    const ca = c(a);
    const cb = c(b);
    return ca !== null && cb !== null && ca[0] === cb[0] && ca[1] === cb[1];
  }
  if (a[0] !== b[0]) return false;
  switch (a[0]) {
    case 'none': return true;
    case 'str': case 'bytes': return a[1] === b[1];
    case 'list': case 'tuple': {
      const bi = b[1] as readonly PlainValue[];
      return a[1].length === bi.length && a[1].every((x, i) => pyEqual(x, bi[i]!));
    }
    case 'set': {
      const bi = b[1] as readonly PlainValue[];
      // Python sets hold distinct elements, so equal sizes plus inclusion one way is equality.
      return a[1].length === bi.length && a[1].every((x) => bi.some((y) => pyEqual(x, y)));
    }
    case 'dict': {
      const bp = b[1] as readonly (readonly [PlainValue, PlainValue])[];
      return a[1].length === bp.length && a[1].every(([k, v]) => bp.some(([k2, v2]) => pyEqual(k, k2) && pyEqual(v, v2)));
    }
    default: return false;
  }
}

/** Python truthiness of a plain value. */
export function pyTruthy(v: PlainValue): boolean {
  switch (v[0]) {
    case 'none': return false;
    case 'bool': return v[1];
    case 'int': return v[1] !== 0n;
    case 'float': return v[1] !== 0; // NaN is truthy in Python too
    case 'complex': return v[1] !== 0 || v[2] !== 0;
    case 'str': case 'bytes': return v[1] !== '';
    default: return v[1].length > 0;
  }
}

/** A real number from a bool/int/float value, else null. */
export function pyNumber(v: PlainValue): number | null {
  const n = numeric(v);
  return n === null ? null : 'int' in n ? Number(n.int) : n.float;
}

/** Short Python-like rendering for failure details (`[1, 2]`, `'abc'`, `None`). */
export function pyRepr(v: PlainValue, budget = 80): string {
  const out = reprOf(v);
  return out.length > budget ? `${out.slice(0, budget - 3)}...` : out;
}

function reprOf(v: PlainValue): string {
  switch (v[0]) {
    case 'none': return 'None';
    case 'bool': return v[1] ? 'True' : 'False';
    case 'int': return v[1].toString();
    case 'float': return Number.isNaN(v[1]) ? 'nan' : !Number.isFinite(v[1]) ? (v[1] > 0 ? 'inf' : '-inf') : Number.isInteger(v[1]) ? `${v[1]}.0` : String(v[1]);
    case 'str': return `'${v[1].slice(0, 200)}'`;
    case 'bytes': return `bytes.fromhex('${v[1].slice(0, 200)}')`;
    case 'complex': return `(${v[1]}+${v[2]}j)`;
    case 'list': return `[${v[1].slice(0, 20).map(reprOf).join(', ')}]`;
    case 'tuple': return `(${v[1].slice(0, 20).map(reprOf).join(', ')}${v[1].length === 1 ? ',' : ''})`;
    case 'set': return v[1].length === 0 ? 'set()' : `{${v[1].slice(0, 20).map(reprOf).join(', ')}}`;
    case 'dict': return `{${v[1].slice(0, 20).map(([k, x]) => `${reprOf(k)}: ${reprOf(x)}`).join(', ')}}`;
  }
}
