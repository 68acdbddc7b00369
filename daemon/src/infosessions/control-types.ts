// Plain data the control API returns for infosessions and API keys; the consoles import these
// through AppRouter, so no Node types here.

export type ApiKeyState = 'active' | 'banned' | 'revoked';

/** An API key as operators see it: never the key itself, only its first characters. */
export interface ApiKeySummary {
  id: string;
  name: string;
  /** First 4 characters and `***`, e.g. `3f9a***`. */
  masked: string;
  state: ApiKeyState;
  /** Counted calls allowed per calendar month (UTC); null: no limit. */
  monthlyLimit: number | null;
  /** Counted calls this calendar month (UTC). */
  requestsThisMonth: number;
  /** ISO times. */
  createdAt: string;
  lastUsedAt: string | null;
  stateChangedAt: string | null;
}

/** The answer to keys.create: the only time the key is ever shown. */
export interface CreatedApiKey {
  key: ApiKeySummary;
  secret: string;
}

export interface SessionBuildingView {
  code: string | null;
  name: string | null;
  room: string | null;
  latitude: number | null;
  longitude: number | null;
  map_url: string | null;
}

/** One session for the consoles: the public record, plus the legacy student text and its CSV line. */
export interface SessionView {
  id: number | string | null;
  employer: string | null;
  date: string | null;
  day: string | null;
  start_time: string | null;
  end_time: string | null;
  description: string | null;
  website: string | null;
  building: SessionBuildingView;
  audience: string[] | null;
  link: string | null;
  students: string | null;
  line: number;
}

export interface SessionPage {
  /** Sessions matching the filter (before paging). */
  total: number;
  offset: number;
  items: SessionView[];
  /** Every audience value in the loaded data, sorted, for filter pickers. */
  audiences: string[];
}

export interface RowProblemView {
  line: number;
  reason: string;
}

export interface CsvFileStatus {
  file: string;
  /** ISO time of the last load that was applied; null when none ever was. */
  loadedAt: string | null;
  rows: number;
  rejected: RowProblemView[];
  warnings: RowProblemView[];
  /** Why the latest attempt to read the file failed (the previous data keeps serving); null when it worked. */
  error: { message: string; at: string } | null;
}

export interface InfosessionsSourceStatus {
  sessions: CsvFileStatus;
  buildings: CsvFileStatus;
}
