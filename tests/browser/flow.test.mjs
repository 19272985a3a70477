// peto in a real browser: the main flow with JavaScript on and off, and
// axe-core on every page. Run it through ./run PETO_BINARY, which starts a
// server with a fresh database and the account below, and sets:
//   PETO_BASE_URL        http://127.0.0.1:PORT
//   PETO_TEST_EMAIL      ada@example.com
//   PETO_TEST_PASSWORD   correct horse battery
//   CHROMIUM             /usr/bin/chromium
// PETO_BROWSER_SCREENSHOTS=0 skips writing docs/screenshots/*.png.
//
// Every step names itself and the page it was on when it fails. A CSP
// violation reported on the console ("Refused to ...", "Content Security
// Policy"), an uncaught page error, a 5xx answer or a missing same-origin
// resource fails the step it happened in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdir, mkdtemp } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const sourceDir = path.resolve(here, '..', '..');

const base = process.env.PETO_BASE_URL;
const email = process.env.PETO_TEST_EMAIL ?? 'ada@example.com';
const password = process.env.PETO_TEST_PASSWORD ?? 'correct horse battery';
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const writeScreenshots = process.env.PETO_BROWSER_SCREENSHOTS !== '0';
if (!base) throw new Error('PETO_BASE_URL is not set: run tests/browser/run PETO_BINARY');

const STEP_TIMEOUT_MS = 10_000;
const NAV_TIMEOUT_MS = 15_000;
const STATUSES = ['Draft', 'Applied', 'Acknowledged', 'Screening', 'Interviewing', 'Assessment',
  'Offer', 'Accepted', 'Rejected', 'Withdrawn', 'Ghosted'];

let browser;

before(async () => {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
});

// ---------------------------------------------------------------------------
// Helpers

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const url = (p) => new URL(p, base).href;
const pathOf = (u) => { const x = new URL(u); return x.pathname + x.search; };

// A browser context with the problem listeners on each of its pages.
async function newContext(label, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(NAV_TIMEOUT_MS);
  const problems = [];
  const origin = new URL(base).origin;
  context.on('page', (page) => watch(page, label, problems, origin));
  const page = await context.newPage();
  return { context, page, problems, javaScript: options.javaScriptEnabled !== false };
}

function watch(page, label, problems, origin) {
  page.on('console', (msg) => {
    const text = msg.text();
    if (/Refused to|Content Security Policy/i.test(text)) {
      problems.push(`CSP violation on ${pathOf(page.url())}: ${text}`);
    }
  });
  page.on('pageerror', (err) => {
    problems.push(`page error on ${pathOf(page.url())}: ${err.message}`);
  });
  page.on('response', (resp) => {
    const u = new URL(resp.url());
    const status = resp.status();
    if (status >= 500) {
      problems.push(`${status} for ${resp.request().method()} ${u.pathname}${u.search}`);
    } else if (status >= 400 && u.origin === origin && u.pathname !== '/favicon.ico' &&
               resp.request().resourceType() !== 'document') {
      problems.push(`${status} for the resource ${u.pathname} (on ${pathOf(page.url())})`);
    }
  });
}

// What the page looked like, for a failure message.
async function describePage(page) {
  const bits = [`page ${pathOf(page.url())}`];
  try {
    const title = await page.title();
    if (title) bits.push(`title "${title}"`);
  } catch { /* closed or navigating */ }
  try {
    const h1 = await page.locator('h1').allInnerTexts();
    if (h1.length) bits.push(`h1 "${h1.join(' | ').trim()}"`);
  } catch { /* ignore */ }
  try {
    const alerts = (await page.locator('[role=alert], .flash, .field-error, .error')
      .allInnerTexts()).map((s) => s.trim()).filter(Boolean);
    if (alerts.length) bits.push(`messages: ${alerts.map((a) => JSON.stringify(a)).join(', ')}`);
  } catch { /* ignore */ }
  return bits.join(', ');
}

// Runs one named step; a failure says which flow, which step and which page.
async function step(flow, name, s, fn) {
  const seen = s.problems.length;
  try {
    await fn();
  } catch (err) {
    const where = await describePage(s.page);
    const extra = s.problems.length > seen ? `\n  also: ${s.problems.slice(seen).join('\n  also: ')}` : '';
    const e = new Error(`[${flow}] step "${name}" failed on ${where}:\n  ${err.message.split('\n').join('\n  ')}${extra}`);
    throw e;
  }
  if (s.problems.length > seen) {
    throw new Error(`[${flow}] step "${name}" (${pathOf(s.page.url())}):\n  ` +
      s.problems.slice(seen).join('\n  '));
  }
}

// Loads a page and insists on a 2xx answer.
async function visit(page, p) {
  const resp = await page.goto(url(p), { waitUntil: 'load' });
  assert.ok(resp, `no response for ${p}`);
  assert.ok(resp.status() < 400, `GET ${p} answered ${resp.status()}`);
  return resp;
}

// Clicks a submit button and waits for the page the form leads to.
async function submit(page, button) {
  const [resp] = await Promise.all([
    page.waitForNavigation({ waitUntil: 'load', timeout: NAV_TIMEOUT_MS }),
    button.click(),
  ]);
  assert.ok(resp, 'the form submission loaded no page');
  assert.ok(resp.status() < 400,
    `the form submission ended on ${resp.status()} ${pathOf(resp.url())}`);
  return resp;
}

// Opens the folded form whose summary reads `name` (a click, as a person
// would: it needs no script), unless it is open already.
async function unfold(page, name) {
  const fold = page.locator('details.fold').filter({ has: page.locator('summary', { hasText: name }) });
  assert.equal(await fold.count(), 1, `no folded form "${name}" on this page`);
  if ((await fold.getAttribute('open')) === null) await fold.locator('summary').click();
}

// The form control labelled `text`: the label is the contract's text,
// optionally followed by a required-field marker ("Role (required)", "Role *").
function field(page, text) {
  return page.getByLabel(new RegExp(`^\\s*${escapeRe(text)}(\\s*\\(required\\)|\\s*\\*)?\\s*$`));
}

// The control labelled `text`, once it is there; if it never comes, the error
// lists the labels the page does have.
async function labelled(page, text) {
  const loc = field(page, text);
  try {
    await loc.first().waitFor({ state: 'attached', timeout: 5_000 });
  } catch {
    let labels = [];
    try {
      labels = (await page.locator('label').allInnerTexts()).map((l) => l.replace(/\s+/g, ' ').trim());
    } catch { /* ignore */ }
    throw new Error(`no form control labelled "${text}" on this page ` +
      `(its labels: ${labels.length ? labels.map((l) => JSON.stringify(l)).join(', ') : 'none'})`);
  }
  const n = await loc.count();
  assert.equal(n, 1, `${n} form controls are labelled "${text}"`);
  return loc;
}

