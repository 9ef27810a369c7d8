import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAppServer } from './app-server';
import { BUILD_DIR } from './e2e-env';
import { expect, test } from './fixtures';

test.skip(({ mode }) => mode !== 'proxy', 'picture');
test('picture', async ({ browser, provider }) => {
  test.setTimeout(120_000);
  const dir = await mkdtemp(join(BUILD_DIR, 'picture-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(
    join(dir, 'docs', 'returns.md'),
    '# Returns\n\n## Returning an order\n\nYou can return any unused item within 30 days: open Orders, choose the item, print the free label and drop the parcel at any post office.\n\n## Refunds\n\nRefunds reach your card in 3 to 5 working days after the parcel arrives.\n',
  );
  await writeFile(
    join(dir, 'docs', 'delivery.md'),
    '# Delivery\n\n## Parcels\n\nOrders leave within a day. A parcel can be returned to any post office if nobody is home.\n',
  );
  await writeFile(
    join(dir, 'assistant.config.yaml'),
    'title: Acme Garden Help\nwelcome: Hello! Ask me about **orders, deliveries and returns**.\naccent: "#15803d"\nknowledge:\n  - path: ./docs\n    url: https://acme.example/help/\n',
  );
  const server = await startAppServer('proxy', provider.baseURL, { ASSISTANT_CONFIG: join(dir, 'assistant.config.yaml') });
  await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  provider.reset();
  provider.respondWith({
    content:
      'You can return any unused item **within 30 days** [1]:\n\n1. Open *Orders* and choose the item.\n2. Print the free label.\n3. Drop the parcel at any post office.\n\nRefunds reach your card in 3–5 working days [2].',
  });
  const page = await browser.newPage({ viewport: { width: 800, height: 1040 } });
  await page.goto(server.url);
  await page.locator('input[name="message"]').fill('How do I return an order?');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('region', { name: 'Sources' })).toBeVisible();
  await expect(page.locator('input[name="message"]')).toBeEnabled();
  await page.locator('input[name="message"]').blur();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  const card = page.locator('[data-part="card"], main > div').first();
  await card.screenshot({ path: '/tmp/card-picture.png' });
  await page.screenshot({ path: '/tmp/page-picture.png' });
  await page.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
