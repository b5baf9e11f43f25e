// Drives lockhub's approval page in Debian's /usr/bin/chromium, headless,
// with the DevTools WebAuthn virtual authenticator (ctap2, internal,
// resident keys, user verification): never a downloaded browser. One
// command per stdin line (JSON: {"op": ..., ...}), one JSON answer per
// stdout line; pagedriver.py is the Python side (docs/testing.md).
import puppeteer from 'puppeteer-core';
import readline from 'node:readline';

const [origin, spki] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: 'new',
  args: ['--no-sandbox', '--no-first-run', '--disable-gpu',
    // The test's own certificate for localhost, trusted by its key only
    // (WebAuthn refuses a page with a certificate error).
    '--ignore-certificate-errors-spki-list=' + spki],
});
const context = browser.defaultBrowserContext();
await context.overridePermissions(origin, ['notifications']);
const page = await browser.newPage();
await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
const cdp = await page.target().createCDPSession();
await cdp.send('WebAuthn.enable');
const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: {
  protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
  hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
} });
// Count the page's notifications (headless shows none).
await page.evaluateOnNewDocument(() => {
  const N = window.Notification;
  window.__notes = [];
  const Spy = function (title, opts) { window.__notes.push(title + ': ' + (opts && opts.body)); return new N(title, opts); };
  Object.defineProperty(Spy, 'permission', { get: () => N.permission });
  Spy.requestPermission = (...a) => N.requestPermission(...a);
  window.Notification = Spy;
});
const consoleLines = [];
page.on('console', (m) => consoleLines.push(m.text()));
page.on('pageerror', (e) => consoleLines.push('pageerror: ' + e.message));

async function statusAfter(fn) {
  await page.$eval('#status', (e) => { e.textContent = ''; });
  await fn();
  await page.waitForFunction(() => document.getElementById('status').textContent !== '', { timeout: 20000 });
  return page.$eval('#status', (e) => e.textContent);
}

async function tickets() {
  return page.$$eval('#tickets article', (as) => as.map((a) => ({
    tickets: (a.dataset.tickets || a.dataset.ticket || '').split(' '),
    refused: a.classList.contains('refused'),
    text: a.innerText,
    lines: a.querySelector('.lines') ? a.querySelector('.lines').textContent : null,
  })));
}

async function click(index, sel) {
  const arts = await page.$$('#tickets article:not(.refused)');
  if (index >= arts.length) throw new Error('no ticket ' + index);
  return statusAfter(() => arts[index].$eval(sel, (b) => b.click()));
}

const ops = {
  async open() { await page.goto(origin + '/', { waitUntil: 'load' }); return {}; },
  async pin({ name, key }) {
    await page.type('#pin-name', name);
    await page.type('#pin-key', key);
    return { status: await statusAfter(() => page.click('#pin-form button')) };
  },
  async register({ code }) {
    await page.type('#code', code);
    const status = await statusAfter(() => page.click('#register-form button'));
    const get = (id) => page.$eval(id, (e) => e.textContent);
    return { status, name: await get('#reg-name'), cose: await get('#reg-cose'), fingerprint: await get('#reg-fp') };
  },
  async login() {
    await page.click('#login');
    await page.waitForSelector('#tickets-section:not([hidden])', { timeout: 20000 });
    return { who: await page.$eval('#who', (e) => e.textContent) };
  },
  async wait({ count }) {
    await page.waitForFunction((n) => document.querySelectorAll('#tickets article').length >= n,
      { timeout: 30000 }, count);
    return { tickets: await tickets() };
  },
  async tickets() { return { tickets: await tickets() }; },
  async approve({ index }) { return { status: await click(index || 0, '.approve') }; },
  async deny({ index }) { return { status: await click(index || 0, '.deny') }; },
  async mute({ index, minutes }) {
    const arts = await page.$$('#tickets article:not(.refused)');
    await arts[index || 0].$eval('.minutes', (s, m) => { s.value = String(m); }, minutes);
    return { status: await click(index || 0, '.mute-btn') };
  },
  // A decision the page would never build: signed by this passkey over
  // the given ticket hashes, posted with the page's session.
  async forge({ hashes, verdict }) {
    return page.evaluate(async (hs, v) => {
      const hb = hs.map(unhex);
      const challenge = await decisionChallenge(v, 0, hb);
      const a = await navigator.credentials.get({ publicKey: {
        challenge, rpId: location.hostname, userVerification: 'required',
        allowCredentials: [{ type: 'public-key', id: unb64u(me.cred) }] } });
      const r = await api('POST', '/v1/page/decision', encodeDecisionPk(v, 0, hb, a), true);
      return { http: r.status };
    }, hashes, verdict);
  },
  // The same DECISION-PK, returned instead of posted (base64url): what
  // a hostile hub could get signed and file itself (test_phone_e2e.py).
  async sign({ hashes, verdict }) {
    return page.evaluate(async (hs, v) => {
      const hb = hs.map(unhex);
      const challenge = await decisionChallenge(v, 0, hb);
      const a = await navigator.credentials.get({ publicKey: {
        challenge, rpId: location.hostname, userVerification: 'required',
        allowCredentials: [{ type: 'public-key', id: unb64u(me.cred) }] } });
      return { pk: b64u(encodeDecisionPk(v, 0, hb, a)) };
    }, hashes, verdict);
  },
  // A sign-in whose assertion is over a challenge the hub did not issue
  // (here: a decision's, as a hostile page could have one signed).
  async loginUnissued({ hashes }) {
    return page.evaluate(async (hs) => {
      const challenge = await decisionChallenge(1, 0, hs.map(unhex));
      const a = await navigator.credentials.get({ publicKey: {
        challenge, rpId: location.hostname, userVerification: 'required' } });
      const r = await api('POST', '/v1/page/login', {
        challenge: b64u(challenge), credentialId: b64u(a.rawId),
        authenticatorData: b64u(a.response.authenticatorData),
        clientDataJSON: b64u(a.response.clientDataJSON), signature: b64u(a.response.signature),
      });
      return { http: r.status };
    }, hashes);
  },
  async credentials() { return cdp.send('WebAuthn.getCredentials', { authenticatorId }); },
  async screenshot({ path }) { await page.screenshot({ path, fullPage: false }); return {}; },
  // Sign out, put the old cookie back (DevTools can read an HttpOnly
  // one), and ask again: the hub must have forgotten the session.
  async logout() {
    const old = (await page.cookies()).filter((c) => c.name === '__Host-lockhub');
    const http = await page.evaluate(async () => (await api('POST', '/v1/page/logout')).status);
    await page.setCookie(...old);
    const after = await page.evaluate(async () => {
      const r = await api('GET', '/v1/page/me');
      signedOut();
      return r.status;
    });
    return { http, after, had: old.length };
  },
  async notes() { return { notes: await page.evaluate(() => window.__notes) }; },
  async who() { return { who: await page.$eval('#who', (e) => e.textContent) }; },
  async logs() { return { lines: consoleLines }; },
  async quit() { await browser.close(); process.exit(0); },
};

const rl = readline.createInterface({ input: process.stdin });
process.stdout.write(JSON.stringify({ ready: true }) + '\n');
for await (const line of rl) {
  let out;
  try {
    const cmd = JSON.parse(line);
    out = { ok: true, ...(await ops[cmd.op](cmd)) };
  } catch (e) {
    out = { ok: false, error: String(e && e.message || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
await browser.close();