async function fillText(page, label, value) {
  const input = await labelled(page, label);
  const tag = await input.evaluate((el) => el.tagName.toLowerCase());
  assert.ok(tag === 'input' || tag === 'textarea',
    `the control labelled "${label}" is a <${tag}>, expected a text input`);
  await input.fill(value);
}

async function textOf(locator) {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

async function expectH1(page, expected) {
  const h1 = page.locator('h1').first();
  await h1.waitFor();
  const text = await textOf(h1);
  if (expected instanceof RegExp) assert.match(text, expected, `h1 is "${text}"`);
  else assert.ok(text.includes(expected), `h1 is "${text}", expected it to contain "${expected}"`);
}

async function expectStatus(page, label) {
  const status = page.getByTestId('status');
  await status.first().waitFor();
  const text = await textOf(status.first());
  assert.ok(new RegExp(`\\b${escapeRe(label)}\\b`).test(text),
    `data-testid="status" reads "${text}", expected "${label}"`);
}

// The message the last change left at the top of the page.
async function expectFlash(page, expected) {
  const flash = page.getByTestId('flash');
  assert.ok((await flash.count()) >= 1, `no message (data-testid="flash") on the page; expected "${expected}"`);
  const text = await textOf(flash.first());
  if (expected instanceof RegExp) assert.match(text, expected, `the message reads "${text}"`);
  else assert.ok(text.includes(expected), `the message reads "${text}", expected "${expected}"`);
}

function utcDateTimeLocal(msFromNow) {
  return new Date(Date.now() + msFromNow).toISOString().slice(0, 16); // YYYY-MM-DDTHH:MM
}

function utcDate(daysFromNow) {
  return new Date(Date.now() + daysFromNow * 86_400_000).toISOString().slice(0, 10);
}

async function signIn(flow, s) {
  const { page } = s;
  await step(flow, 'open the sign-in page', s, async () => {
    await visit(page, '/signin');
  });
  await step(flow, 'sign in', s, async () => {
    await fillText(page, 'Email', email);
    await fillText(page, 'Password', password);
    await submit(page, page.getByRole('button', { name: 'Sign in', exact: true }));
    assert.equal(new URL(page.url()).pathname, '/', 'sign-in should land on /');
    if (flow === 'JS on') await expectFlash(page, 'Times are shown in Europe/Berlin');
    await expectH1(page, /^Dashboard$/);
  });
}

// The dashboard's "Reminders due" section (null when the page has none).
async function remindersDue(page) {
  const heading = page.getByRole('heading', { name: 'Reminders due', exact: true });
  if ((await heading.count()) === 0) return null;
  return page.locator('section').filter({ has: heading }).last();
}

// ---------------------------------------------------------------------------
// The flow: sign in, add a listing, apply, move the application through some
// statuses, add a reminder that is already due, see it on the dashboard, mark
// it done on /reminders and see it leave the dashboard.

async function mainFlow(flow, s, data, { screenshots = false } = {}) {
  const { page } = s;
  let listingUrl;
  let applicationUrl;

  await signIn(flow, s);

  await step(flow, 'open /listings and follow "Add a listing"', s, async () => {
    await visit(page, '/listings');
    await page.getByRole('link', { name: 'Add a listing', exact: true }).first().click();
    await page.waitForURL((u) => u.pathname === '/listings/new');
  });

  await step(flow, 'fill in and save the new listing', s, async () => {
    await fillText(page, 'Company', data.company);
    await fillText(page, 'Role', data.role);
    await fillText(page, 'Listing URL', data.listingUrl);
    await fillText(page, 'Location', data.location);
    const closes = await labelled(page, 'Closes on');
    assert.equal(await closes.getAttribute('type'), 'date', '"Closes on" should be type=date');
    await closes.fill(utcDate(30));
    await submit(page, page.getByRole('button', { name: 'Save listing', exact: true }));
    assert.match(new URL(page.url()).pathname, /^\/listings\/\d+$/,
      'saving should redirect to /listings/<id>');
    await expectH1(page, data.role);
    listingUrl = page.url();
  });

  await step(flow, 'start a draft from the listing page', s, async () => {
    // Beside it, "I've applied" with the day it was sent (today by default).
    assert.ok(await page.getByRole('button', { name: "I've applied", exact: true }).isVisible());
    await submit(page, page.getByRole('button', { name: 'Start a draft', exact: true }));
    assert.match(new URL(page.url()).pathname, /^\/applications\/\d+$/,
      '"Start a draft" should redirect to /applications/<id>');
    await expectH1(page, data.role);
    await expectStatus(page, 'Draft');
    applicationUrl = page.url();
  });

  await step(flow, 'the status select offers every status', s, async () => {
    await unfold(page, 'Change status…');
    const options = (await (await labelled(page, 'New status')).locator('option')
      .allInnerTexts()).map((o) => o.trim());
    for (const label of STATUSES.filter((x) => x !== 'Draft')) {
      assert.ok(options.includes(label), `"New status" has no option "${label}" (has ${options.join(', ')})`);
    }
  });

  for (const label of data.statuses) {
    await step(flow, `change the status to ${label}`, s, async () => {
      await unfold(page, 'Change status…');
      await (await labelled(page, 'New status')).selectOption({ label });
      await submit(page, page.getByRole('button', { name: 'Change status', exact: true }));
      assert.equal(page.url(), applicationUrl, 'the page should reload at the same URL');
      await expectStatus(page, label);
      await expectFlash(page, 'Saved.');
      const items = page.getByTestId('timeline').locator('li').filter({ hasText: label });
      assert.ok((await items.count()) >= 1,
        `the timeline (data-testid="timeline") has no item containing "${label}"`);
    });
  }

  await step(flow, 'add a reminder that is already due', s, async () => {
    await unfold(page, 'Add a reminder…');
    await fillText(page, 'Reminder', data.reminder);
    const due = await labelled(page, 'Due');
    assert.equal(await due.getAttribute('type'), 'datetime-local', '"Due" should be type=datetime-local');
    await due.fill(utcDateTimeLocal(-3_600_000));
    await submit(page, page.getByRole('button', { name: 'Add reminder', exact: true }));
  });

  await step(flow, 'see the reminder under "Reminders due" on the dashboard', s, async () => {
    await visit(page, '/');
    await expectH1(page, /^Dashboard$/);
    const section = await remindersDue(page);
    assert.ok(section, 'the dashboard has no heading "Reminders due"');
    const text = await textOf(section);
    assert.ok(text.includes(data.reminder),
      `"Reminders due" does not show "${data.reminder}" (it reads "${text.slice(0, 300)}")`);
  });

  if (screenshots) {
    await step(flow, 'screenshot the dashboard', s, async () => {
      await mkdir(path.join(sourceDir, 'docs', 'screenshots'), { recursive: true });
      await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'dashboard.png'), fullPage: true });
    });
  }

  await step(flow, 'snooze the reminder to tomorrow from the calendar', s, async () => {
    await visit(page, '/calendar');
    await expectH1(page, /^Calendar$/);
    const item = page.locator('li.calendar__item').filter({ hasText: data.reminder }).first();
    assert.ok((await item.count()) === 1, `/calendar shows no "${data.reminder}"`);
    assert.ok((await textOf(page.locator('main'))).indexOf('Overdue') >= 0, 'no "Overdue" on the agenda');
    await item.getByLabel('Snooze until').selectOption('tomorrow');
    await submit(page, item.getByRole('button', { name: 'Snooze', exact: true }));
    if (new URL(page.url()).pathname !== '/calendar') throw new Error(`the snooze landed on ${page.url()}`);
    await expectFlash(page, 'Snoozed until');
    await visit(page, '/');
    const section = await remindersDue(page);
    if (section) {
      assert.ok(!(await textOf(section)).includes(data.reminder), 'a snoozed reminder is not due now');
    }
  });

  if (screenshots) {
    await step(flow, 'screenshot the calendar', s, async () => {
      await visit(page, '/calendar?view=month');
      await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'calendar.png'), fullPage: true });
    });
  }

  // The header's box finds the listing by a word of its role and the start
  // of its company's name (what is being typed), and marks what it found.
  await step(flow, 'search from the header', s, async () => {
    await visit(page, '/');
    const box = page.getByRole('search').getByRole('searchbox', { name: 'Search your records' });
    const words = `${data.role.split(' ')[0]} ${data.company.split(' ')[0].slice(0, 4)}`;
    await box.fill(words);
    await Promise.all([page.waitForURL((u) => u.pathname === '/search'), box.press('Enter')]);
    // The listing has an application by now: it is found as the application.
    const applications = page.locator('section').filter({ has: page.getByRole('heading', { name: /^Applications/ }) });
    const link = applications.getByRole('link', { name: data.role, exact: true });
    assert.ok(await link.isVisible(), `searching "${words}" does not list "${data.role}"`);
    assert.ok((await link.locator('mark').count()) >= 1, 'the found word is not marked');
  });

  // One line on the dashboard fills "Record an application"; saving it makes
  // the company, the listing and the application sent yesterday.
  await step(flow, 'quick add a line from the dashboard and save it', s, async () => {
    await visit(page, '/');
    const company = `${data.company} Labs`;
    await fillText(page, 'A link, a pasted page or a line', `Platform engineer at ${company}, Remote, applied yesterday`);
    await submit(page, page.locator('form.quick-add').getByRole('button', { name: 'Add', exact: true }));
    assert.equal(new URL(page.url()).pathname, '/applications/record');
    assert.equal(await (await labelled(page, 'Role')).inputValue(), 'Platform engineer');
    assert.equal(await (await labelled(page, 'Company')).inputValue(), company);
    const yesterday = (zone) => new Date(Date.now() - 86_400_000).toLocaleDateString('sv-SE', { timeZone: zone });
    const day = await (await labelled(page, 'Applied on')).inputValue();
    assert.ok([yesterday('Europe/Berlin'), yesterday('UTC')].includes(day), `"Applied on" reads ${day}`);
    await submit(page, page.getByRole('button', { name: 'Save the application', exact: true }));
    assert.match(new URL(page.url()).pathname, /^\/applications\/\d+$/);
    await expectH1(page, 'Platform engineer');
  });

  // The header's folded sections open with a click, JavaScript or not; with
  // it, opening one menu closes the other and Escape closes it again.
  await step(flow, 'reach Interviews through "More" in the header', s, async () => {
    await visit(page, '/');
    const more = page.locator('nav .site-nav__more');
    await more.locator('summary').click();
    const interviews = more.getByRole('link', { name: 'Interviews', exact: true });
    assert.ok(await interviews.isVisible(), '"More" shows no Interviews link once opened');
    if (s.javaScript) {
      await page.locator('.site-account__menu > summary').click();
      assert.equal(await more.evaluate((d) => d.open), false, 'opening the account menu leaves "More" open');
      await page.keyboard.press('Escape');
      assert.equal(await page.locator('.site-account__menu').evaluate((d) => d.open), false,
        'Escape leaves the account menu open');
      await more.locator('summary').click();
    }
    await Promise.all([page.waitForURL((u) => u.pathname === '/interviews'), interviews.click()]);
    assert.match(await textOf(more.locator('summary')), /Interviews/, '"More" is not named after the section it holds');
  });

  await step(flow, 'mark the reminder done on /reminders', s, async () => {
    await visit(page, '/reminders');
    const row = page.locator(':is(li, tr, article, section, div, p, form)')
      .filter({ hasText: data.reminder })
      .filter({ has: page.getByRole('button', { name: 'Done', exact: true }) })
      .last();
    assert.ok((await row.count()) >= 1, `/reminders shows no "${data.reminder}" with a "Done" button`);
    await submit(page, row.getByRole('button', { name: 'Done', exact: true }).first());
  });

  await step(flow, 'the done reminder left "Reminders due" on the dashboard', s, async () => {
    await visit(page, '/');
    const section = await remindersDue(page);
    if (section) {
      const text = await textOf(section);
      assert.ok(!text.includes(data.reminder), `"Reminders due" still shows "${data.reminder}"`);
    }
  });

  if (screenshots) {
    await step(flow, 'screenshot the application page', s, async () => {
      await visit(page, pathOf(applicationUrl));
      await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'application.png'), fullPage: true });
    });
  }

  // Nothing lost by a click: the delete asks and names what goes, the next
  // page offers Restore, and Restore brings the listing and its application back.
  await step(flow, 'delete the listing: peto names what goes with it and asks', s, async () => {
    await visit(page, pathOf(listingUrl));
    await submit(page, page.getByRole('button', { name: 'Delete', exact: true }));
    await expectH1(page, `Delete the listing “${data.role}”?`);
    const gone = await textOf(page.getByTestId('gone'));
    assert.match(gone, /1 application/, `the list of what goes reads "${gone}"`);
    assert.match(gone, /timeline entries/, `the list of what goes reads "${gone}"`);
    if (screenshots) {
      await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'delete.png'), fullPage: true });
    }
  });

  await step(flow, 'confirm: it goes to the trash and the page says so', s, async () => {
    await submit(page, page.getByRole('button', { name: 'Delete all of it', exact: true }));
    assert.equal(new URL(page.url()).pathname, '/listings');
    await expectFlash(page, `Moved the listing “${data.role}” to the trash.`);
    const gone = await page.request.get(applicationUrl);
    assert.equal(gone.status(), 404, 'the application went with its listing');
  });

  await step(flow, 'Restore from the message brings it all back', s, async () => {
    await submit(page, page.getByTestId('flash').getByRole('button', { name: 'Restore', exact: true }));
    assert.equal(page.url(), listingUrl, 'Restore leads to the listing again');
    await expectFlash(page, /^Restored the listing/);
    await visit(page, pathOf(applicationUrl));
    await expectStatus(page, data.statuses[data.statuses.length - 1]);
  });

  return { listingUrl, applicationUrl };
}

