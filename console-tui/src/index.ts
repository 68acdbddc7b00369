export { runTui, type RunTuiOptions } from './run-tui.js';
export { createControlClient, type ControlClientOptions } from './control/control-client.js';
export type { ControlSource, LinkState } from './control/control-source.js';
