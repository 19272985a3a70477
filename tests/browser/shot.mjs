import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
for (const w of [1280, 390]) {
  const p = await b.newPage({ viewport: { width: w, height: 900 } });
  await p.goto('http://127.0.0.1:18080/signin');
  await p.fill('input[name=email]', 'demo@example.com');
  await p.fill('input[name=password]', 'correct horse battery');
  await p.click('button[type=submit]');
  await p.goto('http://127.0.0.1:18080/profile');
  const f = await p.$('#automatic-reminders');
  await f.screenshot({ path: `/tmp/shots/profile-${w}.png` });
  await p.goto('http://127.0.0.1:18080/');
  await p.screenshot({ path: `/tmp/shots/dash-${w}.png`, fullPage: false });
  await p.close();
}
await b.close();