// Runs fn in a fresh context; the context's problems fail the test unless a
// step already failed (its message lists them).
async function inContext(flow, options, fn) {
  const s = await newContext(flow, options);
  let ok = false;
  try {
    const r = await fn(s);
    ok = true;
    return r;
  } finally {
    await new Promise((r) => setTimeout(r, 100)); // late console messages
    await s.context.close().catch(() => {});
    if (ok && s.problems.length) {
      assert.fail(`[${flow}] problems seen in the browser:\n  ${s.problems.join('\n  ')}`);
    }
  }
}

// ---------------------------------------------------------------------------

const created = {};

test('flow with JavaScript on', { timeout: 180_000 }, async () => {
  // The browser is in Berlin: the first sign-in takes its time zone.
  const made = await inContext('JS on', { timezoneId: 'Europe/Berlin' }, (s) => mainFlow('JS on', s, {
    company: 'Acme Robotics',
    role: 'Site Reliability Engineer',
    listingUrl: 'https://jobs.example.com/acme/sre-1234',
    location: 'Lisbon (hybrid)',
    statuses: ['Applied', 'Screening', 'Interviewing'],
    reminder: 'Follow up with the Acme recruiter',
  }, { screenshots: writeScreenshots }));
  Object.assign(created, made);
  await inContext('JS on, profile', {}, async (s) => {
    await signIn('JS on, profile', s);
    await step('JS on, profile', 'the profile took the browser\'s time zone', s, async () => {
      await visit(s.page, '/profile');
      const zone = await (await labelled(s.page, 'Time zone')).inputValue();
      assert.equal(zone, 'Europe/Berlin', 'the first sign-in should have set the browser\'s zone');
    });
  });
});

