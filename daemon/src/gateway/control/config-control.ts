import type { LoginStatus } from '../access/access-check.js';
import type { ConfigManager } from '../reload/config-manager.js';
import type { ActiveConfigFile, ConfigStatus, ReloadRecord, RoutesView, ValidationResult } from './control-types.js';
import { routesView } from './routes-view.js';
import { redactSource } from './redact-source.js';
import { UpdateFeed } from './update-feed.js';

/** What the control API reaches for `config` (set by the gateway area). */
export interface ConfigControl {
  status(): ConfigStatus;
  history(): ReloadRecord[];
  validate(input: { text: string; file?: string | undefined }): Promise<ValidationResult>;
  reload(): Promise<ReloadRecord>;
  /** The serving configuration's source per file, secrets replaced by `"***"`. */
  active(): ActiveConfigFile[];
  /** The serving configuration's routes with the access controls guarding each (no secrets). */
  routes(): RoutesView;
  /** Every reload record after `lastId` (or from now on), until `signal` aborts. */
  changes(lastId: string | null | undefined, signal: AbortSignal | undefined): AsyncIterable<ReloadRecord>;
}

export function configControl(manager: ConfigManager, loginStatus: () => readonly LoginStatus[] = () => []): ConfigControl {
  const feed = new UpdateFeed<ReloadRecord>(50);
  manager.onRecord((record) => feed.push(record));
  return {
    status: () => manager.status(),
    history: () => manager.history(),
    validate: ({ text, file }) => manager.validate(text, file),
    reload: () => manager.reload('control'),
    active: () =>
      manager.activeSources().map(({ path, sha256, text }): ActiveConfigFile => {
        if (text === null) return { path, sha256, text: null, note: 'the file changed while it was being loaded; the next reload shows it', redacted: 0 };
        const shown = redactSource(text, path);
        if (shown.text === null) return { path, sha256, text: null, note: 'not shown: the applied text does not parse again', redacted: 0 };
        return { path, sha256, text: shown.text, note: null, redacted: shown.redacted };
      }),
    routes: () => routesView(manager.config, loginStatus()),
    changes: (lastId, signal) => feed.stream(lastId, signal),
  };
}
