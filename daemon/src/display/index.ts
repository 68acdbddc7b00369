// The display layer both consoles import (`@portico/daemon/display`): states, times, durations
// and one-line outcomes, written once so the terminal console and the web dashboard say the
// same thing. No Node or DOM types; it imports only type modules.
export * from './clusters.js';
export * from './counts.js';
export * from './deliveries.js';
export * from './ids.js';
export * from './labels.js';
export * from './outcomes.js';
export * from './time.js';
