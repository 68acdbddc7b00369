import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Box, useApp, useInput } from 'ink';
import type { ControlSource } from '../control/control-source.js';
import { tooSmallLines } from '../format/too-small-text.js';
import { GLOBAL_SCOPE, KeyRegistry, keyLabel, keyNames, type KeyScopeState } from '../keys/key-registry.js';
import { KeyRegistryContext, useKeyRegistry, useKeyScope, useKeyScopes } from '../keys/use-keys.js';
import { actionsOff, screenClock } from '../live/freshness.js';
import type { LiveStore } from '../live/live-store.js';
import { VIEWS } from '../views/view-registry.js';
import type { ViewDefinition, ViewFocus } from '../views/view.js';
import { editCommand } from './command-edit.js';
import { CommandLine } from './command-line.js';
import { runCommand } from './commands.js';
import { Header, TabBar } from './header.js';
import { HelpPanel } from './help-panel.js';
import { HintLine } from './hint-line.js';
import { Line } from './line.js';
import { RejectedSaveLine } from './rejected-save-line.js';
import { ThemeProvider } from './theme.js';
import { useNow } from './use-now.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface AppProps {
  store: LiveStore;
  source: ControlSource;
  views?: readonly ViewDefinition[];
  color?: boolean;
  /** How long a message (e.g. an unknown command) stays on the bottom line. */
  flashMs?: number;
}

type Mode = 'normal' | 'help';

const MIN_COLUMNS = 20;
const MIN_ROWS = 6;
/** The view the rejected-save line leads to (`!`). */
const CONFIG_VIEW = 'config';
/** `1`-`9` go to the views in the tab bar's order. */
const VIEW_DIGITS: readonly string[] = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

export function App({ color = true, ...props }: AppProps): ReactNode {
  const registry = useMemo(() => new KeyRegistry(), []);
  return (
    <ThemeProvider value={{ color }}>
      <KeyRegistryContext.Provider value={registry}>
        <Shell {...props} />
      </KeyRegistryContext.Provider>
    </ThemeProvider>
  );
}

