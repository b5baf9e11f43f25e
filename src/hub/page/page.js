/* lockhub's approval page (docs/hub.md, "Approving from a phone").
 * Everything shown comes from a CARD the console signed with its instance
 * key; the page verifies it (WebCrypto Ed25519) under the key the human
 * pinned here, and writes its lines with textContent only. A decision is
 * a DECISION-PK: a WebAuthn assertion whose challenge is the contract's
 * hash over the verdict and the ticket hashes, which the console checks
 * itself. The page never takes a value (a hostile page would read it). */
'use strict';

const PIN_STORE = 'lockhub.pins';
const MAX_GROUP = 16;
const enc = new TextEncoder();
const $ = (id) => document.getElementById(id);
let me = null;			/* {name, cose, fingerprint, id, cred} */
let cursor = 0;
let known = new Set();
let listed = false;		/* the first listing raises no notification */

function status(text) { $('status').textContent = text; }

function b64u(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unb64u(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('bad base64url');
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function hex(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''); }

function unhex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16);
  return out;
}

function concat(parts) {
  const n = parts.reduce((a, p) => a + p.length, 0), out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

function u32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v); return b; }
function field(b) { return concat([u32(b.length), b]); }

/* ---- the layouts (docs/hub.md, "Layouts"): strict, like src/hubwire ---- */

class Reader {
  constructor(bytes) { this.b = bytes; this.o = 0; }
  need(n) { if (n > this.b.length - this.o) throw new Error('short'); }
  header(magic) {
    this.need(10);
    const m = new TextDecoder().decode(this.b.subarray(0, 8));
    if (m !== magic || this.b[8] !== 0 || this.b[9] !== 1) throw new Error('magic');
    this.o = 10;
  }
  field(min, max) {
    this.need(4);
    const n = new DataView(this.b.buffer, this.b.byteOffset + this.o).getUint32(0);
    if (n < min || n > max) throw new Error('length');
    this.o += 4;
    this.need(n);
    const f = this.b.subarray(this.o, this.o + n);
    this.o += n;
    return f;
  }
  end() { if (this.o !== this.b.length) throw new Error('trailing bytes'); }
}

function printable(bytes) { return bytes.every((c) => c >= 0x20 && c <= 0x7e); }

/* CARD (LHCARDLN): instance, ticket id, ticket hash, lines, signature. */
function parseCard(bytes) {
  const r = new Reader(bytes);
  r.header('LHCARDLN');
  const inst = r.field(1, 32), id = r.field(34, 34), hash = r.field(32, 32);
  const list = new Reader(r.field(4, 96 * 248 + 4));
  list.need(4);
  const n = new DataView(list.b.buffer, list.b.byteOffset).getUint32(0);
  list.o = 4;
  if (n > 96) throw new Error('too many lines');
  const lines = [];
  for (let i = 0; i < n; i++) {
    const item = new Reader(list.field(4, 244));
    const t = item.field(0, 240);
    item.end();
    if (!printable(t)) throw new Error('unprintable line');
    lines.push(new TextDecoder().decode(t));
  }
  list.end();
  const signedLen = r.o;
  const sig = r.field(64, 64);
  r.end();
  if (!printable(inst) || !printable(id)) throw new Error('text');
  return {
    instance: new TextDecoder().decode(inst), id: new TextDecoder().decode(id),
    hash, lines, signed: bytes.subarray(0, signedLen), sig,
  };
}

async function verifyCard(card) {
  const pins = loadPins();
  const pk = pins[card.instance];
  if (!pk) return false;
  const key = await crypto.subtle.importKey('raw', unhex(pk), { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, card.sig, card.signed);
}

/* The contract's decision challenge: SHA-256 over the domain, the verdict,
 * the mute minutes and the ticket hashes. */
async function decisionChallenge(verdict, minutes, hashes) {
  const msg = concat([enc.encode('lockhub/passkey/v1/decision'), new Uint8Array([0, verdict]),
    u32(minutes), u32(hashes.length), ...hashes]);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', msg));
}

function encodeDecisionPk(verdict, minutes, hashes, assertion) {
  const head = concat([enc.encode('LHDECPKY'), new Uint8Array([0, 1])]);
  const list = field(concat([u32(hashes.length), ...hashes.map((h) => field(field(h)))]));
  const r = assertion.response;
  return concat([head, field(new Uint8Array([verdict])), field(u32(minutes)), list,
    field(unhex(me.id)), field(new Uint8Array(assertion.rawId)),
    field(new Uint8Array(r.authenticatorData)), field(new Uint8Array(r.clientDataJSON)),
    field(new Uint8Array(r.signature))]);
}

/* ---- pins ---- */

function loadPins() {
  try {
    const p = JSON.parse(localStorage.getItem(PIN_STORE) || '{}');
    return p && typeof p === 'object' ? p : {};
  } catch (e) { return {}; }
}

function showPins() {
  const ul = $('pins');
  ul.replaceChildren();
  for (const [name, key] of Object.entries(loadPins())) {
    const li = document.createElement('li');
    li.textContent = name + ' ed25519:' + key;
    ul.append(li);
  }
}

function addPin(ev) {
  ev.preventDefault();
  const name = $('pin-name').value.trim(), key = $('pin-key').value.trim();
  if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(name) || !/^ed25519:[0-9a-f]{64}$/.test(key)) {
    status('That is not an instance name and an ed25519: key.');
    return;
  }
  const pins = loadPins();
  pins[name] = key.slice(8);
  localStorage.setItem(PIN_STORE, JSON.stringify(pins));
  $('pin-form').reset();
  showPins();
  status('Pinned ' + name + '.');
  if (me) refresh();
}

