// Validate glTF files with the Khronos glTF-Validator.
// Usage: node validate.js FILE...  -> one JSON line per file:
// {"file": ..., "errors": N, "warnings": N, "infos": N, "hints": N, "messages": [...]}
// Exit status 0 when every file was read (the caller judges the counts).
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function one(file) {
  const data = new Uint8Array(fs.readFileSync(file));
  const dir = path.dirname(file);
  const report = await validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 100,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(dir, decodeURIComponent(uri)), (err, bytes) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(bytes)));
      }),
  });
  const i = report.issues;
  return {
    file,
    errors: i.numErrors,
    warnings: i.numWarnings,
    infos: i.numInfos,
    hints: i.numHints,
    messages: i.messages.filter((m) => m.severity <= 1),
    info: report.info,
  };
}

(async () => {
  let failed = false;
  for (const f of process.argv.slice(2)) {
    try {
      console.log(JSON.stringify(await one(f)));
    } catch (e) {
      failed = true;
      console.log(JSON.stringify({ file: f, fatal: String(e) }));
    }
  }
  process.exit(failed ? 1 : 0);
})();
