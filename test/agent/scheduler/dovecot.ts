import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../fakes/http.js';

/**
 * A real IMAP server for the email watcher's tests: Debian's dovecot, started in the foreground
 * with a throwaway config in a temp folder (its own base_dir, state_dir and log), listening on
 * 127.0.0.1 on a free port, one passwd-file user whose maildir is in the folder. As root, dovecot
 * runs its login and mail processes as its own system users (dovenull, dovecot); as anyone
 * else, everything runs as that user.
 */

export const DOVECOT = '/usr/sbin/dovecot';

/** Why dovecot cannot be used here, or undefined when it can. */
export function dovecotUnavailable(): string | undefined {
  if (!existsSync(DOVECOT)) return `${DOVECOT} is not installed (apt-get install dovecot-imapd)`;
  if (process.getuid?.() === 0 && !existsSync('/etc/passwd')) return 'no /etc/passwd';
  return undefined;
}

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  /** Put a message into the user's INBOX (maildir `new/`). */
  drop(raw: string): void;
  log(): string;
  stop(): Promise<void>;
}

function passwdEntry(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startDovecot(dir: string): Promise<Dovecot> {
  const port = await freePort();
  const root = process.getuid?.() === 0;
  const me = userInfo();
  const mailUser = root ? passwdEntry('dovecot') : { uid: me.uid, gid: me.gid };
  if (!mailUser) throw new Error('dovecot: no "dovecot" system user to run mail processes as');
  const [loginUser, internalUser] = root ? ['dovenull', 'dovecot'] : [me.username, me.username];
  // mkdtemp makes the folder 0700: dovecot's own users must be able to reach the passwd file.
  if (root) chmodSync(dir, 0o755);
  const mail = join(dir, 'mail');
  for (const sub of ['new', 'cur', 'tmp']) mkdirSync(join(mail, sub), { recursive: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  mkdirSync(join(dir, 'base'), { recursive: true });
  mkdirSync(join(dir, 'state'), { recursive: true });
  const own = (path: string) => {
    if (root) chownSync(path, mailUser.uid, mailUser.gid);
  };
  for (const p of [
    mail,
    join(mail, 'new'),
    join(mail, 'cur'),
    join(mail, 'tmp'),
    join(dir, 'home'),
  ])
    own(p);
  const password = 'imap-test-password';
  writeFileSync(
    join(dir, 'passwd'),
    `ann:{PLAIN}${password}:${mailUser.uid}:${mailUser.gid}::${join(dir, 'home')}::userdb_mail=maildir:${mail}\n`,
  );
  const conf = join(dir, 'dovecot.conf');
  writeFileSync(
    conf,
    `base_dir = ${join(dir, 'base')}
state_dir = ${join(dir, 'state')}
log_path = ${join(dir, 'dovecot.log')}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# A refused login answers at once (the default waits 2 s, which only slows the wrong-password test).
auth_failure_delay = 0
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
default_internal_group = ${root ? 'dovecot' : me.username}
first_valid_uid = 1
mail_location = maildir:${mail}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
passdb {
  driver = passwd-file
  args = ${join(dir, 'passwd')}
}
userdb {
  driver = passwd-file
  args = ${join(dir, 'passwd')}
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', conf], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () =>
    existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : '';
  const deadline = performance.now() + 10_000;
  while (!(await accepting(port))) {
    if (child.exitCode !== null || performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`dovecot did not start: ${stderr.trim()} ${log().trim()}`);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  let n = 0;
  return {
    port,
    user: 'ann',
    password,
    drop(raw) {
      const file = join(mail, 'new', `${Date.now()}.${process.pid}_${n++}.test`);
      writeFileSync(file, raw.replace(/\r?\n/g, '\r\n'));
      own(file);
    },
    log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
