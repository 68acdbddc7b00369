import { createContext, useContext, type ReactNode } from 'react';
import { Text } from 'ink';
import type { Tone } from '../format/state-label.js';

export interface Theme {
  /** False under NO_COLOR: meaning is carried by glyphs and words alone. */
  color: boolean;
}

const ThemeContext = createContext<Theme>({ color: true });

export const ThemeProvider = ThemeContext.Provider;

export function useTheme(): Theme {
  return useContext(ThemeContext);
}

const TONE_COLORS: Record<Tone, string | undefined> = {
  good: 'green',
  busy: 'yellow',
  idle: 'gray',
  bad: 'red',
  plain: undefined,
};

/** Inline text in a tone's colour, or plain when colour is off. */
export function Tinted({ tone, bold, children }: { tone: Tone; bold?: boolean; children: ReactNode }): ReactNode {
  const { color } = useTheme();
  const c = color ? TONE_COLORS[tone] : undefined;
  return (
    <Text {...(c ? { color: c } : {})} {...(bold ? { bold } : {})}>
      {children}
    </Text>
  );
}