test('flow with JavaScript off', { timeout: 180_000 }, async () => {
  const made = await inContext('JS off', { javaScriptEnabled: false }, (s) => mainFlow('JS off', s, {
    company: 'Globex Corporation',
    role: 'Backend Developer (no-JS)',
    listingUrl: 'https://careers.example.org/globex/backend-42',
    location: 'Remote, EU',
    statuses: ['Applied', 'Acknowledged', 'Screening'],
    reminder: 'Send the Globex take-home exercise',
  }));
  created.listingUrl ??= made.listingUrl;
  created.applicationUrl ??= made.applicationUrl;
});

// The applications board. With JavaScript: a card dragged to the next
// column moves there, Undo in the message puts it back, Shift+→ on its title
// moves it again; each change is the server's (a reload shows it). Without:
// the card's own form moves it, and an ending status takes its reason there.
async function recordApplication(flow, s, role, company) {
  const { page } = s;
  await step(flow, `record an application for ${role}`, s, async () => {
    await visit(page, '/applications/record');
    await fillText(page, 'Role', role);
    await fillText(page, 'Company', company);
    await submit(page, page.getByRole('button', { name: 'Save the application', exact: true }));
    assert.match(new URL(page.url()).pathname, /^\/applications\/\d+$/);
  });
}

function boardColumn(page, name) {
  return page.locator('section.board__column').filter({ has: page.getByRole('heading', { name: new RegExp(`^${escapeRe(name)}\\b`) }) });
}

async function expectInColumn(page, role, column) {
  const card = boardColumn(page, column).locator('li.board__card').filter({ hasText: role });
  assert.equal(await card.count(), 1, `"${role}" is not in the ${column} column`);
}