/* ---- the hub ---- */

async function api(method, path, body, binary) {
  const headers = { 'Lockhub-Page': '1' };
  if (body !== undefined) headers['Content-Type'] = binary ? 'application/octet-stream' : 'application/json';
  const r = await fetch(path, {
    method, headers, credentials: 'same-origin', cache: 'no-store',
    body: body === undefined ? undefined : binary ? body : JSON.stringify(body),
  });
  let data = null;
  if ((r.headers.get('Content-Type') || '').startsWith('application/json')) data = await r.json();
  else await r.text();
  return { status: r.status, data };
}

async function register(ev) {
  ev.preventDefault();
  const code = $('code').value.trim();
  try {
    const c = await api('POST', '/v1/page/register/challenge', { code });
    if (c.status !== 200) { status('The hub refused the code.'); return; }
    const cred = await navigator.credentials.create({ publicKey: {
      rp: { id: c.data.rp_id, name: 'lockhub' },
      user: { id: enc.encode(c.data.name), name: c.data.name, displayName: c.data.name },
      challenge: unb64u(c.data.challenge),
      pubKeyCredParams: [{ type: 'public-key', alg: -8 }, { type: 'public-key', alg: -7 }],
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      timeout: 120000,
    } });
    const r = await api('POST', '/v1/page/register', {
      code, challenge: c.data.challenge,
      attestationObject: b64u(cred.response.attestationObject),
      clientDataJSON: b64u(cred.response.clientDataJSON),
    });
    if (r.status !== 201) { status('The hub refused the passkey.'); return; }
    $('reg-name').textContent = 'name: ' + r.data.name;
    $('reg-cose').textContent = r.data.cose;
    $('reg-fp').textContent = 'fingerprint: ' + r.data.fingerprint;
    $('registered').hidden = false;
    $('register-form').reset();
    status('Passkey registered as ' + r.data.name + '. Sign in below.');
  } catch (e) {
    status('Registration did not complete.');
  }
}

async function login() {
  try {
    if ('Notification' in window && Notification.permission === 'default') Notification.requestPermission();
    const c = await api('POST', '/v1/page/login/challenge', {});
    if (c.status !== 200) { status('The hub refused to start a sign-in.'); return; }
    const a = await navigator.credentials.get({ publicKey: {
      challenge: unb64u(c.data.challenge), rpId: location.hostname,
      userVerification: 'required', timeout: 120000,
    } });
    const r = await api('POST', '/v1/page/login', {
      challenge: c.data.challenge, credentialId: b64u(a.rawId),
      authenticatorData: b64u(a.response.authenticatorData),
      clientDataJSON: b64u(a.response.clientDataJSON), signature: b64u(a.response.signature),
    });
    if (r.status !== 200) { status('The hub refused the sign-in.'); return; }
    await start();
  } catch (e) {
    status('Sign-in did not complete.');
  }
}

/* ---- tickets ---- */

/* Identical pending tickets share a group: the same instance and the same
 * agent, key and plugins, read from the lines the console drew (its
 * approval card: "from uid", "profile", "key", "handle", "typed", the
 * plugins "[N] ..." and their questions). The other lines (how many
 * answers are left, the ledger) may differ within a group. A card with
 * none of these lines is a group of its own. */
function identityLine(line) {
  return /^\s*(from uid|profile|key|typed|handle)\b/.test(line) || /^\s*\[\d+\] /.test(line) ||
    /^\s*(question:|1 means:|0 means:)/.test(line);
}

function groupKey(card) {
  const same = card.lines.filter(identityLine);
  return JSON.stringify(same.length > 0 ? [card.instance, same] : [card.instance, card.id]);
}

