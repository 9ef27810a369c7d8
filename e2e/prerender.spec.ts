import { ChatPage, expect, hydrated, test, watchHydration } from './fixtures';

// The card is in index.html as served (rendered at build time from the app's components), and React takes it over
// without changing what a visitor or a screen reader meets. The page does not depend on how it reaches the model:
// checked in proxy mode only.

// Run in proxy mode only (e2e/playwright.config.ts).

test('the served HTML holds the idle card; hydrated, its accessible tree is the same', async ({
  browser,
  page,
  fake: _fake,
  baseURL,
}) => {
  const staticContext = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const staticPage = await staticContext.newPage();
  await staticPage.goto('/');
  const served = new ChatPage(staticPage);
  await expect(staticPage.getByRole('heading', { level: 1, name: 'AI Assistant' })).toBeVisible();
  await expect(served.input).toHaveAttribute('placeholder', 'Your message here');
  await expect(served.input).toHaveValue('');
  await expect(served.sendButton).toHaveText('Send');
  await expect(served.log).toBeVisible();
  await expect(served.bubbles()).toHaveCount(0);
  // Styled before any script: the card's border and the robot icon's size come from the CSS in the page.
  await expect(staticPage.getByRole('main')).not.toHaveCSS('border-top-width', '0px');
  await expect(staticPage.locator('h1 svg')).toHaveCSS('width', '24px');
  const servedTree = await staticPage.locator('body').ariaSnapshot();
  await staticContext.close();

  const chat = new ChatPage(page);
  await page.goto('/');
  await hydrated(page);
  await chat.expectIdle();
  expect(await page.locator('body').ariaSnapshot()).toBe(servedTree);
  expect(chat.consoleErrors, 'no hydration mismatch or other error').toEqual([]);
  expect(chat.pageErrors).toEqual([]);
});

test('a dark system sees the dark card', async ({ browser, baseURL }) => {
  for (const javaScriptEnabled of [false, true]) {
    const context = await browser.newContext({ javaScriptEnabled, baseURL, colorScheme: 'dark' });
    const hydrationErrors = watchHydration(context);
    const page = await context.newPage();
    await page.goto('/');
    if (javaScriptEnabled) await hydrated(page);
    const main = page.getByRole('main');
    await expect(main).toBeVisible();
    const background = await main.evaluate((element) => getComputedStyle(element).backgroundColor);
    const page_ = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    // Chakra's dark panel and page, not its light ones (white).
    expect(background, `the card's background, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`).not.toBe(
      'rgb(255, 255, 255)',
    );
    expect(page_).not.toBe('rgb(255, 255, 255)');
    expect(hydrationErrors).toEqual([]);
    await context.close();
  }
});
