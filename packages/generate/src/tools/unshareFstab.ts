// The fstab an unshare sandbox (sandbox.ts) mounts with `mount -a` as its first step, and the /etc and
// /dev it mounts over the host's. unshare keeps the host's root, so what bwrap builds from nothing is
// built here in a directory of hermes-generate's own (`dir`), once per sandbox: an /etc of empty
// stand-ins for the shown entries (sandboxFilesystem.ts: ETC_ENTRIES) with a passwd and group of
// its own, and a /dev of stand-ins for DEV_NODES, DEV_LINKS and the pts and shm directories. The
// fstab binds each host entry onto its stand-in, a devpts of its own and an empty tmpfs for shm, then
// binds the two trees read-only over /etc and /dev: nothing else of the host's /etc or /dev is
// reachable. Then it covers what is not shown with empty tmpfs (the directory itself among them,
// under /tmp), binds the system directories read-only and hides the secret files.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_LINKS, DEV_NODES, etcDirectories, sandboxAccounts, type SandboxFilesystem } from './sandboxFilesystem.js';

/**
 * The source name of the sandbox's tmpfs mounts. Not "tmpfs": mount -a skips a line whose source and
 * target are mounted already, and the host's /tmp or /dev/shm is often a tmpfs at that very place.
 */
const TMPFS_SOURCE = 'hermes-sandbox';

/** The fstab's text; `dir` (empty, of this process only) receives the /etc and /dev trees; `uid` is the tools' uid inside. */
export function unshareFstab(shown: SandboxFilesystem, uid: number, dir: string): string {
  const etc = join(dir, 'etc');
  const dev = join(dir, 'dev');
  buildEtc(shown, uid, dir);
  buildDev(dev);
  const lines = [
    // Before the covers: a source may lie under /run (a resolv.conf of systemd-resolved), the trees under /tmp.
    ...shown.etc.map((entry) => `${fstabPath(entry.source)} ${fstabPath(join(dir, entry.path))} none bind,ro 0 0`),
    `${fstabPath(etc)} /etc none rbind,ro 0 0`,
    ...DEV_NODES.map((node) => `/dev/${node} ${fstabPath(join(dev, node))} none bind 0 0`),
    `devpts ${fstabPath(join(dev, 'pts'))} devpts newinstance,ptmxmode=0666,mode=620 0 0`,
    // The host's /dev/shm is shared memory of every user's programs: the tool gets its own.
    `${TMPFS_SOURCE} ${fstabPath(join(dev, 'shm'))} tmpfs mode=1777,nosuid,nodev 0 0`,
    `${fstabPath(dev)} /dev none rbind,ro 0 0`,
    ...shown.empty.map(
      (empty) => `${TMPFS_SOURCE} ${fstabPath(empty)} tmpfs mode=${empty === '/tmp' || empty === '/var/tmp' ? '1777' : '755'},X-mount.mkdir 0 0`,
    ),
    ...shown.system.map((system) => `${fstabPath(system)} ${fstabPath(system)} none rbind,ro 0 0`),
    // The sandbox's /dev/null, a device: bind mounts keep the device usable, and an empty one is all it reads.
    ...shown.hidden.map((file) => `/dev/null ${fstabPath(file)} none bind,ro 0 0`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Stand-ins the host's entries are bound onto, and the sandbox's own passwd and group; readable by the sandbox user. */
function buildEtc(shown: SandboxFilesystem, uid: number, dir: string): void {
  for (const etcDir of etcDirectories(shown.etc)) makeDirectory(join(dir, etcDir));
  for (const entry of shown.etc) {
    if (entry.directory) makeDirectory(join(dir, entry.path));
    else makeFile(join(dir, entry.path), '');
  }
  const { passwd, group } = sandboxAccounts(uid);
  makeFile(join(dir, 'etc', 'passwd'), passwd);
  makeFile(join(dir, 'etc', 'group'), group);
}

function buildDev(dev: string): void {
  makeDirectory(dev);
  for (const node of DEV_NODES) makeFile(join(dev, node), '');
  for (const link of DEV_LINKS) symlinkSync(link.target, join(dev, link.name));
  makeDirectory(join(dev, 'pts'));
  makeDirectory(join(dev, 'shm'));
}

// Modes set outright: the umask of hermes-generate must not make them unreadable to the sandbox user.
function makeDirectory(path: string): void {
  mkdirSync(path);
  chmodSync(path, 0o755);
}

function makeFile(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o444);
}

/** fstab fields are split on white space: octal escapes, as fstab(5) says. */
export function fstabPath(path: string): string {
  return path.replace(/[\s\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}
