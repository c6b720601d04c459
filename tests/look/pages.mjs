// Looks at HTML pages the way a person's browser shows them: each `NAME.html` in the directory
// given is loaded into headless Chromium at a phone's width and a desktop's, screenshotted beside it
// (`NAME-375.png`, `NAME-1280.png`), and measured. Prints one JSON report (an array, one entry per
// page and width) for the caller to judge; exits non-zero only when the browser cannot run.
//
//     node tests/look/pages.mjs DIR
//
// Needs the browser tools (tests/tools/install.sh puts them in .tools/browser; HOSTED_MCP_TOOLS
// from tests/tools/env.sh says where .tools is).
import { createRequire } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.argv[2];
const tools = process.env.HOSTED_MCP_TOOLS;
if (!dir || !tools) {
  console.error("usage: HOSTED_MCP_TOOLS=.tools node tests/look/pages.mjs DIR");
  process.exit(2);
}
const require = createRequire(join(tools, "browser", "package.json"));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);
const chromium = (await load("@sparticuz/chromium")).default;
const puppeteer = (await load("puppeteer-core")).default;

const browser = await puppeteer.launch({
  executablePath: await chromium.executablePath(),
  args: chromium.args,
  headless: true,
});
const report = [];
try {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".html")).sort()) {
    const name = file.slice(0, -".html".length);
    const html = readFileSync(join(dir, file), "utf8");
    for (const width of [375, 1280]) {
      const page = await browser.newPage();
      await page.setViewport({ width, height: 800 });
      // A page must stand alone: every request it would make is recorded and refused.
      const requests = [];
      await page.setRequestInterception(true);
      page.on("request", (request) => {
        requests.push(request.url());
        request.abort();
      });
      await page.setContent(html, { waitUntil: "load" });
      const seen = await page.evaluate(() => {
        // WCAG relative luminance and contrast ratio of two CSS colours.
        const rgb = (css) => css.match(/[\d.]+/g).slice(0, 3).map(Number);
        const lum = (css) => {
          const [r, g, b] = rgb(css).map((v) => {
            const c = v / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const background = (el) => {
          for (let e = el; e; e = e.parentElement) {
            const bg = getComputedStyle(e).backgroundColor;
            if (!/rgba\(.*,\s*0\)$/.test(bg) && bg !== "transparent") return bg;
          }
          return "rgb(255, 255, 255)";
        };
        const contrast = (el) => {
          const [a, b] = [lum(getComputedStyle(el).color), lum(background(el))];
          return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        };
        const box = (el) => {
          const r = el.getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, height: r.height };
        };
        const h1 = document.querySelector("h1");
        const p = document.querySelector("p");
        return {
          lang: document.documentElement.lang,
          title: document.title,
          heading: h1 ? h1.innerText : null,
          text: p ? p.innerText : null,
          heading_box: h1 ? box(h1) : null,
          text_box: p ? box(p) : null,
          text_font_px: p ? parseFloat(getComputedStyle(p).fontSize) : null,
          text_contrast: p ? contrast(p) : null,
          heading_contrast: h1 ? contrast(h1) : null,
          scroll_width: document.documentElement.scrollWidth,
          scripts: document.scripts.length,
          links: [...document.querySelectorAll("a")].map((a) => a.href),
          forms: document.forms.length,
          // Every button as laid out: its text and box, so a caller can tell it is on the page.
          buttons: [...document.querySelectorAll("button, input[type=submit]")].map((b) => ({
            text: b.innerText || b.value,
            ...box(b),
            width: b.getBoundingClientRect().width,
          })),
        };
      });
      const shot = join(dir, `${name}-${width}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      report.push({ name, width, requests, screenshot: shot, ...seen });
      await page.close();
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(report, null, 1));
