// Validates one OpenAPI (Swagger 2.0) document against the specification's
// schema and its further rules, as swagger-parser checks them.
//
//   node validate.js FILE
//
// Prints "valid: FILE" and exits 0, or prints every problem found and
// exits 1. server/openapi_validate_test.go runs it on SVC's root document.
"use strict";

const fs = require("fs");
const SwaggerParser = require("@apidevtools/swagger-parser");

async function main(file) {
  if (!file) {
    console.error("usage: node validate.js FILE");
    return 2;
  }
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  try {
    // validate() dereferences $refs, so a dangling reference fails too.
    await SwaggerParser.validate(doc);
  } catch (err) {
    console.error(`invalid: ${file}\n${err.message}`);
    if (Array.isArray(err.details)) {
      console.error(JSON.stringify(err.details, null, 2));
    }
    return 1;
  }
  console.log(`valid: ${file}`);
  return 0;
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  },
);
