// One vocabulary for states in both consoles: it lives beside the control API's types.
export { componentLabel, labelText, levelLabel, type Label, type Tone } from '@portico/daemon/display';