test('the board: drag, undo and keyboard with JavaScript', { timeout: 90_000 }, async () => {
  const flow = 'board JS on';
  await inContext(flow, {}, async (s) => {
    const { page } = s;
    const role = 'Board drag engineer';
    await signIn(flow, s);
    await recordApplication(flow, s, role, 'Dragco');
    const toast = page.locator('.board__toast');

    await step(flow, 'drag the card from Applied to Acknowledged', s, async () => {
      await visit(page, '/applications');
      const card = boardColumn(page, 'Applied').locator('li.board__card').filter({ hasText: role });
      const from = await card.locator('.board__company').boundingBox();
      const to = await boardColumn(page, 'Acknowledged').locator('h2').boundingBox();
      assert.ok(from && to, 'the card and the column are on the screen');
      await page.mouse.move(from.x + 5, from.y + 5);
      await page.mouse.down();
      for (let i = 1; i <= 10; i++) {
        await page.mouse.move(from.x + 5 + ((to.x + 20 - from.x) * i) / 10, from.y + 5 + ((to.y + 60 - from.y) * i) / 10);
      }
      await page.mouse.up();
      await toast.filter({ hasText: `Moved “${role}” to Acknowledged.` }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/applications', 'the drag did not follow the link');
      await expectInColumn(page, role, 'Acknowledged');
      await visit(page, '/applications');
      await expectInColumn(page, role, 'Acknowledged');
    });

    await step(flow, 'Undo puts it back', s, async () => {
      const card = boardColumn(page, 'Acknowledged').locator('li.board__card').filter({ hasText: role });
      await card.getByRole('link', { name: role, exact: true }).focus();
      await page.keyboard.press('Shift+ArrowLeft');
      await toast.filter({ hasText: `Moved “${role}” to Applied.` }).waitFor();
      await toast.getByRole('button', { name: 'Undo', exact: true }).click();
      await toast.filter({ hasText: `Moved “${role}” back to Acknowledged.` }).waitFor();
      await visit(page, '/applications');
      await expectInColumn(page, role, 'Acknowledged');
    });

    await step(flow, 'a folded column stays folded on the next visit', s, async () => {
      const fold = () => boardColumn(page, 'Draft').locator('details.board__fold');
      // The browser tells of a fold in a task of its own: wait for it to be kept.
      const kept = (value) => page.waitForFunction(
        (v) => localStorage.getItem('peto.folded.applications.draft') === v, value);
      await fold().locator('summary').click();
      assert.equal(await fold().getAttribute('open'), null, 'the column folds');
      await kept('1');
      await visit(page, '/applications');
      assert.equal(await fold().getAttribute('open'), null, 'the fold is remembered');
      await fold().locator('summary').click();
      await kept(null);
      await visit(page, '/applications');
      assert.notEqual(await fold().getAttribute('open'), null, 'unfolded again, it stays open');
    });

    await step(flow, 'Shift+→ on the title moves it on, and the focus stays', s, async () => {
      const link = boardColumn(page, 'Acknowledged').getByRole('link', { name: role, exact: true });
      await link.focus();
      await page.keyboard.press('Shift+ArrowRight');
      await toast.filter({ hasText: `to Screening.` }).waitFor();
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim());
      assert.equal(focused, role, 'the moved card keeps the focus');
      await visit(page, '/applications');
      await expectInColumn(page, role, 'Screening');
    });

    await step(flow, 'a move the server did not make is undone on the page and said', s, async () => {
      await s.context.clearCookies(); // signed out: the post lands on the sign-in page
      const link = boardColumn(page, 'Screening').getByRole('link', { name: role, exact: true });
      await link.focus();
      await page.keyboard.press('Shift+ArrowRight');
      await toast.filter({ hasText: `“${role}” could not be moved.` }).waitFor();
      await expectInColumn(page, role, 'Screening');
    });
  });
});

test('the board: the card form and an ending with its reason, without JavaScript', { timeout: 90_000 }, async () => {
  const flow = 'board JS off';
  await inContext(flow, { javaScriptEnabled: false }, async (s) => {
    const { page } = s;
    const role = 'Board form analyst';
    await signIn(flow, s);
    await recordApplication(flow, s, role, 'Formco');
    await step(flow, 'move it with the card form', s, async () => {
      await visit(page, '/applications');
      const card = boardColumn(page, 'Applied').locator('li.board__card').filter({ hasText: role });
      await card.getByLabel('New status').selectOption('interviewing');
      await submit(page, card.getByRole('button', { name: 'Move', exact: true }));
      assert.equal(new URL(page.url()).pathname, '/applications');
      await expectInColumn(page, role, 'Interviewing');
    });
    await step(flow, 'end it as rejected, with the reason asked in place', s, async () => {
      const card = boardColumn(page, 'Interviewing').locator('li.board__card').filter({ hasText: role });
      const reason = card.getByLabel('End reason');
      assert.ok(!(await reason.isVisible()), 'the reason waits for an ending status');
      await card.getByLabel('New status').selectOption('rejected');
      assert.ok(await reason.isVisible(), 'an ending status shows the reason');
      await reason.selectOption('not_a_match');
      await submit(page, card.getByRole('button', { name: 'Move', exact: true }));
      assert.equal(await page.locator('li.board__card').filter({ hasText: role }).count(), 0, 'an ended application leaves the board');
    });
  });
});

// The applications table: a heading sorts, a filter narrows, and one action
// moves every ticked row; with JavaScript the heading's box ticks them all.
for (const js of [true, false]) {
  test(`the table: sort, filter and an action on ticked rows, JavaScript ${js ? 'on' : 'off'}`, { timeout: 90_000 }, async () => {
    const flow = `table JS ${js ? 'on' : 'off'}`;
    const tag = js ? 'with script' : 'without script';
    await inContext(flow, { javaScriptEnabled: js }, async (s) => {
      const { page } = s;
      await signIn(flow, s);
      const roles = [`Table analyst ${tag}`, `Table tester ${tag}`];
      await recordApplication(flow, s, roles[0], `Tabulo Zeta ${tag}`);
      await recordApplication(flow, s, roles[1], `Tabulo Alpha ${tag}`);
      const rows = page.locator('table tbody tr');
      await step(flow, 'a filter narrows the table to one company', s, async () => {
        await visit(page, '/applications?view=table&tab=all');
        await unfold(page, 'Filter');
        // "Company" also names a column to show: the filter's field is the text one.
        await page.locator('form.filters').getByRole('combobox', { name: 'Company' }).fill(`Tabulo Zeta ${tag}`);
        await submit(page, page.getByRole('button', { name: 'Apply the filters', exact: true }));
        assert.equal(await rows.count(), 1);
        assert.ok((await textOf(rows.first())).includes(roles[0]));
        await page.getByRole('link', { name: 'Clear the filters', exact: true }).click();
        await page.waitForLoadState('load');
        assert.ok((await rows.count()) >= 2);
      });
      await step(flow, 'the Company heading sorts A to Z, then Z to A', s, async () => {
        await visit(page, `/applications?view=table&tab=all&q=${encodeURIComponent(tag)}`);
        const heading = page.locator('th').filter({ hasText: 'Company' });
        await heading.getByRole('link').click();
        await page.waitForLoadState('load');
        assert.equal(await heading.getAttribute('aria-sort'), 'ascending');
        const text = await textOf(page.locator('table tbody'));
        assert.ok(text.indexOf(`Tabulo Alpha ${tag}`) < text.indexOf(`Tabulo Zeta ${tag}`), text);
        await page.locator('th').filter({ hasText: 'Company' }).getByRole('link').click();
        await page.waitForLoadState('load');
        assert.equal(await page.locator('th').filter({ hasText: 'Company' }).getAttribute('aria-sort'), 'descending');
      });
      await step(flow, 'tick both rows and move them to Interviewing', s, async () => {
        await visit(page, `/applications?view=table&tab=all&q=${encodeURIComponent(tag)}&sort=company_name`);
        if (js) {
          await page.getByLabel('Select every row', { exact: true }).check();
        } else {
          for (const role of roles) await page.getByLabel(`Select ${role}`, { exact: true }).check();
        }
        for (const role of roles) assert.ok(await page.getByLabel(`Select ${role}`, { exact: true }).isChecked());
        await page.getByLabel('With the ticked rows').selectOption('status:interviewing');
        await submit(page, page.getByRole('button', { name: 'Apply', exact: true }));
        assert.match(pathOf(page.url()), /sort=company_name/, 'back to the table as it was');
        await expectFlash(page, /^Moved \d+ to Interviewing\./);
        for (const role of roles) {
          const row = rows.filter({ hasText: role });
          assert.ok((await textOf(row)).includes('Interviewing'), `${role} is not Interviewing`);
        }
      });
      if (writeScreenshots && js) {
        await page.setViewportSize({ width: 1280, height: 800 });
        await visit(page, '/applications?view=table&tab=all&sort=company_name&status=interviewing');
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'table.png'), fullPage: true });
      }
    });
  });
}