async function refresh() {
  const r = await api('GET', '/v1/page/tickets');
  if (r.status === 401) { signedOut(); return; }
  if (r.status !== 200) { status('The hub cannot list tickets now.'); return; }
  cursor = Math.max(cursor, r.data.seq);
  const groups = new Map(), refused = [];
  let fresh = false;
  for (const t of r.data.tickets) {
    if (!known.has(t.id)) { known.add(t.id); fresh = true; }
    let card = null;
    try {
      card = parseCard(unb64u(t.card));
      if (card.id !== t.id || !(await verifyCard(card))) card = null;
    } catch (e) { card = null; }
    if (card === null) { refused.push(t.id); continue; }
    const k = groupKey(card);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(card);
  }
  render(groups, refused);
  /* A ticket that arrives while the page is open: a notification (never
   * with the card's content). Push to a closed page is out of scope. */
  if (fresh && listed && 'Notification' in window && Notification.permission === 'granted')
    new Notification('lockhub', { body: 'A ticket is waiting for your decision.', tag: 'lockhub' });
  listed = true;
}

function render(groups, refused) {
  const box = $('tickets');
  box.replaceChildren();
  for (const id of refused) {
    const a = document.createElement('article');
    a.className = 'ticket refused';
    a.dataset.ticket = id;
    /* Nothing of a card that does not verify is shown. */
    a.textContent = 'Refused: this ticket\'s card is not signed by an instance you pinned.';
    box.append(a);
  }
  for (const cards of groups.values()) {
    for (let i = 0; i < cards.length; i += MAX_GROUP) box.append(ticketView(cards.slice(i, i + MAX_GROUP)));
  }
  $('empty').hidden = box.childElementCount > 0;
}

function ticketView(cards) {
  const node = $('ticket-tpl').content.firstElementChild.cloneNode(true);
  node.dataset.tickets = cards.map((c) => c.id).join(' ');
  node.querySelector('.count').textContent = cards.length > 1 ?
    cards.length + ' identical tickets from ' + cards[0].instance : 'From ' + cards[0].instance;
  /* A group shows the lines its tickets share (groupKey's). */
  const lines = cards.length > 1 ? cards[0].lines.filter(identityLine) : cards[0].lines;
  node.querySelector('.lines').textContent = lines.join('\n');
  const hashes = cards.map((c) => c.hash);
  node.querySelector('.approve').addEventListener('click', () => decide(1, 0, hashes));
  node.querySelector('.deny').addEventListener('click', () => decide(0, 0, hashes));
  node.querySelector('.mute-btn').addEventListener('click', () =>
    decide(2, parseInt(node.querySelector('.minutes').value, 10), hashes));
  return node;
}

async function decide(verdict, minutes, hashes) {
  try {
    const challenge = await decisionChallenge(verdict, minutes, hashes);
    const a = await navigator.credentials.get({ publicKey: {
      challenge, rpId: location.hostname, userVerification: 'required', timeout: 120000,
      allowCredentials: [{ type: 'public-key', id: unb64u(me.cred) }],
    } });
    const r = await api('POST', '/v1/page/decision', encodeDecisionPk(verdict, minutes, hashes, a), true);
    status(r.status === 201 ? ['Denied.', 'Approved.', 'Denied and muted.'][verdict] :
      'The hub refused the decision (' + r.status + ').');
  } catch (e) {
    status('The decision was not signed.');
  }
  await refresh();
}

/* New tickets reach an open page at once: a long-poll on the hub. */
async function watch() {
  for (;;) {
    let r;
    try {
      r = await api('GET', '/v1/page/tickets/after/' + cursor);
    } catch (e) {
      await new Promise((ok) => setTimeout(ok, 3000));
      continue;
    }
    if (r.status === 401) { signedOut(); return; }
    if (r.status === 200 || r.status === 204) await refresh();
    else await new Promise((ok) => setTimeout(ok, 3000));
  }
}

function signedOut() {
  me = null;
  $('tickets-section').hidden = true;
  $('login-section').hidden = false;
  $('who').textContent = '';
}

async function start() {
  const r = await api('GET', '/v1/page/me');
  if (r.status !== 200) { signedOut(); return; }
  me = r.data;
  $('who').textContent = 'Signed in as ' + me.name + ' (' + me.fingerprint + ')';
  $('login-section').hidden = true;
  $('tickets-section').hidden = false;
  status('');
  await refresh();
  watch();
}

document.addEventListener('DOMContentLoaded', () => {
  $('pin-form').addEventListener('submit', addPin);
  $('register-form').addEventListener('submit', register);
  $('login').addEventListener('click', login);
  showPins();
  start();
});
