// The ways editors save a file, for the tests of everything that watches files: each must be one reload.
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';

export type EditorSave = (file: string, text: string) => void;

export const EDITOR_SAVES: Readonly<Record<string, EditorSave>> = {
  'write in place': (file, text) => writeFileSync(file, text),
  'write a temporary file and rename it over (atomic save)': (file, text) => {
    writeFileSync(`${file}.tmp-${process.pid}`, text);
    renameSync(`${file}.tmp-${process.pid}`, file);
  },
  'delete, then create': (file, text) => {
    unlinkSync(file);
    writeFileSync(file, text);
  },
  'rename to a backup, create, delete the backup (vim)': (file, text) => {
    renameSync(file, `${file}~`);
    writeFileSync(file, text);
    unlinkSync(`${file}~`);
  },
};

export const EDITOR_SAVE_NAMES = Object.keys(EDITOR_SAVES);
