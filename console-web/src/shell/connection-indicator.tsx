import type { LinkState } from '../live/live-state';

const LINK_TEXT: Record<LinkState, { glyph: string; text: string }> = {
  connecting: { glyph: '◌', text: 'Connecting…' },
  live: { glyph: '●', text: 'Live' },
  disconnected: { glyph: '○', text: 'Disconnected — reconnecting…' },
};

/** Announced politely to screen readers whenever the link changes. */
export function ConnectionIndicator({ link }: { link: LinkState }) {
  const { glyph, text } = LINK_TEXT[link];
  return (
    <p className={`connection connection-${link}`} role="status" aria-live="polite" data-testid="connection">
      <span className="connection-glyph" aria-hidden="true">
        {glyph}
      </span>
      {text}
    </p>
  );
}
