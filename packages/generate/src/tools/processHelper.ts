// The process that starts hermes-generate's tool processes (run with child_process.fork by
// processHelperClient.ts). Why a process of its own: spawn() forks the calling process, and a fork
// costs time in proportion to the caller's memory, on the caller's only thread. In hermes-generate,
// hundreds of prompts in flight make that 5 to 30 ms a command, during which no model reply and no
// pipe is read; this small process forks in about a millisecond, and hermes-generate only exchanges
// messages with it. It runs each request through runProcess, exactly as hermes-generate would.
import { runProcess } from './runProcess.js';
import { killAllGroups, type HelperReply, type HelperRequest } from './processHelperProtocol.js';

const running = new Map<number, AbortController>();
const groups = new Set<number>();

// Once hermes-generate is gone (killed), a reply has nowhere to go: it is dropped, and the
// 'disconnect' below ends this process. The callback keeps a failed send (EPIPE) from becoming an
// 'error' event, whose stack trace would land on the terminal hermes-generate left behind.
const send = (reply: HelperReply): void => {
  if (process.connected) process.send?.(reply, undefined, undefined, () => undefined);
};

process.on('message', (request: HelperRequest) => {
  if (request.type === 'abort') {
    running.get(request.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(request.id, controller);
  let group: number | undefined;
  void runProcess({
    ...request.spec,
    signal: controller.signal,
    onGroup: (pid) => {
      if (group !== undefined) groups.delete(group);
      group = pid;
      if (pid !== undefined) groups.add(pid);
      send({ type: 'group', id: request.id, pid: pid ?? null });
    },
  }).then(({ spawnError, ...outcome }) => {
    running.delete(request.id);
    // An Error does not cross the channel as one: its code, message and path do.
    const error = spawnError === undefined ? undefined : { code: spawnError.code, message: spawnError.message, path: spawnError.path };
    send({ type: 'done', id: request.id, outcome: { ...outcome, ...(error ? { spawnError: error } : {}) } });
  });
});

// hermes-generate has gone (however it ended): nothing it started may outlive it.
process.on('disconnect', () => {
  killAllGroups(groups);
  process.exit(0);
});
