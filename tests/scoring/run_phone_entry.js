// Runs club/static/js/entry.js's checkEntry over the entries test_phone_entry.py writes to
// stdin ({wire, fields} each) and writes each answer to stdout: the mistakes (code, field,
// words) or the entry read.
"use strict";
const entry = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const cases = JSON.parse(input);
  const out = cases.map(({wire, fields}) => {
    const found = entry.checkEntry(wire, (name) => (name in fields ? fields[name] : ""));
    return {
      errors: found.errors.map((error) => ({code: error.code, field: error.field, words: entry.words(wire, error)})),
      entry: found.entry || null,
    };
  });
  process.stdout.write(JSON.stringify(out));
});
