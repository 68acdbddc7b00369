import { HclNumber } from '../number.js';
import { HclSeq, type HclValue } from '../values.js';
import { FunctionArgError, type HclFunction } from './define.js';

const str = (v: HclValue): string => v as string;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Offsets and lengths count grapheme clusters, as upstream's substr does. */
function graphemes(s: string): string[] {
  // ASCII has one cluster per character; skip the segmenter on the common path.
  if (/^[\x00-\x7f]*$/.test(s) && !s.includes('\r\n')) return s.split('');
  return Array.from(segmenter.segment(s), (x) => x.segment);
}

function wholeNumber(v: HclValue, argIndex: number): number {
  const n = (v as HclNumber).toBigInt();
  if (n === undefined) throw new FunctionArgError(argIndex, 'value must be a whole number');
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) throw new FunctionArgError(argIndex, 'value is out of range');
  return Number(n);
}

export const stringFunctions: Record<string, HclFunction> = {
  to_lower: { params: [{ name: 'str', type: 'string' }], impl: ([s]) => str(s as HclValue).toLowerCase() },
  to_upper: { params: [{ name: 'str', type: 'string' }], impl: ([s]) => str(s as HclValue).toUpperCase() },
  split: {
    params: [{ name: 'separator', type: 'string' }, { name: 'str', type: 'string' }],
    impl: ([sep, s]) => {
      const text = str(s as HclValue);
      const parts = str(sep as HclValue) === '' ? [...text] : text.split(str(sep as HclValue));
      return new HclSeq('list', parts, 'string');
    },
  },
  substr: {
    params: [{ name: 'str', type: 'string' }, { name: 'offset', type: 'number' }, { name: 'length', type: 'number' }],
    impl: ([s, off, len]) => {
      const chars = graphemes(str(s as HclValue));
      let offset = wholeNumber(off as HclValue, 1);
      const length = wholeNumber(len as HclValue, 2);
      if (offset < 0) offset = Math.max(chars.length + offset, 0);
      if (offset >= chars.length) return '';
      return (length < 0 ? chars.slice(offset) : chars.slice(offset, offset + length)).join('');
    },
  },
  url_encode: {
    params: [{ name: 's', type: 'string' }],
    // RFC 3986: everything but the unreserved characters is percent-encoded.
    impl: ([s]) => encodeURIComponent(str(s as HclValue)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  },
  relative_url: {
    params: [{ name: 's', type: 'string' }],
    impl: ([s]) => {
      const input = str(s as HclValue);
      if (!/^(https?:\/\/|\/)/.test(input)) throw new FunctionArgError(0, `invalid url given: "${input}"`);
      let url: URL;
      try {
        url = new URL(input, 'http://relative.invalid');
      } catch {
        throw new FunctionArgError(0, `invalid url given: "${input}"`);
      }
      return `${url.pathname || '/'}${url.search}${url.hash}`;
    },
  },
  unixtime: { params: [], impl: () => HclNumber.fromJs(Math.floor(Date.now() / 1000)) },
};
