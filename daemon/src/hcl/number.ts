/**
 * Arbitrary-precision decimal numbers: value = coef * 10^exp, or ±infinity.
 *
 * Upstream HCL (go-cty) uses 512-bit binary big floats. A decimal representation gives
 * the same printed results for everything a configuration realistically does (exact
 * integers of any size, exact sums/products of decimal literals, `1e21` printing as
 * `1000000000000000000000`); only non-terminating quotients differ in their last digits.
 */
import { PorticoError } from '../core/errors.js';

export class HclNumber {
  private constructor(
    readonly coef: bigint,
    readonly exp: number,
    /** 0 for finite numbers, 1 / -1 for ±infinity (what upstream gives for `1/0`). */
    readonly inf: 0 | 1 | -1,
  ) {}

  static readonly ZERO = new HclNumber(0n, 0, 0);
  static readonly POS_INF = new HclNumber(0n, 0, 1);
  static readonly NEG_INF = new HclNumber(0n, 0, -1);

  static of(coef: bigint, exp: number): HclNumber {
    if (coef === 0n) return HclNumber.ZERO;
    // Normalised form (no trailing zeros) keeps equality and integer checks cheap.
    while (coef % 10n === 0n) {
      coef /= 10n;
      exp += 1;
    }
    if (Math.abs(exp) > MAX_EXPONENT) throw new NumberRangeError();
    return new HclNumber(coef, exp, 0);
  }

  static fromJs(n: number): HclNumber {
    if (Number.isNaN(n)) throw new NumberRangeError('NaN is not a number in HCL');
    if (n === Infinity) return HclNumber.POS_INF;
    if (n === -Infinity) return HclNumber.NEG_INF;
    if (Number.isSafeInteger(n)) return HclNumber.of(BigInt(n), 0);
    // The shortest round-tripping decimal is what the user most likely meant.
    const parsed = HclNumber.parse(String(n));
    if (!parsed) throw new NumberRangeError();
    return parsed;
  }

  static fromBigInt(n: bigint): HclNumber {
    return HclNumber.of(n, 0);
  }

  /** Parses a decimal: optional sign, digits, optional fraction, optional exponent. Returns undefined when invalid. */
  static parse(text: string): HclNumber | undefined {
    // Most literals are small integers: no regular expression needed for them.
    if (text.length < 16 && SMALL_INTEGER.test(text)) return HclNumber.of(BigInt(text), 0);
    const m = NUMBER_RE.exec(text);
    if (!m) return undefined;
    const [, sign, int, frac = '', expText] = m;
    const digits = (int ?? '') + frac;
    if (digits.length === 0) return undefined;
    const exp = (expText ? Number(expText) : 0) - frac.length;
    if (!Number.isFinite(exp) || Math.abs(exp) > MAX_EXPONENT + digits.length) return undefined;
    try {
      const coef = BigInt(digits);
      return HclNumber.of(sign === '-' ? -coef : coef, exp);
    } catch {
      return undefined;
    }
  }

  isInteger(): boolean {
    return this.inf === 0 && (this.exp >= 0 || this.coef === 0n);
  }

  isZero(): boolean {
    return this.inf === 0 && this.coef === 0n;
  }

  sign(): number {
    if (this.inf !== 0) return this.inf;
    return this.coef > 0n ? 1 : this.coef < 0n ? -1 : 0;
  }

  /** Exact integer value, for indexes and substr offsets; undefined unless an integer. */
  toBigInt(): bigint | undefined {
    if (!this.isInteger()) return undefined;
    return this.coef * 10n ** BigInt(this.exp);
  }

  toJs(): number {
    if (this.inf !== 0) return this.inf * Infinity;
    if (this.exp === 0) return Number(this.coef);
    return Number(`${this.coef}e${this.exp}`);
  }

