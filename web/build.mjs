// Builds the page into dist/ (or the directory given as the first argument): the types and the
// service descriptor generated from ../proto, type-checked, bundled by esbuild into one script,
// beside the html, the style and the icon. The same sources and packages give the same bytes
// (no time stamps, no absolute paths, no source maps): CI rebuilds the page and compares it
// with the committed dist/, which the server embeds.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "dist"));
const bin = (name) => join(here, "node_modules", ".bin", name);
const run = (cmd, args) => {
  try {
    execFileSync(cmd, args, { cwd: here, stdio: "inherit" });
  } catch {
    console.error(`the page's build failed at: ${cmd} ${args.join(" ")} (its errors are above)`);
    process.exit(1);
  }
};

rmSync(join(here, "src", "gen"), { recursive: true, force: true });
run(bin("buf"), ["generate", "../proto", "--template", "buf.gen.yaml", "--path", "../proto/canasta"]);
run(bin("tsc"), ["--noEmit", "-p", "."]);

mkdirSync(out, { recursive: true });
await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/main.ts"],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "iife",
  target: ["es2022"],
  minify: true,
  legalComments: "none",
  charset: "utf8",
  sourcemap: false,
  logLevel: "warning",
});
for (const file of ["index.html", "app.css", "favicon.svg"]) {
  copyFileSync(join(here, "static", file), join(out, file));
}
console.log(`built the page into ${out}`);