// On a phone: a long word (a pasted link, a reference number) wraps instead
// of widening the page, and Edit and Delete stand on one line, one height.
test('long words wrap and the record buttons line up at 390 px', { timeout: 60_000 }, async () => {
  const flow = 'phone width';
  await inContext(flow, { viewport: { width: 390, height: 844 } }, async (s) => {
    const { page } = s;
    await signIn(flow, s);
    await step(flow, 'save a note with one very long word', s, async () => {
      await visit(page, '/notes/new');
      await (await labelled(page, 'Note')).fill(`Reference ${'X'.repeat(160)} and https://jobs.example/${'a'.repeat(120)}`);
      await submit(page, page.locator('form[action="/notes"] button[type=submit]'));
      assert.match(new URL(page.url()).pathname, /^\/notes\/\d+$/);
      await expectFlash(page, 'Saved.');
    });
    await step(flow, 'nothing is wider than the screen', s, async () => {
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth,
      }));
      assert.ok(widths.page <= widths.screen, `the page is ${widths.page}px wide on a ${widths.screen}px screen`);
    });
    await step(flow, 'Edit and Delete line up', s, async () => {
      const edit = await page.getByRole('link', { name: 'Edit', exact: true }).boundingBox();
      const del = await page.getByRole('button', { name: 'Delete', exact: true }).boundingBox();
      assert.ok(edit && del, 'Edit and Delete are both shown');
      assert.ok(Math.abs(edit.y - del.y) < 1 && Math.abs(edit.height - del.height) < 1,
        `Edit at y=${edit.y} h=${edit.height}, Delete at y=${del.y} h=${del.height}`);
    });
  });
});

// A NAS or a home server is opened as http://name:port: the session cookie
// must not be Secure there (the browser would drop it and sign-in would lead
// back to the empty form), and the page says the password travels in clear.
test('sign-in over plain HTTP at a LAN name keeps the session', { timeout: 60_000 }, async () => {
  const lanBrowser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--host-resolver-rules=MAP peto.lan 127.0.0.1'],
  });
  try {
    const lan = `http://peto.lan:${new URL(base).port}`;
    const context = await lanBrowser.newContext({ viewport: { width: 390, height: 844 } });
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    const page = await context.newPage();
    await page.goto(`${lan}/signin`, { waitUntil: 'load' });
    assert.match(await page.locator('#clear-warning').innerText(), /peto\.lan:\d+ is not encrypted/);
    await fillText(page, 'Email', email);
    await fillText(page, 'Password', password);
    await submit(page, page.getByRole('button', { name: 'Sign in', exact: true }));
    assert.equal(new URL(page.url()).pathname, '/', 'sign-in at a LAN name should land on /');
    await expectH1(page, /^Dashboard$/);
    const cookies = await context.cookies(lan);
    const session = cookies.find((c) => c.name === 'peto_session');
    assert.ok(session, 'the browser kept the session cookie');
    assert.equal(session.secure, false);
  } finally {
    await lanBrowser.close();
  }
});

// ---------------------------------------------------------------------------
// axe-core on every page; any violation of impact serious or critical fails.

const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

// The first /<kind>/<id> link on a page (for a listing or application page
// when the flows above did not leave one).
async function firstRecordLink(page, listPath, kind) {
  await visit(page, listPath);
  const hrefs = await page.locator(`a[href^="/${kind}/"]`).evaluateAll(
    (as) => as.map((a) => a.getAttribute('href')));
  const re = new RegExp(`^/${kind}/\\d+$`);
  return hrefs.find((h) => re.test(h)) ?? null;
}

async function runAxe(page) {
  // page.evaluate goes through the DevTools protocol, which the page's CSP
  // does not govern, so axe needs no inline script.
  const loaded = await page.evaluate(() => typeof window.axe === 'object');
  if (!loaded) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
}

