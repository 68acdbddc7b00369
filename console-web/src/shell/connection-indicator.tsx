import type { LinkState } from '../live/live-state';

// Short, so every view's name keeps its place in the top bar; the notice under the bar says the rest.
const LINK_TEXT: Record<LinkState, { glyph: string; text: string; title?: string }> = {
  connecting: { glyph: '◌', text: 'Connecting…' },
  live: { glyph: '●', text: 'Live' },
  disconnected: { glyph: '○', text: 'Disconnected', title: 'The link to the daemon dropped; the dashboard reconnects by itself.' },
};

/** Announced politely to screen readers whenever the link changes. */
export function ConnectionIndicator({ link }: { link: LinkState }) {
  const { glyph, text, title } = LINK_TEXT[link];
  return (
    <p className={`connection connection-${link}`} role="status" aria-live="polite" data-testid="connection" title={title}>
      <span className="connection-glyph" aria-hidden="true">
        {glyph}
      </span>
      {text}
    </p>
  );
}
