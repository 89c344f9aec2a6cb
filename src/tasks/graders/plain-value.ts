/**
 * Python values as tagged plain JSON, read on the trusted side by exact shape (anything else is
 * "not plain data"). Node never compares them: Python does, on values rebuilt from this data
 * (sandbox/trusted_plain.py, one equality). Here they are only checked and rendered for details.
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
  | readonly ['fraction', bigint, bigint]
  | readonly ['decimal', string]
  | readonly ['range', bigint, bigint, bigint]
  | readonly ['list' | 'tuple' | 'set' | 'iter' | 'keys' | 'values' | 'items', readonly PlainValue[]]
  | readonly ['dict', readonly (readonly [PlainValue, PlainValue])[]];

const MAX_DEPTH = 100;
/** Decimal up to 5,000 digits, else hex (large ints cross as hex: trusted_plain.py). */
const INT = /^-?(\d{1,5000}|0x[0-9a-f]{1,262144})$/;
const DECIMAL = /^-?(Infinity|NaN|sNaN|\d+\.?\d*(E[-+]?\d+)?|\.\d+(E[-+]?\d+)?)$/i;

function pyInt(s: unknown): bigint | null {
  if (typeof s !== 'string' || !INT.test(s)) return null;
  return s.startsWith('-') ? -BigInt(s.slice(1)) : BigInt(s);
}

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
    case 'int': { const i = pyInt(a); return n === 2 && i !== null ? ['int', i] : null; }
    case 'strcp': {
      // A string holding a surrogate: its code points, rendered here as JavaScript reads them.
      if (n !== 2 || !Array.isArray(a) || !a.every((c) => Number.isInteger(c) && c >= 0 && c <= 0x10ffff)) return null;
      return ['str', String.fromCodePoint(...(a as number[]))];
    }
    case 'fraction': { const p = pyInt(a); const q = pyInt(b); return n === 3 && p !== null && q !== null && q > 0n ? ['fraction', p, q] : null; }
    case 'decimal': return n === 2 && typeof a === 'string' && a.length <= 5000 && DECIMAL.test(a) ? ['decimal', a] : null;
    case 'range': {
      const [x, y, z] = [pyInt(a), pyInt(b), pyInt(raw[3])];
      return n === 4 && x !== null && y !== null && z !== null ? ['range', x, y, z] : null;
    }
    case 'float': { const f = pyFloat(a); return n === 2 && f !== null ? ['float', f] : null; }
    case 'str': return n === 2 && typeof a === 'string' ? ['str', a] : null;
    case 'bytes': return n === 2 && typeof a === 'string' && /^([0-9a-f]{2})*$/.test(a) ? ['bytes', a] : null;
    case 'complex': {
      const re = pyFloat(a);
      const im = pyFloat(b);
      return n === 3 && re !== null && im !== null ? ['complex', re, im] : null;
    }
    case 'list': case 'tuple': case 'set': case 'iter': case 'keys': case 'values': case 'items': {
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

/** Numeric view of bool/int/float. */
function numeric(v: PlainValue): { int: bigint } | { float: number } | null {
  if (v[0] === 'bool') return { int: v[1] ? 1n : 0n };
  if (v[0] === 'int') return { int: v[1] };
  if (v[0] === 'float') return { float: v[1] };
  return null;
}

/** A real number from a bool/int/float value, else null. */
export function pyNumber(v: PlainValue): number | null {
  if (v[0] === 'fraction') return Number(v[1]) / Number(v[2]);
  if (v[0] === 'decimal') return Number(v[1].replace(/^(-?)Infinity$/i, '$1Infinity'));
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
    case 'fraction': return `Fraction(${v[1]}, ${v[2]})`;
    case 'decimal': return `Decimal('${v[1]}')`;
    case 'range': return `range(${v[1]}, ${v[2]}${v[3] === 1n ? '' : `, ${v[3]}`})`;
    case 'iter': return `<iterator of ${v[1].length}>`;
    case 'keys': case 'values': case 'items': return `dict_${v[0]}([${v[1].slice(0, 20).map(reprOf).join(', ')}])`;
    case 'list': return `[${v[1].slice(0, 20).map(reprOf).join(', ')}]`;
    case 'tuple': return `(${v[1].slice(0, 20).map(reprOf).join(', ')}${v[1].length === 1 ? ',' : ''})`;
    case 'set': return v[1].length === 0 ? 'set()' : `{${v[1].slice(0, 20).map(reprOf).join(', ')}}`;
    case 'dict': return `{${v[1].slice(0, 20).map(([k, x]) => `${reprOf(k)}: ${reprOf(x)}`).join(', ')}}`;
  }
}