/** Header, tabs, the current view (or the help), and the hint / command line, filling the terminal. */
function Shell({ store, source, views = VIEWS, flashMs = 4_000 }: Omit<AppProps, 'color'>): ReactNode {
  const { exit } = useApp();
  const registry = useKeyRegistry();
  const scopes = useKeyScopes();
  const { columns, rows } = useTerminalSize();
  const live = useSyncExternalStore(store.subscribe, store.getState);
  const nowMs = useNow(1_000);
  // While the link is down the screen is a snapshot: views count on the clock stopped at that moment.
  const viewNow = screenClock(live, nowMs);
  const off = actionsOff(live);
  const rejected = live.rejectedReload;
  const hasConfigView = views.some((v) => v.id === CONFIG_VIEW);
  const [viewId, setViewId] = useState(views[0]?.id ?? '');
  // One view asking another to show an item (the Jobs view's `d` opens the job's delivery).
  const [focus, setFocus] = useState<(ViewFocus & { view: string }) | null>(null);
  const openView = (id: string, target?: string): void => {
    if (!views.some((v) => v.id === id)) return;
    setMode('normal');
    setViewId(id);
    if (target !== undefined) setFocus((f) => ({ view: id, target, seq: (f?.seq ?? 0) + 1 }));
  };
  const [mode, setMode] = useState<Mode>('normal');
  const [flash, setFlash] = useState<string | null>(null);
  // The `:` prompt's text, null when closed. Mirrored in a ref so the keys typed after `:` in the
  // same input chunk (typed ahead, pasted, tmux send-keys) already land in the prompt.
  const [command, setCommandState] = useState<string | null>(null);
  const commandRef = useRef<string | null>(null);
  const setCommand = (text: string | null): void => {
    commandRef.current = text;
    setCommandState(text);
  };

  useEffect(() => {
    if (!flash) return;
    const timer = setTimeout(() => setFlash(null), flashMs);
    return () => clearTimeout(timer);
  }, [flash, flashMs]);

  const cycle = (step: number): void => {
    const i = views.findIndex((v) => v.id === viewId);
    const next = views[(i + step + views.length) % views.length];
    if (next) setViewId(next.id);
  };

  useKeyScope(GLOBAL_SCOPE, 'Global', [
    { keys: ['?'], description: 'show or hide this help', hint: 'help', run: () => setMode((m) => (m === 'help' ? 'normal' : 'help')) },
    { keys: [':'], description: 'switch view: type its name and Enter (Tab completes)', hint: 'command', run: () => setCommand('') },
    { keys: ['tab'], description: 'next view', run: () => cycle(1) },
    { keys: ['shift+tab'], description: 'previous view', run: () => cycle(-1) },
    ...(views.length > 1
      ? [{ keys: VIEW_DIGITS.slice(0, views.length), label: `1-${Math.min(views.length, 9)}`, description: 'go to the view at that place in the tab bar', run: (key: string) => setViewId(views[Number(key) - 1]?.id ?? viewId) }]
      : []),
    { keys: ['r'], description: 're-read the daemon status now', run: () => void store.refresh() },
    { keys: ['q', 'ctrl+c'], label: 'q', description: 'quit (also Ctrl+C)', hint: 'quit', run: () => exit() },
    ...(rejected && hasConfigView
      ? [{ keys: ['!'], description: 'open the Config view: the last config save was rejected', run: () => openView(CONFIG_VIEW) }]
      : []),
  ]);

  // One key: to the `:` prompt when open, else the key registry (which a view's open prompt may capture).
  const onKey = (name: string): void => {
    const text = commandRef.current;
    if (text === null) {
      const binding = registry.capturing ? undefined : registry.resolve(name);
      if (binding?.daemonAction && off) setFlash(`${keyLabel(binding)}${binding.hint ? ` ${binding.hint}` : ''}: ${off.long}`);
      else registry.press(name);
      return;
    }
    const edit = editCommand(views, text, name);
    if (edit.kind === 'edit') setCommand(edit.text);
    else setCommand(null);
    if (edit.kind === 'submit') submit(edit.text);
  };
  const onKeyRef = useRef(onKey);
  onKeyRef.current = onKey;
  // Keys that arrive together (key repeat over SSH, a paste, tmux send-keys) are handled one per
  // render, so each sees the screen the one before it made: `jjj` moves three rows, not one. (A
  // timer alone is not enough: on a busy machine the render could come after it, and a key
  // would then act on the state its predecessor had already left.)
  const pending = useRef<string[]>([]);
  const [keyTurn, setKeyTurn] = useState(0);
  const pump = (): void => {
    const name = pending.current.shift();
    if (name === undefined) return;
    onKeyRef.current(name);
    if (pending.current.length > 0) setKeyTurn((n) => n + 1);
  };
  useEffect(() => {
    if (pending.current.length > 0) pump();
    // Runs after the render that the previous key caused.
  }, [keyTurn]);
  useInput((input, key) => {
    setFlash(null);
    const idle = pending.current.length === 0;
    pending.current.push(...keyNames(input, key));
    if (idle) pump();
  });

  const submit = (text: string): void => {
    const outcome = runCommand(views, text);
    if (outcome.kind !== 'none') setMode(outcome.kind === 'help' ? 'help' : 'normal');
    if (outcome.kind === 'view') setViewId(outcome.view.id);
    else if (outcome.kind === 'quit') exit();
    else if (outcome.kind === 'error') setFlash(outcome.message);
  };

  if (columns < MIN_COLUMNS || rows < MIN_ROWS) {
    return (
      <Box flexDirection="column" width={columns} height={Math.max(1, rows)}>
        {tooSmallLines(columns, rows, { columns: MIN_COLUMNS, rows: MIN_ROWS }).map((text, i) => (
          <Line key={i} width={columns} text={text} />
        ))}
      </Box>
    );
  }

  const bodyHeight = rows - 3 - (rejected ? 1 : 0);
  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Header live={live} url={source.endpoints.display} nowMs={nowMs} />
      <TabBar views={views} currentId={viewId} width={columns} />
      {rejected ? <RejectedSaveLine record={rejected} nowMs={nowMs} width={columns} keyHint={hasConfigView && viewId !== CONFIG_VIEW ? '! open Config' : null} /> : null}
      <Box flexDirection="column" width={columns} height={bodyHeight} overflow="hidden">
        {views.map((view) => {
          const current = view.id === viewId;
          const keyState: KeyScopeState = !current ? 'off' : mode === 'help' ? 'listed' : 'active';
          const visible = current && mode !== 'help';
          return (
            <Box key={view.id} display={visible ? 'flex' : 'none'} flexDirection="column" width={columns} height={bodyHeight}>
              <view.Component live={live} source={source} nowMs={viewNow} width={columns} height={bodyHeight} visible={visible} keyState={keyState} openView={openView} focus={focus?.view === view.id ? focus : null} />
            </Box>
          );
        })}
        {mode === 'help' ? <HelpPanel scopes={scopes} views={views} width={columns} height={bodyHeight} onClose={() => setMode('normal')} actionsOff={off?.short ?? null} /> : null}
      </Box>
      {command !== null ? (
        <CommandLine views={views} text={command} width={columns} />
      ) : flash ? (
        <Line width={columns} text={` ${flash}`} />
      ) : (
        <HintLine scopes={scopes} width={columns} actionsOff={off?.short ?? null} />
      )}
    </Box>
  );
}