  /** Plain decimal text, never exponent notation (upstream's `Text('f', -1)`). */
  toString(): string {
    if (this.inf === 1) return '+Inf';
    if (this.inf === -1) return '-Inf';
    const neg = this.coef < 0n;
    const digits = (neg ? -this.coef : this.coef).toString();
    let out: string;
    if (this.exp >= 0) out = digits + '0'.repeat(this.exp);
    else {
      const point = digits.length + this.exp;
      out = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${'0'.repeat(-point)}${digits}`;
    }
    return neg ? `-${out}` : out;
  }

  equals(other: HclNumber): boolean {
    return this.inf === other.inf && this.coef === other.coef && this.exp === other.exp;
  }

  compare(other: HclNumber): number {
    if (this.inf !== 0 && other.inf !== 0) return Math.sign(this.inf - other.inf);
    if (this.inf !== 0) return this.inf;
    if (other.inf !== 0) return -other.inf;
    const [x, y] = align(this, other);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  add(other: HclNumber): HclNumber {
    if (this.inf !== 0 || other.inf !== 0) {
      if (this.inf !== 0 && other.inf !== 0 && this.inf !== other.inf) throw new NumberRangeError("can't add infinities of opposite signs");
      return this.inf !== 0 ? this : other;
    }
    const [x, y, exp] = align(this, other);
    return HclNumber.of(x + y, exp);
  }

  negate(): HclNumber {
    if (this.inf !== 0) return this.inf === 1 ? HclNumber.NEG_INF : HclNumber.POS_INF;
    return this.coef === 0n ? this : new HclNumber(-this.coef, this.exp, 0);
  }

  subtract(other: HclNumber): HclNumber {
    return this.add(other.negate());
  }

  multiply(other: HclNumber): HclNumber {
    if (this.inf !== 0 || other.inf !== 0) {
      const s = this.sign() * other.sign();
      if (s === 0) throw new NumberRangeError("can't multiply zero by infinity");
      return s > 0 ? HclNumber.POS_INF : HclNumber.NEG_INF;
    }
    return HclNumber.of(this.coef * other.coef, this.exp + other.exp);
  }

  divide(other: HclNumber): HclNumber {
    if ((this.isZero() && other.isZero()) || (this.inf !== 0 && other.inf !== 0)) {
      throw new NumberRangeError("can't divide zero by zero or infinity by infinity");
    }
    if (other.isZero() || this.inf !== 0) {
      const s = this.sign() * (other.isZero() ? 1 : other.sign());
      return s >= 0 ? HclNumber.POS_INF : HclNumber.NEG_INF;
    }
    if (other.inf !== 0) return HclNumber.ZERO;
    // Scale the dividend so the quotient carries DIVISION_DIGITS significant digits, then round half to even.
    const shift = DIVISION_DIGITS + digitCount(other.coef) - digitCount(this.coef) + 1;
    const scaled = shift > 0 ? this.coef * 10n ** BigInt(shift) : this.coef / 10n ** BigInt(-shift);
    let q = scaled / other.coef;
    const r = scaled % other.coef;
    const twice = (r < 0n ? -r : r) * 2n;
    const divisor = other.coef < 0n ? -other.coef : other.coef;
    if (twice > divisor || (twice === divisor && q % 2n !== 0n)) q += (scaled < 0n) !== (other.coef < 0n) ? -1n : 1n;
    return HclNumber.of(q, this.exp - other.exp - shift);
  }

  /** Remainder with the sign of the dividend (upstream truncates the quotient). */
  modulo(other: HclNumber): HclNumber {
    if (other.isZero() || this.inf !== 0) throw new NumberRangeError("can't use modulo with zero and infinity");
    if (other.inf !== 0) return this;
    const [x, y, exp] = align(this, other);
    return HclNumber.of(x % y, exp);
  }
}

/** Arithmetic or a literal left the supported range; callers turn it into a diagnostic. */
export class NumberRangeError extends PorticoError {
  override name = 'NumberRangeError';
  constructor(message = 'number is out of the supported range') {
    super('hcl_number_range', message, { category: 'invalid' });
  }
}

/** Bounds exponents so no literal like `1e999999999` can make printing or arithmetic hang. */
const MAX_EXPONENT = 100_000;
/** Roughly the 512 bits of precision upstream uses. */
const DIVISION_DIGITS = 154;
const SMALL_INTEGER = /^\d+$/;
const NUMBER_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

function align(a: HclNumber, b: HclNumber): [bigint, bigint, number] {
  if (a.exp === b.exp) return [a.coef, b.coef, a.exp];
  if (a.exp > b.exp) return [a.coef * 10n ** BigInt(a.exp - b.exp), b.coef, b.exp];
  return [a.coef, b.coef * 10n ** BigInt(b.exp - a.exp), a.exp];
}
