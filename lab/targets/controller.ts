import { createHash } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { stateRoot } from '../paths.js';
import { printable } from '../util/safe-text.js';

/**
 * Which controller drives a lab: this machine, this user, this LAYERLAB_HOME
 * and this lab. The lab lock in LAYERLAB_HOME keeps two processes of one
 * controller apart; a resource two controllers can reach (a static host, an
 * AWS stack) records this identity itself, so that a second controller (an
 * other checkout, another user) is refused with who holds it.
 */
export interface Controller {
  /** A digest of the four facts below: what locks compare. */
  id: string;
  lab: string;
  /** user@host of the controller. */
  who: string;
  /** Its LAYERLAB_HOME, absolute. */
  home: string;
}

/** One line of plain text: it is written into lock files and tags, and read back from them. */
function oneLine(text: string): string {
  return printable(text).replace(/[\t\n]/g, ' ');
}

export function controllerOf(lab: string, who: string, home: string): Controller {
  const id = createHash('sha256')
    .update(JSON.stringify([lab, who, home]))
    .digest('hex')
    .slice(0, 16);
  return { id, lab: oneLine(lab), who: oneLine(who), home: oneLine(home) };
}

/** This process's controller for `lab` (LAYERLAB_HOME read now). */
export function thisController(lab: string): Controller {
  return controllerOf(lab, `${userInfo().username}@${hostname()}`, stateRoot());
}

/** A holder as read back from a resource: any field may be missing, and none is trusted. */
export interface ControllerRecord {
  id?: string;
  lab?: string;
  who?: string;
  home?: string;
  pid?: string;
  since?: string;
}

/** "lab quick of alice@box (LAYERLAB_HOME /home/alice/x/.layerlab), pid 123, since <time>", safe to print. */
export function describeHolder(holder: ControllerRecord): string {
  const show = (value: string | undefined) => (value ? oneLine(value).slice(0, 300) : '?');
  const pid = holder.pid ? `, pid ${show(holder.pid)}` : '';
  return `lab ${show(holder.lab)} of ${show(holder.who)} (LAYERLAB_HOME ${show(holder.home)})${pid}, since ${show(holder.since)}`;
}
