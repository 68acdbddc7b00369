/**
 * Runs `task` on request, but never twice at once: requests that arrive while it runs are
 * folded into one more run afterwards. A burst of daemon events costs at most two refetches.
 */
export function coalescedTask(task: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  return function requestRun() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      try {
        do {
          again = false;
          await task().catch(() => undefined);
        } while (again);
      } finally {
        running = false;
      }
    })();
  };
}
