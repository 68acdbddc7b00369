import { afterEach, beforeAll, beforeEach } from 'vitest';
import { EventBus } from '../../control/event-bus.js';
import { appCaller, testServices } from '../../main/testing/control-server.js';
import { afterEachFile } from '../../testing/after-each-test.js';
import type { TestDatabase } from '../../store/testing/databases.js';
import type { Store } from '../../store/types.js';
import type { CallbackWorker, CallbackWorkerOptions } from '../callback-worker.js';
import { INGEST_SERVICE } from '../control-router.js';
import { IngestControl } from '../control-service.js';
import { JobStore } from '../job-store.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from './https-receiver.js';
import { testWorker } from './ingest-fixture.js';
import { outsideTest, storePerTest } from './store-per-test.js';

/** Where a rig's clock stands when each test starts. */
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

// One test CA per test file (openssl is slow), made by the first rig to run and removed after the file.
let fileTls: TestTls | null = null;
afterEachFile(() => {
  fileTls?.dispose();
  fileTls = null;
});

export type ControlCaller = ReturnType<typeof appCaller>;

/** Everything a callback delivery test needs, new for each test. */
export interface CallbackRig {
  /** The test CA: the receiver's certificate chains to it, and workers trust `tls.caFile`. */
  readonly tls: TestTls;
  readonly database: TestDatabase;
  /** Migrated to the ingest schema. */
  readonly store: Store;
  /** An HTTPS receiver on 127.0.0.1 that records every callback; answers 200 unless the test sets `reply`. */
  readonly receiver: TestReceiver;
  /** Started on `store`, attempting only on `runOnce`; there is one only with the `worker` option. */
  readonly worker: CallbackWorker;
  /** The control API (deliveries.*, jobs.*) over `store`, on the rig's clock, as the consoles call it. */
  readonly control: ControlCaller;
  /** Where `control` announces delivery state changes. */
  readonly events: EventBus;
  /** The clock of the worker and of `control`: T0 when each test starts; tests move it. */
  now: number;
}

export interface CallbackRigOptions {
  /**
   * Starts a worker before each test: testWorker's on the rig's clock, or with these options over
   * those (a function is called before each test). Without it, tests make their own workers.
   */
  worker?: true | Partial<CallbackWorkerOptions> | (() => Partial<CallbackWorkerOptions>);
}

/** For each test of the calling suite: a migrated store on a new database from `factory`, a receiver, and (on request) a started worker; all gone after the test. */
export function callbackRigPerTest(factory: () => TestDatabase, { worker: workerOptions }: CallbackRigOptions = {}): CallbackRig {
  const db = storePerTest(factory);
  let receiver: TestReceiver | null = null;
  let worker: CallbackWorker | null = null;
  let events: EventBus | null = null;
  let control: ControlCaller | null = null;
  const rig: CallbackRig = {
    get tls() {
      return fileTls ?? outsideTest('callbackRigPerTest');
    },
    get database() {
      return db.database;
    },
    get store() {
      return db.store;
    },
    get receiver() {
      return receiver ?? outsideTest('callbackRigPerTest');
    },
    get worker() {
      if (!workerOptions) throw new Error('callbackRigPerTest: this rig starts no worker; pass the worker option, or make one with testWorker');
      return worker ?? outsideTest('callbackRigPerTest');
    },
    get control() {
      return control ?? outsideTest('callbackRigPerTest');
    },
    get events() {
      return events ?? outsideTest('callbackRigPerTest');
    },
    now: T0,
  };
  beforeAll(() => {
    fileTls ??= makeTestTls();
  });
  // Registered after storePerTest's hooks: runs after the store opens, and stops the worker before it closes.
  beforeEach(async () => {
    rig.now = T0;
    receiver = await startReceiver(rig.tls);
    events = new EventBus('test');
    control = controlCaller(rig, events);
    if (workerOptions) {
      const options = workerOptions === true ? {} : typeof workerOptions === 'function' ? workerOptions() : workerOptions;
      worker = testWorker(db.store, rig.tls.caFile, { clock: () => rig.now, ...options });
      await worker.start();
    }
  });
  afterEach(async () => {
    await worker?.stop();
    await receiver?.close();
    worker = null;
    receiver = null;
    control = null;
    events = null;
  });
  return rig;
}

/** The ingest control service as the daemon wires it, over the rig's store and clock. */
function controlCaller(rig: CallbackRig, events: EventBus): ControlCaller {
  const control = new IngestControl(
    () => rig.store,
    () => new JobStore(rig.store),
    (message, details) => events.publish({ type: 'delivery.state', message, ...(details ? { details } : {}) }),
    () => rig.now,
  );
  return appCaller(testServices(events).provide(INGEST_SERVICE, control));
}
