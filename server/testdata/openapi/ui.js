// Drives SVC's API reference page in headless Chromium, as a reader
// would: loads it, reads the operations it lists, opens GET /books,
// presses "Try it out", fills a filter, presses "Execute" and reads the
// answer the page shows. Prints one JSON line with what it saw, the
// requests the page made and the Content-Security-Policy violations the
// browser reported; server/openapi_ui_test.go judges them.
//
//   node ui.js CHROMIUM PAGE_URL
"use strict";

const puppeteer = require("puppeteer-core");

async function main(chromium, url) {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const seen = { requests: [], violations: [], failed: [] };
  try {
    // Every page's requests, failures and policy violations are noted.
    const watched = async () => {
      const p = await browser.newPage();
      p.on("request", (r) => seen.requests.push(r.url()));
      p.on("requestfailed", (r) => seen.failed.push(r.url()));
      p.on("console", (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) {
          seen.violations.push(m.text());
        }
      });
      return p;
    };
    // Deadlines, not measurements: on a loaded machine the bundle alone
    // can take tens of seconds to parse.
    const page = await watched();
    const response = await page.goto(url, { waitUntil: "networkidle0", timeout: 120000 });
    seen.csp = response.headers()["content-security-policy"] || "";
    await page.waitForSelector(".opblock-tag", { timeout: 120000 });
    seen.title = await page.$eval(".info .title", (e) => e.textContent);
    // The page renders only the tags in view: scroll down through all of
    // them, as a reader would, noting each. Half a screen at a time, and
    // each time once what is rendered has settled (two reads 50 ms apart
    // agree), so that a page slow to render on a busy machine still shows
    // every tag on the way.
    const tags = new Set();
    const rendered = () => page.$$eval(".opblock-tag", (els) => els.map((e) => e.getAttribute("data-tag")).join("\n"));
    const settled = async () => {
      let last = await rendered();
      for (let j = 0; j < 100; j++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const now = await rendered();
        if (now === last) {
          return now;
        }
        last = now;
      }
      return last;
    };
    for (let i = 0; i < 4000; i++) {
      for (const t of (await settled()).split("\n")) {
        if (t) {
          tags.add(t);
        }
      }
      const moved = await page.evaluate(() => {
        const before = window.scrollY;
        window.scrollBy(0, window.innerHeight / 2);
        return window.scrollY !== before;
      });
      if (!moved) {
        break;
      }
    }
    seen.tags = [...tags];

    // A link to an operation opens it: #/<tag>/<operationId>. Swagger UI
    // names the operation's block after both, escaping the dot.
    const opened = await watched();
    await opened.goto(url + "#/books/get.books", { waitUntil: "networkidle0", timeout: 120000 });
    const op = '[id^="operations-books-get"]';
    await opened.waitForSelector(`${op} .opblock-summary`, { timeout: 120000 });
    if (!(await opened.$(`${op} .try-out__btn`))) {
      await opened.click(`${op} .opblock-summary`);
    }
    await opened.waitForSelector(`${op} .try-out__btn`);
    await opened.click(`${op} .try-out__btn`);
    const filter = `${op} tr[data-param-name="year"][data-param-in="query"] input`;
    await opened.waitForSelector(filter);
    await opened.type(filter, "lt.1970");
    await opened.click(`${op} .execute`);
    await opened.waitForSelector(`${op} .live-responses-table tr.response .response-col_status`, { timeout: 120000 });
    seen.status = await opened.$eval(`${op} .live-responses-table tr.response .response-col_status`, (e) => e.textContent.trim());
    seen.body = await opened.$eval(`${op} .live-responses-table .response-col_description pre`, (e) => e.textContent);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(seen));
}

main(process.argv[2], process.argv[3]).catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
