import type { Label } from '../status/labels';

/** Glyph + word, tinted by tone; the glyph is decoration for screen readers, the word is the meaning. */
export function StateBadge({ label }: { label: Label }) {
  return (
    <span className={`badge tone-${label.tone}`}>
      <span className="badge-glyph" aria-hidden="true">
        {label.glyph}
      </span>
      {label.word}
    </span>
  );
}
