// Bundles the console into gen/console, where the binary embeds it: the
// same sources and lockfile give the same bytes (no timestamps, no paths).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const out = "../../../gen/console";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.tsx"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
  outfile: `${out}/app.js`,
});
copyFileSync("index.html", `${out}/index.html`);
copyFileSync("style.css", `${out}/app.css`);
copyFileSync("icon.svg", `${out}/icon.svg`);
copyFileSync("node_modules/preact/LICENSE", `${out}/LICENSE.preact`);
copyFileSync("node_modules/openapi-fetch/LICENSE", `${out}/LICENSE.openapi-fetch`);
