// Validates values against schemas of an OpenAPI 3.1 document with ajv,
// in JSON Schema 2020-12, the document's dialect.
//
//   node schema_check.js DOCUMENT SAMPLES
//
// SAMPLES is a JSON array of {"pointer": "/components/schemas/...",
// "value": ...}; the script prints a JSON array of booleans, whether each
// value is valid against the schema at its pointer ($refs resolved in
// the document). server/openapi31_domains_test.go compares them with what
// PostgreSQL accepts.
"use strict";

const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020");

function main(docFile, samplesFile) {
  const doc = JSON.parse(fs.readFileSync(docFile, "utf8"));
  const samples = JSON.parse(fs.readFileSync(samplesFile, "utf8"));
  // Formats carry PostgreSQL type names, which are no standard format:
  // they describe, and validate nothing.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema(doc, "doc");
  const verdicts = samples.map((s) => {
    const validate = ajv.getSchema("doc#" + s.pointer);
    if (!validate) {
      throw new Error("no schema at " + s.pointer);
    }
    return validate(s.value);
  });
  console.log(JSON.stringify(verdicts));
}

try {
  main(process.argv[2], process.argv[3]);
} catch (err) {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
}
