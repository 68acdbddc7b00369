// A key's monthly limit as an operator types it, read the same way by both consoles. Plain
// TypeScript with no Node or DOM types: the terminal console and the web dashboard import it.

export type MonthlyLimitInput = { ok: true; value: number | null } | { ok: false; message: string };

/** Empty means no limit; else a whole number of calls, 0 or more (0 blocks every counted call). Messages fit one 80-column line. */
export function parseMonthlyLimit(text: string): MonthlyLimitInput {
  const t = text.trim();
  if (t === '') return { ok: true, value: null };
  if (!/^\d+$/.test(t)) return { ok: false, message: `monthly limit "${t}" is not a whole number: type e.g. 10000, or leave it empty` };
  if (t.length > 12) return { ok: false, message: `monthly limit ${t} is too large: at most 999999999999, or leave it empty` };
  return { ok: true, value: Number(t) };
}