test('axe-core finds no serious or critical violation on any page', { timeout: 240_000 }, async () => {
  const flow = 'axe';
  const failures = [];
  const checked = [];
  await inContext(flow, {}, async (s) => {
    const { page } = s;

    // A page that cannot be loaded or checked is one more failure; the rest
    // are still checked.
    async function check(p) {
      try {
        await step(flow, `axe on ${p}`, s, async () => {
          // At a desktop's width and a phone's: the layouts differ.
          const violations = [];
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
            await visit(page, p);
            for (const v of await runAxe(page)) violations.push({ ...v, width });
          }
          await page.setViewportSize({ width: 1280, height: 800 });
          checked.push(p);
          for (const v of violations) {
            if (v.impact === 'serious' || v.impact === 'critical') {
              failures.push(`${p} at ${v.width} px: ${v.id} (${v.impact}): ${v.help}\n      ${v.helpUrl}\n      ` +
                v.targets.slice(0, 8).join('\n      ') +
                (v.targets.length > 8 ? `\n      … and ${v.targets.length - 8} more` : ''));
            }
          }
        });
      } catch (err) {
        failures.push(`${p}: not checked: ${err.message}`);
        s.problems.length = 0; // already reported in that message
      }
    }

    await check('/signin');
    await check('/signin/forgot');
    if (process.env.PETO_RECOVERY_PATH) await check(process.env.PETO_RECOVERY_PATH);
    await signIn(flow, s);
    for (const [p, shot] of [['/admin', 'admin.png'], ['/profile/sessions', 'sessions.png']]) {
      await check(p);
      if (writeScreenshots) {
        await visit(page, p);
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', shot), fullPage: true });
      }
    }
    let listing = created.listingUrl ? pathOf(created.listingUrl) : null;
    let application = created.applicationUrl ? pathOf(created.applicationUrl) : null;
    if (!listing) {
      listing = await firstRecordLink(page, '/listings?view=table', 'listings').catch(() => null);
      if (!listing) failures.push('a listing page: not checked: the flows made none and /listings?view=table links none');
    }
    if (!application) {
      application = await firstRecordLink(page, '/applications?view=table', 'applications').catch(() => null);
      if (!application) failures.push('an application page: not checked: the flows made none and /applications?view=table links none');
    }
    // A capture's review page: paste a small page (nothing is fetched).
    let review = null;
    try {
      await visit(page, '/captures');
      if (writeScreenshots) {
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'capture-form.png'), fullPage: true });
      }
      await page.fill('#capture-url', 'https://jobs.example/axe-1');
      await page.fill('#capture-html', '<html><head><script type="application/ld+json">' +
        '{"@context":"https://schema.org","@type":"JobPosting","title":"Data Engineer",' +
        '"hiringOrganization":{"@type":"Organization","name":"Ribeira Dados"},' +
        '"jobLocation":{"@type":"Place","address":{"addressLocality":"Porto","addressCountry":"PT"}},' +
        '"baseSalary":{"@type":"MonetaryAmount","currency":"EUR","value":{"@type":"QuantitativeValue",' +
        '"minValue":42000,"maxValue":52000,"unitText":"YEAR"}},"validThrough":"2027-03-01",' +
        '"description":"<p>Build the pipelines behind our port logistics.</p>"}' +
        '</script></head><body><h1>Data Engineer</h1></body></html>');
      await submit(page, page.locator('form[action="/captures"] button[type=submit]'));
      review = pathOf(page.url());
      if (writeScreenshots) {
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'capture.png'), fullPage: true });
      }
    } catch (err) {
      failures.push(`a capture review page: not checked: ${err.message}`);
    }
    // A document's page: upload a small PDF through the form (multipart,
    // streamed to disk by the server).
    let docPage = null;
    try {
      await visit(page, '/documents/new');
      await page.setInputFiles('#doc-file', {
        name: 'cv.pdf', mimeType: 'application/pdf',
        buffer: Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'),
      });
      await page.fill('#doc-title', 'CV 2026');
      await submit(page, page.locator('form[action="/documents/new"] button[type=submit]'));
      docPage = new URL(page.url()).pathname;
      if (!/^\/documents\/\d+$/.test(docPage)) throw new Error(`the upload landed on ${docPage}`);
      if (writeScreenshots) {
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'document.png'), fullPage: true });
      }
    } catch (err) {
      failures.push(`a document page: not checked: ${err.message}`);
      docPage = null;
    }
    // A CV with one career entry, made through the forms; its page holds the preview.
    let cvPage = null;
    try {
      await visit(page, '/career/new');
      await page.fill('[name=title]', 'Senior engineer');
      await page.fill('[name=organisation]', 'Acme Logistics');
      await page.fill('[name=started_on]', '2021-03-01');
      await page.fill('[name=highlights]', '- Cut the nightly run from **four hours** to twenty minutes\n- Mentored two engineers');
      await submit(page, page.locator('form[action="/career"] button[type=submit]'));
      await visit(page, '/cvs/new');
      await page.fill('[name=name]', 'Backend');
      await page.fill('[name=full_name]', 'Ana Lima');
      await page.fill('[name=headline]', 'Backend engineer');
      await page.fill('[name=town]', 'Lisbon');
      await submit(page, page.locator('form[action="/cvs"] button[type=submit]'));
      cvPage = pathOf(page.url());
      if (!/^\/cvs\/\d+$/.test(cvPage)) throw new Error(`the CV landed on ${cvPage}`);
      if (writeScreenshots) {
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'cv.png'), fullPage: true });
      }
    } catch (err) {
      failures.push(`a CV page: not checked: ${err.message}`);
      cvPage = null;
    }
    // A letter template; then "Record as sent" on the application: an errand
    // (the test's server runs no worker), done by `peto work --once`; sent
    // twice, the second copy's comparison page.
    let letterPage = null, sendingPage = null, comparePage = null;
    try {
      await visit(page, '/letters/new');
      await page.fill('[name=name]', 'Cover letter');
      await page.fill('[name=regarding]', 'Application for {role}');
      await page.fill('[name=body]', 'Dear {contact},\n\nI would like to bring my work on **data pipelines** to {company} as {role}.\n\n- Four years of Go\n- On call, calmly\n\nKind regards,\n\nAna Lima');
      await page.selectOption('[name=cv_id]', { label: 'Backend' });
      await submit(page, page.locator('form[action="/letters"] button[type=submit]'));
      letterPage = pathOf(page.url());
      if (!/^\/letters\/\d+$/.test(letterPage)) throw new Error(`the letter landed on ${letterPage}`);
      if (application) {
        const work = promisify(execFile);
        for (const what of ['both', 'cv']) {
          await visit(page, application);
          await page.selectOption('#send-cv', { label: 'Backend' });
          if (what === 'both') await page.selectOption('#send-letter', { index: 1 });
          await submit(page, page.locator('form#send button[type=submit]'));
          sendingPage = pathOf(page.url());
          if (!/\/send\/\d+$/.test(sendingPage)) throw new Error(`Record as sent landed on ${sendingPage}`);
          await work(process.env.PETO_BINARY, ['work', '--once']);
        }
        await visit(page, sendingPage);
        await page.locator('[data-testid=sent-copies] a').first().click();
        await page.waitForLoadState('load');
        await page.getByRole('link', { name: 'Compare with another sent copy' }).click();
        await page.waitForLoadState('load');
        comparePage = pathOf(page.url());
        if (!/\/compare$/.test(comparePage)) throw new Error(`the comparison landed on ${comparePage}`);
        if (writeScreenshots) {
          await visit(page, letterPage + '?application=' + application.split('/').pop());
          await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'letter.png'), fullPage: true });
        }
      }
    } catch (err) {
      failures.push(`letters and Record as sent: not checked: ${err.message}`);
    }
    if (writeScreenshots) {
      await visit(page, '/insights');
      await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'insights.png'), fullPage: true });
      await visit(page, '/report?period=weeks&weeks=8');
      await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'report.png'), fullPage: true });
    }
    for (const p of ['/insights', '/report', '/report?period=weeks&weeks=8',
      '/career', '/career/new', '/cvs', '/cvs/new', cvPage,
      '/letters', '/letters/new', letterPage, sendingPage, comparePage,
      '/documents', '/documents/new', docPage, '/profile/export', '/profile/import',
      '/profile/connections/new?plugin=webdav', '/profile/connections/new?plugin=caldav',
      '/profile/feed',
      '/', '/listings', '/listings?view=table', '/listings/new', listing,
      '/applications', '/applications?view=table', '/applications?view=table&tab=all&sort=company_name&status=applied&col=company&col=status&col=created_at', application, '/reminders',
      '/calendar', '/calendar?view=week', '/calendar?view=month', '/search?q=engineer', '/search',
      '/quick-add', '/applications/record?role=SRE&read=1&unread=soonish', '/companies', '/contacts', '/profile', '/profile/tokens', '/profile/connections',
      '/profile/connections/new?plugin=webhook', '/inbox', '/profile/password', '/captures', review,
      '/trash']) {
      if (p) await check(p);
    }
  });
  if (failures.length) {
    assert.fail(`axe-core: serious or critical violations (${checked.length} pages checked):\n  ${failures.join('\n  ')}`);
  }
});

