import { connect } from 'node:net';
import { sleep } from '../util/time.js';

/**
 * QEMU's user-mode network accepts TCP on a forwarded port before the guest
 * listens, so "port open" means nothing: wait for sshd's "SSH-" banner.
 */
export function readBanner(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let data = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (data.startsWith('SSH-')) done(true);
      else if (data.length >= 4) done(false);
    });
    socket.on('error', () => done(false));
    socket.on('close', () => done(data.startsWith('SSH-')));
  });
}

export async function waitForBanner(host: string, port: number, deadline: number): Promise<void> {
  let delay = 250;
  while (Date.now() < deadline) {
    if (await readBanner(host, port, Math.min(5000, Math.max(500, deadline - Date.now())))) return;
    await sleep(delay);
    delay = Math.min(delay * 1.5, 2000);
  }
  throw new Error(`no SSH banner from ${host}:${port} before the deadline`);
}
