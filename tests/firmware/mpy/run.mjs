// Run a scenario on the real MicroPython interpreter (its WebAssembly build, run by Node).
//
//   node tests/firmware/mpy/run.mjs [--heap BYTES] SCENARIO [ARGS...]
//
// Copies the firmware as the chip holds it (firmware/*.py and test_vectors.json, flat in one
// folder) and this folder's MicroPython files (the fakes of machine, rp2 and utime, the
// harness, the scenarios) into the interpreter's in-memory filesystem at /fw, makes /fw the
// only place imports look, sets sys.argv to [SCENARIO, ...ARGS] and runs
// `harness.main(SCENARIO)`, which imports the scenario module and runs its test_* functions.
// Then, if the scenario module has a ``chunk`` function, calls it from here (the top level)
// until it returns a false value: this build of MicroPython collects garbage only between
// calls from JavaScript, so a long run is driven in chunks (see scenario_heap.py).
// Everything the scenario prints goes to stdout; an uncaught Python exception goes to stderr
// and the exit status is 1.
//
// MICROPYTHON_MJS names the interpreter's micropython.mjs (default: the copy that
// `python3 dev.py test` installs into .cache/micropython/). --heap is the size of the first
// GC heap area (default 192 KiB, about what MicroPython has on the RP2040's 264 KiB); this
// build adds areas when a collection cannot free enough (gc.mem_free() counts what it could
// still add), so a run that stays in that area would also fit the Pico's heap.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..", "..");
const FIRMWARE = path.join(ROOT, "firmware");
const DEFAULT_MJS = path.join(ROOT, ".cache", "micropython", "node_modules", "@micropython",
  "micropython-webassembly-pyscript", "micropython.mjs");

function usage(message) {
  process.stderr.write(`run.mjs: ${message}\n` +
    "usage: node run.mjs [--heap BYTES] SCENARIO [ARGS...]\n");
  process.exit(2);
}

const argv = process.argv.slice(2);
let heap = 192 * 1024;
while (argv.length && argv[0].startsWith("--")) {
  const opt = argv.shift();
  if (opt === "--heap" && argv.length) heap = parseInt(argv.shift(), 10);
  else usage(`unknown option ${opt}`);
}
if (!argv.length || !Number.isFinite(heap) || heap < 16 * 1024) usage("no scenario given");
const scenario = argv[0];
if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(scenario)) usage(`not a module name: ${scenario}`);
if (!fs.existsSync(path.join(HERE, `${scenario}.py`))) usage(`no ${scenario}.py in ${HERE}`);

const mjs = process.env.MICROPYTHON_MJS || DEFAULT_MJS;
if (!fs.existsSync(mjs)) {
  process.stderr.write(`run.mjs: no MicroPython interpreter at ${mjs} ` +
    "(python3 dev.py test installs it)\n");
  process.exit(3);
}
const { loadMicroPython } = await import(pathToFileURL(mjs).href);

const out = (line) => process.stdout.write(line + "\n");
const err = (line) => process.stderr.write(line + "\n");
const mp = await loadMicroPython({ heapsize: heap, stdout: out, stderr: err, linebuffer: true });

mp.FS.mkdir("/fw");
const copy = (dir, name) => mp.FS.writeFile(`/fw/${name}`, fs.readFileSync(path.join(dir, name)));
for (const name of fs.readdirSync(FIRMWARE)) {
  if ((name.endsWith(".py") && name !== "__init__.py") || name === "test_vectors.json") {
    copy(FIRMWARE, name);
  }
}
for (const name of fs.readdirSync(HERE)) {
  if (name.endsWith(".py")) copy(HERE, name);
}

const args = JSON.stringify(argv);
let status = 0;
try {
  mp.runPython(`
import os, sys
os.chdir("/fw")
sys.path[:] = ["/fw"]
sys.argv[:] = ${args}
import harness
harness.main(sys.argv[0])
`);
  const module = mp.pyimport(scenario);
  if ("chunk" in module) {
    const chunk = module.chunk;
    while (chunk()) {
      // each call returns to the top level, where a requested collection runs
    }
  }
} catch (error) {
  if (error && error.name === "PythonError") {
    err(`run.mjs: ${error.type} raised in ${scenario}:`);
    err(error.message);
    status = 1;
  } else {
    throw error;
  }
}
process.exitCode = status;