// Two-step sign-in as a person sets it up: the QR code read back by Debian's
// zbarimg (what a phone's camera would read), codes from oathtool (an
// independent authenticator), a sign-in with a code and one with a recovery
// code; axe on each page of it.
const run = promisify(execFile);
const other = { email: 'bo@example.com', password: 'another long password' };

async function totp(secret, offsetSeconds = 0) {
  const at = Math.floor(Date.now() / 1000) + offsetSeconds;
  const { stdout } = await run('oathtool', ['--totp', '-b', secret, '--now', `@${at}`]);
  return stdout.trim();
}

test('two-step sign-in: set up from the QR code, sign in with a code and a recovery code', { timeout: 120_000 }, async () => {
  const flow = 'two-step';
  await inContext(flow, {}, async (s) => {
    const { page } = s;
    const failures = [];
    // axe on the page as it is (an answer to a form cannot be loaded again).
    async function axeHere(label) {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        for (const v of await runAxe(page)) {
          if (v.impact === 'serious' || v.impact === 'critical') {
            failures.push(`${label} at ${width} px: ${v.id} (${v.impact}): ${v.help}\n      ${v.targets.slice(0, 8).join('\n      ')}`);
          }
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    async function passwordStep() {
      await visit(page, '/signin');
      await fillText(page, 'Email', other.email);
      await fillText(page, 'Password', other.password);
      await submit(page, page.getByRole('button', { name: 'Sign in', exact: true }));
    }
    async function signOut() {
      await page.locator('.site-account__menu summary').click();  // the account's menu
      await submit(page, page.getByRole('button', { name: 'Sign out', exact: true }));
      assert.equal(new URL(page.url()).pathname, '/signin');
    }

    let secret;
    let codes;
    await step(flow, 'set up two-step sign-in from the QR code', s, async () => {
      await passwordStep();
      assert.equal(new URL(page.url()).pathname, '/');
      await visit(page, '/profile');
      await page.getByRole('link', { name: /Two-step sign-in/ }).click();
      await expectH1(page, 'Two-step sign-in');
      await axeHere('/profile/two-factor (off)');
      await submit(page, page.getByRole('button', { name: 'Set up two-step sign-in' }));
      const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
      await qr.waitFor();
      const png = path.join(await mkdtemp(path.join(tmpdir(), 'peto-qr-')), 'qr.png');
      await qr.screenshot({ path: png });
      const { stdout } = await run('zbarimg', ['--quiet', '--raw', png]);
      const uri = new URL(stdout.trim());
      assert.equal(uri.protocol, 'otpauth:');
      assert.equal(uri.host, 'totp');
      assert.equal(decodeURIComponent(uri.pathname), '/peto:bo@example.com');
      secret = uri.searchParams.get('secret');
      const typed = (await textOf(page.locator('#two-factor-secret'))).replace(/ /g, '');
      assert.equal(secret, typed, 'the QR code and the key to type are the same secret');
      await axeHere('/profile/two-factor (setup)');
      if (writeScreenshots) {
        await page.screenshot({ path: path.join(sourceDir, 'docs', 'screenshots', 'two-factor.png'), fullPage: true });
      }
      await fillText(page, 'The 6-digit code your app now shows', await totp(secret));
      await submit(page, page.getByRole('button', { name: 'Turn on' }));
      codes = (await page.locator('#recovery-codes code').allInnerTexts()).map((c) => c.trim());
      assert.equal(codes.length, 10, 'ten recovery codes');
      await axeHere('/profile/two-factor (recovery codes)');
      await page.getByRole('link', { name: 'I have saved them' }).click();
      assert.match(await textOf(page.locator('main')), /10 of 10 recovery codes left/);
      await signOut();
    });

    await step(flow, 'sign in with the password and a code', s, async () => {
      await passwordStep();
      assert.equal(new URL(page.url()).pathname, '/signin/code');
      await expectH1(page, 'Enter your code');
      await axeHere('/signin/code');
      // The enrolment used this step's code: the app's next one (within the
      // one step of drift peto allows) signs in.
      await fillText(page, 'Code', await totp(secret, 30));
      await submit(page, page.getByRole('button', { name: 'Sign in', exact: true }));
      assert.equal(new URL(page.url()).pathname, '/');
      await expectH1(page, /^Dashboard$/);
      await signOut();
    });

    await step(flow, 'sign in with a recovery code', s, async () => {
      await passwordStep();
      await fillText(page, 'Code', codes[0].toUpperCase());
      await submit(page, page.getByRole('button', { name: 'Sign in', exact: true }));
      assert.equal(new URL(page.url()).pathname, '/');
      await expectFlash(page, 'You signed in with a recovery code; 9 are left');
      await signOut();
      await passwordStep();
      await fillText(page, 'Code', codes[0]);
      const [refused] = await Promise.all([
        page.waitForNavigation({ waitUntil: 'load', timeout: NAV_TIMEOUT_MS }),
        page.getByRole('button', { name: 'Sign in', exact: true }).click(),
      ]);
      assert.equal(refused.status(), 422, 'a used recovery code is refused');
      assert.match(await textOf(page.locator('[role=alert]')), /not right, or it was used already/);
    });
    if (failures.length) assert.fail(`axe-core: serious or critical violations:\n  ${failures.join('\n  ')}`);
  });
});
