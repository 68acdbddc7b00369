import type { Attribute, Block, Body } from '../../hcl/index.js';
import { headerRange, type Diagnostics } from './diagnostics.js';

/** The configuration files as one body, plus the `environment_variables` of every defaults block in order. */
export interface MergedConfig {
  readonly body: Body;
  readonly envDefaults: readonly Attribute[];
}

/** A block being merged: the first occurrence's header, attributes where later files win, children. */
interface Node {
  readonly first: Block;
  readonly attributes: Record<string, Attribute>;
  readonly children: Children;
  /** The file that last merged into this node: a second block with its key in that same file is a duplicate. */
  lastFile: number;
}

interface Child {
  readonly key: string | null;
  file: number;
  item: Block | Node;
}

/** Children in order, with the first child of each key at hand (a 10,000-backend definitions block stays linear). */
class Children {
  readonly list: Child[] = [];
  readonly #byKey = new Map<string, Child>();

  find(key: string | null): Child | undefined {
    return key === null ? undefined : this.#byKey.get(key);
  }

  push(child: Child): void {
    this.list.push(child);
    if (child.key !== null && !this.#byKey.has(child.key)) this.#byKey.set(child.key, child);
  }
}

/** Blocks merged recursively with same-type, same-label blocks of later files. */
const MERGED_IN: Record<string, readonly string[]> = { root: ['server'], server: ['api', 'spa', 'files'] };

/**
 * Merges files in order, as the peer does (../shared/reference/gateway.md, docs/gateway.md):
 * with several files, `server` blocks merge by label, and in them `api`, `spa` and `files`
 * blocks by label; attributes of later files win; `cors` blocks, `endpoint`s (by pattern),
 * `error_handler`s (by their set of labels) and `definitions` blocks (by type and label) of a
 * later file replace earlier ones; `settings` attributes and `environment_variables` keys of
 * later files win. Within one file nothing is replaced, so duplicates there are reported
 * by the checks as they would be with a single file.
 */
export function mergeFiles(bodies: readonly Body[], diags: Diagnostics): MergedConfig {
  const several = bodies.length > 1;
  const servers = new Children();
  let definitions: Node | undefined;
  let settings: Node | undefined;
  const envDefaults: Attribute[] = [];
  bodies.forEach((body, file) => {
    for (const block of body.blocks) {
      switch (block.type) {
        case 'server':
          place(servers, block, 'root', file, several, diags);
          break;
        case 'definitions':
          definitions ??= newNode(block, file);
          mergeInto(definitions, block, file, false, diags);
          break;
        case 'settings':
          settings ??= newNode(block, file);
          Object.assign(settings.attributes, block.body.attributes);
          break;
        case 'defaults': {
          const env = block.body.attributes['environment_variables'];
          if (env) envDefaults.push(env);
          break;
        }
      }
    }
  });
  const blocks = servers.list.map((c) => toBlock(c.item));
  if (definitions) blocks.push(toBlock(definitions));
  if (settings) blocks.push(toBlock(settings));
  const first = bodies[0];
  const range = first ? first.range : { filename: '', start: { line: 1, column: 1, byte: 0 }, end: { line: 1, column: 1, byte: 0 } };
  return { body: { attributes: {}, blocks, range }, envDefaults };
}

function newNode(block: Block, file: number): Node {
  return { first: block, attributes: {}, children: new Children(), lastFile: file };
}

function mergeInto(node: Node, block: Block, file: number, several: boolean, diags: Diagnostics): void {
  Object.assign(node.attributes, block.body.attributes);
  node.lastFile = file;
  for (const child of block.body.blocks) place(node.children, child, node.first.type, file, several, diags);
}

/** Adds `block` to `children`: merged, replacing, or appended, by the rules above. */
function place(children: Children, block: Block, parentType: string, file: number, several: boolean, diags: Diagnostics): void {
  if (several && MERGED_IN[parentType]?.includes(block.type)) {
    const key = `${block.type} ${block.labels[0] ?? ''}`;
    const existing = children.find(key);
    if (!existing) {
      const node = newNode(block, file);
      children.push({ key, file, item: node });
      mergeInto(node, block, file, several, diags);
      return;
    }
    const node = existing.item as Node;
    if (node.lastFile === file) {
      diags.error(`All ${block.type} blocks must have unique labels.`, labelHint(block), headerRange(block));
      return;
    }
    mergeInto(node, block, file, several, diags);
    return;
  }
  const key = replaceKey(block);
  const existing = children.find(key);
  if (existing && existing.file < file) {
    existing.item = block;
    existing.file = file;
    return;
  }
  children.push({ key, file, item: block });
}

function labelHint(block: Block): string {
  const label = block.labels[0];
  return label === undefined
    ? `Another ${block.type} block without a label is in this file; with several configuration files, blocks of one type merge by label, so each needs its own.`
    : `Another ${block.type} block labelled "${label}" is in this file.`;
}

/** What a block replaces in a later file; null for nothing (blocks of the types merged above in a single file). */
function replaceKey(block: Block): string | null {
  switch (block.type) {
    case 'server':
    case 'api':
    case 'spa':
    case 'files':
      return null;
    case 'error_handler':
      return `error_handler ${block.labels.flatMap((l) => l.split(' ')).filter((l) => l !== '').sort().join(' ')}`;
    default:
      return `${block.type} ${block.labels.join(' ')}`;
  }
}

function toBlock(item: Block | Node): Block {
  if (!('first' in item)) return item;
  const { first } = item;
  return {
    type: first.type,
    labels: first.labels,
    range: first.range,
    typeRange: first.typeRange,
    labelRanges: first.labelRanges,
    body: { attributes: item.attributes, blocks: item.children.list.map((c) => toBlock(c.item)), range: first.body.range },
  };
}
