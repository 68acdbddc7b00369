// What the daemon's cluster workers run when PORTICO_GATEWAY_PROCESSES is above 1 (serving-pool.ts forks them).
import { runServingProcess } from './serving-process.js';

runServingProcess();
